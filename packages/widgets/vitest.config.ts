import { playwright } from "@vitest/browser-playwright";
import { defaultClientConditions } from "vite";
import { defineConfig } from "vitest/config";
import { e2eCommands } from "./test/e2e/commands.js";

/**
 * Every test runs in a real Chromium (Debian's, driven by Playwright). The API is mocked by msw's
 * service worker (public/mockServiceWorker.js), except in test/e2e, which talks to a real
 * server started by the global setup, from another origin than the page's.
 */
export default defineConfig({
  resolve: {
    // The tests parse their fixtures with the contracts' schemas, from source.
    conditions: ["@loyalty/source", ...defaultClientConditions],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/e2e/global-setup.ts"],
    testTimeout: 15_000,
    hookTimeout: 60_000,
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        // The copy button writes the code to the clipboard; the tests read it back.
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
      commands: e2eCommands,
    },
  },
});
