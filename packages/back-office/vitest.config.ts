import { playwright } from "@vitest/browser-playwright";
import { defaultClientConditions } from "vite";
import { configDefaults, defineConfig } from "vitest/config";
import { commands } from "./test/support/commands.js";

/**
 * Every test runs in a real Chromium (Debian's, driven by Playwright). The API is mocked by
 * msw's service worker (public/mockServiceWorker.js): see test/support/api-mock.ts.
 */
export default defineConfig({
  resolve: {
    // The app and the fixtures use the contracts' schemas, from source.
    conditions: ["@loyalty/source", ...defaultClientConditions],
  },
  optimizeDeps: {
    // Bundled before the first test: a dependency Vite found mid-run reloads the page (and
    // fails the test). The widgets (a linked package) then share the app's one copy of Lit.
    include: [
      "lit/directives/keyed.js",
      "lit/directives/live.js",
      "@loyalty/widgets",
      "@loyalty/widgets/cart-widget",
      "@loyalty/widgets/product-points",
      "@loyalty/widgets/program-presentation",
      // Imported on demand (src/main.ts, where a browser lacks URLPattern; the overview's
      // chart): found mid-run, they reloaded the page under a running test (CI, 2026-11-28).
      "urlpattern-polyfill",
      "chart.js",
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // The end-to-end walk runs in Node against the real server: test/e2e/vitest.config.ts.
    exclude: [...configDefaults.exclude, "test/e2e/**"],
    testTimeout: 15_000,
    hookTimeout: 30_000,
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        // The copy button writes to the clipboard; the tests read it back.
        contextOptions: { permissions: ["clipboard-read", "clipboard-write"] },
        launchOptions: {
          executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
          ],
        },
      }),
      instances: [{ browser: "chromium" }],
      commands,
    },
  },
});
