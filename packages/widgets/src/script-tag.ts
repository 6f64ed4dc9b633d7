/**
 * The one script tag for merchants (`dist/loyalty-widgets.js`, an IIFE exposing
 * `window.LoyaltyWidgets`):
 *
 *   <script src="…/loyalty-widgets.js" data-api-base="https://loyalty.shop.example"
 *     data-domain="https://shop.example" defer></script>
 *
 * `data-api-base` and `data-domain` become every widget's default, so tags need neither.
 */
import { configure } from "./core/element.js";

// currentScript is set only while this script runs. Elements already in the page are upgraded
// by the import below, but render in a later microtask: after these defaults are set.
const { apiBase, domain } = (document.currentScript as HTMLScriptElement | null)?.dataset ?? {};
configure({ apiBase, domain });

export * from "./index.js";
