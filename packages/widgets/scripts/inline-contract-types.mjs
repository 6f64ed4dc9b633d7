// Runs after `tsc -p tsconfig.build.json`. The widgets' sources name types of
// @loyalty/shared-types (`Reward`, the widget configurations): zod inferences, whose declarations
// need shared-types and zod, which the widgets' users must not install for types alone (their
// code imports nothing from it). So this prints those types as plain declarations into
// `dist/types/contracts.d.ts`, points every declaration file at it instead of the package, and
// checks that the declarations import nothing but their own files and the package's
// dependencies, and that they compile on their own.
import { readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { virtualProgram } from "../../../scripts/virtual-program.mjs";

const CONTRACTS = "@loyalty/shared-types";
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const typesDir = path.join(packageDir, "dist/types");
const contractsFile = path.join(typesDir, "contracts.d.ts");
const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));

const fail = (message) => {
  process.stderr.write(`✗ ${message}\n`);
  process.exit(1);
};

const declarationFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? declarationFiles(path.join(dir, entry.name))
      : entry.name.endsWith(".d.ts")
        ? [path.join(dir, entry.name)]
        : [],
  );

/** `from "x"`, `import("x")` and `/// <reference types="x" />` specifiers of a declaration file. */
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|<reference\s+types=)(["'])([^"']+)\1/g;
const specifiersOf = (text) => [...text.matchAll(SPECIFIERS)].map((match) => match[2]);

const files = declarationFiles(typesDir).filter((file) => file !== contractsFile);
const names = new Set();
for (const file of files) {
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(
    /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']@loyalty\/shared-types["']/g,
  )) {
    for (const part of match[1].split(",")) {
      const name = part.replace(/^\s*type\s+/, "").trim();
      if (name === "") continue;
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) fail(`${file}: cannot inline \`${part.trim()}\``);
      names.add(name);
    }
  }
  const other = text.match(
    /import\s*\(\s*["']@loyalty\/shared-types["']|import\s+\*\s+as[^;]+shared-types/,
  );
  if (other) fail(`${path.relative(packageDir, file)}: \`${other[0]}\` cannot be inlined`);
}

// --- the types, printed from shared-types' sources, their fields' doc comments included -----

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function docComment(text, indent = "") {
  const lines = text.trim().split("\n");
  return lines.length === 1
    ? `${indent}/** ${lines[0]} */\n`
    : `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

function printTypes(wanted) {
  const sources = path.join(realpathSync(path.join(packageDir, "node_modules", CONTRACTS)), "src");
  // Among shared-types' sources, so that `zod` resolves as it does for them.
  const virtualFile = path.join(sources, "__widgets_contracts__.ts");
  const source = [
    `import type * as C from "./index.js";`,
    ...wanted.map((name) => `export type ${name} = C.${name};`),
  ].join("\n");
  const options = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  let compiled;
  try {
    compiled = virtualProgram(ts, { file: virtualFile, source, options });
  } catch (error) {
    fail(error.message);
  }
  const { checker, sourceFile } = compiled;
  const aliases = sourceFile.statements
    .filter(ts.isTypeAliasDeclaration)
    .map((alias) => ({ name: alias.name.text, type: checker.getTypeAtLocation(alias.name) }));

  // A nested type identical to an inlined one is written by its name (`Reward[]`).
  const named = new Map();
  for (const { name, type } of aliases) {
    if (type.flags & ts.TypeFlags.Object && !named.has(type)) named.set(type, name);
  }
  const isNullish = (type) => (type.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) !== 0;

  const print = (type, indent, top = false) => {
    if (!top && named.has(type)) return named.get(type);
    if (type.isUnion()) {
      const members = type.types;
      const booleans = members.filter((m) => m.flags & ts.TypeFlags.BooleanLiteral);
      const others = members.filter((m) => !(m.flags & ts.TypeFlags.BooleanLiteral));
      const parts =
        booleans.length === 2 ? ["boolean"] : booleans.map((m) => checker.typeToString(m));
      parts.push(...others.filter((m) => !isNullish(m)).map((m) => print(m, indent)));
      parts.push(...others.filter(isNullish).map((m) => checker.typeToString(m)));
      return parts.join(" | ");
    }
    if (type.isIntersection()) return type.types.map((m) => print(m, indent)).join(" & ");
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type)[0];
      const printed = print(element, indent);
      return element.isUnion() && !named.has(element) ? `(${printed})[]` : `${printed}[]`;
    }
    if (type.flags & ts.TypeFlags.Object && !checker.isTupleType(type)) {
      const inner = `${indent}  `;
      const members = checker
        .getIndexInfosOfType(type)
        .map(
          (info) =>
            `${inner}[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, inner)};`,
        );
      for (const property of checker.getPropertiesOfType(type)) {
        const doc = ts.displayPartsToString(property.getDocumentationComment(checker));
        const optional = property.flags & ts.SymbolFlags.Optional ? "?" : "";
        const key = IDENTIFIER.test(property.name) ? property.name : JSON.stringify(property.name);
        const value = print(checker.getTypeOfSymbol(property), inner);
        members.push(`${doc ? docComment(doc, inner) : ""}${inner}${key}${optional}: ${value};`);
      }
      return members.length === 0 ? "{}" : `{\n${members.join("\n")}\n${indent}}`;
    }
    return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
  };

  return aliases
    .map(({ name, type }) => `export type ${name} = ${print(type, "", true)};`)
    .join("\n\n");
}

if (names.size > 0) {
  const printed = printTypes([...names].sort());
  // What a plain declaration may not hold: a reference back to zod or to the contracts.
  const leaked = printed.match(/\bz\.|\$Zod|\$Infer|zod|shared-types/);
  if (leaked) fail(`an inlined type still names \`${leaked[0]}\`:\n${printed}`);
  writeFileSync(
    contractsFile,
    `// The types of ${CONTRACTS} that the widgets' declarations name, printed by\n` +
      `// scripts/inline-contract-types.mjs at build time.\n\n${printed}\n`,
  );
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    let relative = path.relative(path.dirname(file), contractsFile).replace(/\.d\.ts$/, ".js");
    if (!relative.startsWith(".")) relative = `./${relative}`;
    const rewritten = text.replace(/(["'])@loyalty\/shared-types\1/g, `"${relative}"`);
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

// --- the proof: nothing to install beyond the dependencies, and it compiles alone -------------

const allowed = new Set([
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
]);
const packageOf = (specifier) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
const strays = [];
for (const file of declarationFiles(typesDir)) {
  for (const specifier of specifiersOf(readFileSync(file, "utf8"))) {
    if (specifier.startsWith(".") || allowed.has(packageOf(specifier))) continue;
    strays.push(`${path.relative(packageDir, file)} imports ${specifier}`);
  }
}
if (strays.length > 0) {
  fail(`the declarations import what the package does not depend on:\n  ${strays.join("\n  ")}`);
}

const entries = declarationFiles(typesDir);
const program = ts.createProgram(entries, {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: [],
});
const diagnostics = ts
  .getPreEmitDiagnostics(program)
  .filter((d) => d.file?.fileName.startsWith(typesDir) ?? true);
if (diagnostics.length > 0) {
  fail(
    `the declarations do not compile:\n${ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => packageDir,
      getNewLine: () => "\n",
    })}`,
  );
}
const inlined =
  names.size > 0
    ? `${names.size} contract types inlined (${[...names].sort().join(", ")})`
    : "no contract type to inline";
process.stdout.write(
  `declarations: ${inlined}; they import only ${[...allowed].join(", ")} and compile on their own\n`,
);
