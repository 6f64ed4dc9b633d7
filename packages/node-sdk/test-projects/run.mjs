// Packs the built package as it would be published, installs the tarball into a scratch
// directory (away from the workspace, so nothing resolves that a user would not have), and
// runs the ESM, CommonJS and TypeScript projects against it.
//
//   node test-projects/run.mjs [--node /path/to/another/node ...]
//
// Every --node runs the ESM and CommonJS projects again on that Node binary.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, "..");
const require = createRequire(import.meta.url);

const nodes = [process.execPath];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--node" && args[i + 1]) nodes.push(args[++i]);
  else throw new Error(`unknown argument ${args[i]}; usage: run.mjs [--node <binary>]...`);
}

function run(command, commandArgs, cwd) {
  execFileSync(command, commandArgs, { cwd, stdio: "inherit" });
}

// What the bundles and declarations may import: Node's built-ins, nothing else.
for (const file of ["index.js", "index.cjs", "index.d.ts", "index.d.cts"]) {
  const text = readFileSync(path.join(packageDir, "dist", file), "utf8");
  const imports = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g)]
    .map((match) => match[1])
    .filter((specifier) => !specifier.startsWith("node:") && !specifier.startsWith("."));
  const builtins = new Set(require("node:module").builtinModules);
  const foreign = imports.filter((specifier) => !builtins.has(specifier));
  if (foreign.length > 0) {
    throw new Error(`dist/${file} imports ${foreign.join(", ")}: the SDK must have no dependency`);
  }
}

const scratch = mkdtempSync(path.join(tmpdir(), "loyalty-node-sdk-"));
try {
  const packed = execFileSync("pnpm", ["pack", "--pack-destination", scratch], {
    cwd: packageDir,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1);
  const installed = path.join(scratch, "node_modules/@loyalty/node-sdk");
  mkdirSync(installed, { recursive: true });
  run("tar", ["-xzf", packed, "-C", installed, "--strip-components=1"], scratch);
  // Node's types, as any TypeScript user of a Node SDK has them.
  mkdirSync(path.join(scratch, "node_modules/@types"), { recursive: true });
  symlinkSync(
    path.dirname(require.resolve("@types/node/package.json", { paths: [packageDir] })),
    path.join(scratch, "node_modules/@types/node"),
  );
  for (const project of ["esm", "cjs", "types"]) {
    cpSync(path.join(here, project), path.join(scratch, project), { recursive: true });
  }
  // In the workspace the types project reads the sources (so that editors and ESLint need no
  // build); here it must read the published declarations.
  const tsconfigFile = path.join(scratch, "types/tsconfig.json");
  const tsconfig = JSON.parse(readFileSync(tsconfigFile, "utf8"));
  delete tsconfig.compilerOptions.customConditions;
  writeFileSync(tsconfigFile, JSON.stringify(tsconfig));

  // A value the declarations export must exist at run time, in both formats (a type-only
  // export that a declaration bundler turned into a value would not).
  for (const [declarations, bundle] of [
    ["index.d.ts", "index.js"],
    ["index.d.cts", "index.cjs"],
  ]) {
    const text = readFileSync(path.join(installed, "dist", declarations), "utf8");
    const list = [...text.matchAll(/^export \{([^}]*)\};/gm)].at(-1)?.[1] ?? "";
    const declared = list
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "" && !name.startsWith("type "))
      .sort();
    const file = path.join(installed, "dist", bundle);
    const runtime = Object.keys(bundle.endsWith(".cjs") ? require(file) : await import(file))
      .filter((name) => name !== "default" && name !== "module.exports")
      .sort();
    if (JSON.stringify(declared) !== JSON.stringify(runtime)) {
      throw new Error(
        `dist/${declarations} declares the values ${declared.join(", ")}; ` +
          `dist/${bundle} exports ${runtime.join(", ")}`,
      );
    }
  }

  for (const node of nodes) {
    run(node, ["esm/index.mjs"], scratch);
    run(node, ["cjs/index.cjs"], scratch);
  }
  run(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", "types/tsconfig.json"],
    scratch,
  );
  process.stdout.write("types: ok (ESM and CommonJS declarations)\n");
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
