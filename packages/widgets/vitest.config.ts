import { playwright } from "@vitest/browser-playwright";
import { defaultClientConditions } from "vite";
import { defineConfig } from "vitest/config";
import { e2eCommands } from "./test/e2e/commands.js";

/**
 * Every test runs in a real Chromium (Debian's, driven by Playwright), in one of two projects.
 * `unit`: the API is mocked by msw's service worker (public/mockServiceWorker.js). `e2e`: the
 * page talks to a real server, from another origin than the page's; the project's global setup
 * starts it, so a run of the unit tests alone (`vitest run --project unit`) starts none.
 */
export default defineConfig({
  resolve: {
    // The tests parse their fixtures with the contracts' schemas, from source.
    conditions: ["@loyalty/source", ...defaultClientConditions],
  },
  test: {
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
    },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/e2e/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          browser: { commands: e2eCommands },
        },
      },
    ],
  },
});
