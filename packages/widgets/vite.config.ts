import { fileURLToPath } from "node:url";
import { defaultClientConditions, defineConfig } from "vite";

const src = (path: string) => fileURLToPath(new URL(`src/${path}`, import.meta.url));

/**
 * Two builds. `vite build` (mode "production"): the ES modules for bundler users, one entry per
 * widget, with Lit left to their bundler. `vite build --mode script`: the one script tag for
 * merchants, everything inside, `dist/loyalty-widgets.js`.
 */
export default defineConfig(({ mode }) => ({
  // The demo page (index.html, `pnpm dev`) parses its mock data with the contracts' schemas,
  // from source.
  resolve: { conditions: ["@loyalty/source", ...defaultClientConditions] },
  build: {
    copyPublicDir: false,
    emptyOutDir: mode !== "script",
    target: "es2021",
    lib:
      mode === "script"
        ? {
            entry: src("script-tag.ts"),
            formats: ["iife"],
            name: "LoyaltyWidgets",
            fileName: () => "loyalty-widgets.js",
          }
        : {
            entry: {
              index: src("index.ts"),
              "product-points": src("product-points/product-points.ts"),
              "cart-widget": src("cart-widget/cart-widget.ts"),
              "program-presentation": src("program-presentation/program-presentation.ts"),
              launcher: src("launcher/launcher.ts"),
            },
            formats: ["es"],
          },
    rolldownOptions: mode === "script" ? {} : { external: [/^lit($|\/)/, /^@lit\//] },
  },
}));
