// Prints the gzip size of the ESM bundle and fails above the budget.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const BUDGET = 10 * 1024;
const file = new URL("../dist/index.js", import.meta.url);
const size = gzipSync(readFileSync(file), { level: 9 }).length;
const report = `dist/index.js: ${(size / 1024).toFixed(2)} KB gzip (budget ${BUDGET / 1024} KB)`;
if (size > BUDGET) {
  process.stderr.write(`${report}: over budget\n`);
  process.exit(1);
}
process.stdout.write(`${report}\n`);
