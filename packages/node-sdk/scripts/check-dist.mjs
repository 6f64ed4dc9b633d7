// The package tests check the built package: without a build there is nothing to check.
import { existsSync } from "node:fs";

const missing = ["index.js", "index.cjs", "index.d.ts", "index.d.cts"].filter(
  (file) => !existsSync(new URL(`../dist/${file}`, import.meta.url)),
);
if (missing.length > 0) {
  process.stderr.write(
    `@loyalty/node-sdk: dist/ lacks ${missing.join(", ")}. ` +
      "The tests check the built package: run `pnpm build` first " +
      "(`pnpm --filter @loyalty/node-sdk build` from the repository root).\n",
  );
  process.exit(1);
}
