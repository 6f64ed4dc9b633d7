import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@loyalty/shared-types": fileURLToPath(
        new URL("../shared-types/src/index.ts", import.meta.url),
      ),
      "@loyalty/node-sdk": fileURLToPath(new URL("../node-sdk/src/index.ts", import.meta.url)),
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Each file gets its own database, so files run in parallel safely.
    pool: "forks",
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
