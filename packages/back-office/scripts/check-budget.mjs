/**
 * The weight of the first load: the entry chunk of index.html and every chunk it imports
 * statically, gzipped, as the browser receives them before anything shows. Screens, the
 * translations and the URLPattern polyfill are dynamic imports: they do not count.
 * Fails above the budget.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const out = (text) => process.stdout.write(`${text}\n`);
const err = (text) => process.stderr.write(`${text}\n`);

const BUDGET_BYTES = 80 * 1024;

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dist, ".vite/manifest.json"), "utf8"));

const entry = Object.keys(manifest).find((key) => manifest[key].isEntry && key.endsWith(".html"));
if (!entry) throw new Error("dist/.vite/manifest.json has no HTML entry");

/** The chunk of `key` and every chunk it imports statically. */
function closure(key, found = new Set()) {
  if (found.has(key)) return found;
  found.add(key);
  for (const imported of manifest[key].imports ?? []) closure(imported, found);
  return found;
}

const gzipped = new Map();
function weight(key) {
  if (!gzipped.has(key)) {
    gzipped.set(key, gzipSync(readFileSync(join(dist, manifest[key].file)), { level: 9 }).length);
  }
  return gzipped.get(key);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const initial = closure(entry);
let total = 0;
const lines = [];
for (const key of initial) {
  total += weight(key);
  lines.push(`  ${kb(weight(key)).padStart(8)}  ${manifest[key].file}`);
}
out(`Initial JavaScript (gzip): ${kb(total)} of ${kb(BUDGET_BYTES)}\n${lines.join("\n")}`);

// For information: what each lazy screen adds to the initial load when first shown.
const screens = Object.keys(manifest).filter(
  (key) => manifest[key].isDynamicEntry && /src\/(screens|app)\//.test(key),
);
out("Added by the first visit of (gzip):");
for (const key of screens.sort()) {
  let added = 0;
  for (const chunk of closure(key)) if (!initial.has(chunk)) added += weight(chunk);
  out(`  ${kb(added).padStart(8)}  ${key}`);
}
if (total > BUDGET_BYTES) {
  err(`Over budget by ${kb(total - BUDGET_BYTES)}: load more of it lazily.`);
  process.exit(1);
}
