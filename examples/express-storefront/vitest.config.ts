import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The demo's processes start once for the file (an embedded PostgreSQL's first start
    // included), and the steps follow one shopper through the store.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
