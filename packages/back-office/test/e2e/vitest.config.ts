import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * The end-to-end walk: in Node, Playwright drives Debian's Chromium on the back-office as the
 * real API server serves it (same origin as the API, under its CSP), not on Vite's page.
 * Run after the component tests: `vitest run --config test/e2e/vitest.config.ts`.
 */
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: {
    // The SDK and the contracts from source, as the server runs.
    conditions: ["@loyalty/source", ...defaultServerConditions],
  },
  ssr: { resolve: { conditions: ["@loyalty/source", ...defaultServerConditions] } },
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    globalSetup: ["test/e2e/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
