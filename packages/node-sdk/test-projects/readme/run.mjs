// Type-checks the TypeScript snippets of the package's README (every ```ts block) with
// `tsc --strict` against the built package, as a user who copies them would compile them: each
// block is a module of its own, beside `globals.d.ts`, which declares what the snippets take for
// granted (an Express `app`, a `loyalty` client, the application's helpers). Errors are
// reported at their README line. Build first (`pnpm build`): the declarations are dist's.
//
//   node test-projects/readme/run.mjs
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, "../..");
const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));

const readme = readFileSync(path.join(packageDir, "README.md"), "utf8");
const blocks = [];
{
  const lines = readme.split("\n");
  let open;
  lines.forEach((line, index) => {
    if (open === undefined && /^```(ts|typescript)\s*$/.test(line))
      open = { start: index + 2, code: [] };
    else if (open !== undefined && /^```\s*$/.test(line)) {
      blocks.push(open);
      open = undefined;
    } else open?.code.push(line);
  });
  if (open !== undefined) throw new Error(`README.md:${open.start - 1}: a ts block is not closed`);
}
if (blocks.length === 0) throw new Error("README.md has no ```ts block to check");
if (!existsSync(path.join(packageDir, manifest.types))) {
  throw new Error(`${manifest.types} is missing: run \`pnpm build\` first`);
}

const scratch = mkdtempSync(path.join(tmpdir(), "loyalty-node-sdk-readme-"));
try {
  const modules = path.join(scratch, "node_modules");
  mkdirSync(path.join(modules, "@loyalty"), { recursive: true });
  mkdirSync(path.join(modules, "@types"), { recursive: true });
  // The package as built (its manifest's exports lead to dist), and the types a user has.
  symlinkSync(packageDir, path.join(modules, manifest.name));
  for (const types of ["@types/node", "@types/express"]) {
    const found = require.resolve(`${types}/package.json`, { paths: [packageDir] });
    symlinkSync(realpathSync(path.dirname(found)), path.join(modules, types));
  }
  copyFileSync(path.join(here, "globals.d.ts"), path.join(scratch, "globals.d.ts"));
  blocks.forEach((block, index) => {
    // `export {}` makes each block a module: top-level await, and names of its own.
    writeFileSync(
      path.join(scratch, `block-${index}.mts`),
      `${block.code.join("\n")}\nexport {};\n`,
    );
  });
  // This folder's tsconfig (which editors and ESLint read, on the sources), on the built
  // declarations and the snippets.
  const tsconfig = JSON.parse(readFileSync(path.join(here, "tsconfig.json"), "utf8"));
  delete tsconfig.compilerOptions.customConditions;
  tsconfig.include = ["globals.d.ts", "*.mts"];
  writeFileSync(path.join(scratch, "tsconfig.json"), JSON.stringify(tsconfig));
  try {
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "."], {
      cwd: scratch,
      encoding: "utf8",
    });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    const located = output.replace(
      /^block-(\d+)\.mts\((\d+),(\d+)\)/gm,
      (_, block, line, column) => {
        return `README.md:${blocks[Number(block)].start + Number(line) - 1}:${column}`;
      },
    );
    process.stderr.write(`${located.trim()}\n`);
    throw new Error("the README's TypeScript snippets do not compile (tsc --strict), above");
  }
  process.stdout.write(`readme: ok (${blocks.length} TypeScript snippets, tsc --strict)\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
