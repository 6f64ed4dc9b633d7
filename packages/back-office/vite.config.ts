import { defineConfig } from "vite";

/**
 * The back-office as the API server serves it: `dist/index.html` for every `/back-office/*`
 * path, and hashed files under `dist/assets/` (cached for good). The server sends a strict
 * Content-Security-Policy (`script-src 'self'; style-src 'self'`), so nothing may be inlined
 * into index.html; `scripts/check-budget.mjs` reads the manifest to weigh the first load.
 */
export default defineConfig(({ mode }) => ({
  base: "/back-office/",
  resolve: {
    conditions: [
      // The contracts (zod schemas, ADMIN_OPERATIONS) are bundled from source.
      "@loyalty/source",
      "module",
      "browser",
      // From the mode, not from NODE_ENV as Vite's default does: a build run under a test
      // runner (NODE_ENV=test) must still ship Lit's production build, not its dev mode.
      mode === "production" ? "production" : "development",
    ],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    // public/ holds only msw's worker, for the tests: it must not ship.
    copyPublicDir: false,
    target: "es2022",
    // Every browser that runs the app has module preloading: no polyfill in the entry.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // zod and the contracts' schemas (the API client's validation) in one named chunk,
        // loaded with the first screen that calls the API.
        codeSplitting: {
          groups: [
            {
              name: "contracts",
              test: /[\\/](zod|shared-types)[\\/]|[\\/]api[\\/]zod-config\.ts$/,
            },
          ],
        },
      },
    },
  },
  server: {
    // `pnpm dev`: the page at http://localhost:5173/back-office/, the API of a local server.
    proxy: { "/admin": process.env["LOYALTY_API_URL"] ?? "http://localhost:3000" },
  },
}));
