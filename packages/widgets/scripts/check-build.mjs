// Checks the build: the script tag's weight against the budget, and a custom-elements manifest
// that documents each widget. Prints the sizes; exits 1 when a check fails.
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";

/**
 * Merchants load this on every page: Smile.io's script is ~105 KB, LoyaltyLion's ~113 KB. The
 * four elements, the launcher included, fit in 25 KB (issue 14's budget).
 */
const BUDGET_GZIP = 25 * 1024;
const TAGS = [
  "loyalty-product-points",
  "loyalty-cart-widget",
  "loyalty-program-presentation",
  "loyalty-launcher",
];

const dist = new URL("../dist/", import.meta.url);
const failures = [];
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;

const rows = readdirSync(dist)
  .filter((name) => name.endsWith(".js"))
  .map((name) => {
    const code = readFileSync(new URL(name, dist));
    return { name, raw: code.length, gzip: gzipSync(code, { level: 9 }).length };
  });
for (const { name, raw, gzip } of rows) {
  process.stdout.write(
    `${name.padEnd(34)} ${kb(raw).padStart(10)} ${kb(gzip).padStart(10)} gzip\n`,
  );
}
const script = rows.find((row) => row.name === "loyalty-widgets.js");
if (!script) failures.push("dist/loyalty-widgets.js is missing: run `vite build --mode script`");
else if (script.gzip > BUDGET_GZIP) {
  failures.push(
    `the script tag weighs ${kb(script.gzip)} gzip, over its ${kb(BUDGET_GZIP)} budget`,
  );
} else {
  process.stdout.write(`script tag: ${kb(script.gzip)} gzip of a ${kb(BUDGET_GZIP)} budget\n`);
}

const manifest = JSON.parse(readFileSync(new URL("custom-elements.json", dist), "utf8"));
const declarations = manifest.modules.flatMap((module) => module.declarations ?? []);
for (const tag of TAGS) {
  const element = declarations.find((declaration) => declaration.tagName === tag);
  if (!element) {
    failures.push(`custom-elements.json does not declare <${tag}>`);
    continue;
  }
  const missing = ["summary", "attributes", "cssParts", "cssProperties"].filter(
    (field) => !element[field] || element[field].length === 0,
  );
  const names = (element.attributes ?? []).map((attribute) => attribute.name);
  for (const attribute of ["domain", "api-base", "customer-id", "customer-hash"]) {
    if (!names.includes(attribute)) missing.push(`attribute ${attribute}`);
  }
  if (missing.length) failures.push(`<${tag}> lacks in the manifest: ${missing.join(", ")}`);
}

if (failures.length) {
  for (const failure of failures) process.stderr.write(`✗ ${failure}\n`);
  process.exit(1);
}
