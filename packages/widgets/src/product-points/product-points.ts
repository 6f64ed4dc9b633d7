import { html, nothing } from "lit";
import type { ProductPointsWidgetResponse } from "@loyalty/shared-types";
import { calculatePoints, widgetConfig, type Endpoint } from "../core/api.js";
import { define, LoyaltyElement } from "../core/element.js";
import { ICONS } from "../core/icons.js";
import { loading, withPoints } from "../core/templates.js";
import { base, colorVar } from "../core/styles.js";
import { styles } from "./product-points.styles.js";

/** How long attribute changes settle before the points are asked again (a variant picker). */
const DEBOUNCE_MS = 250;

/**
 * The points a product earns, on a product page. Change `price` (a variant was picked) and it
 * asks again, once the changes settle.
 *
 * @summary The points a product earns, from the store's attribution rules.
 * @tag loyalty-product-points
 *
 * @csspart base - The line: icon and text.
 * @csspart icon - The points icon (when the configuration shows it).
 * @csspart label - The text, from the configuration's template.
 *
 * @cssprop --loyalty-accent-color - Icon and number colour (default: the configuration's accent colour, then the store's branding colour).
 * @cssprop --loyalty-text-color - Text colour (default: the configuration's, then inherited).
 * @cssprop --loyalty-font-family - Font (default: inherited).
 * @cssprop --loyalty-product-points-min-height - Space reserved while loading (default: 1.5em).
 * @cssprop --loyalty-skeleton-color - The loading placeholder's colour.
 */
export class LoyaltyProductPoints extends LoyaltyElement {
  static override styles = [base, styles];
  static override properties = {
    ...LoyaltyElement.properties,
    product: {},
    categories: {},
    price: { type: Number },
  };

  /** The product's id in the store. */
  declare product: string | undefined;
  /** The product's category ids, comma-separated (`10,12`). */
  declare categories: string | undefined;
  /** The unit price the customer pays, in the store's currency. */
  declare price: number | undefined;

  protected override get reloadOn(): PropertyKey[] {
    return [...super.reloadOn, "product", "categories", "price"];
  }
  private data: { response: ProductPointsWidgetResponse; points: number } | undefined;
  // Later changes wait for the picker to settle, the previous points shown meanwhile.
  protected override debounceMs = DEBOUNCE_MS;

  protected override async load(endpoint: Endpoint) {
    const price = Number(this.price);
    if (!(price > 0)) throw new Error("price must be a positive number");
    const [response, { points }] = await Promise.all([
      widgetConfig(endpoint, "product-points"),
      calculatePoints(endpoint, { product: this.product, categories: this.categories, price }),
    ]);
    return () => (this.data = { response, points });
  }

  protected override render() {
    const { data, status } = this;
    const locale = this.locale(data?.response);
    let content: unknown = nothing;
    let style = "";
    if (status === "loading" && !data) {
      content = loading(locale);
    } else if (status !== "error" && data) {
      // A failure leaves the reserved line empty: a product page is better without us than
      // with an error message.
      const { config, store } = this.withDraft(data.response);
      style =
        colorVar("--_text", config.textColor) +
        colorVar("--_accent", config.accentColor, store.brandingColor);
      if (config.enabled && !(config.hideWhenZero && data.points === 0)) {
        content = html`${config.showIcon ? ICONS.points : nothing}<span part="label"
            >${withPoints(config.template, data.points, locale)}</span
          >`;
      }
    }
    // A polite live region once the first points are shown: a screen reader hears the new points
    // when a variant changes them, not every product card of a listing page as it loads.
    return html`<span
      class="root"
      part="base"
      lang=${locale.lang}
      role=${data ? "status" : nothing}
      aria-busy=${status === "loading"}
      .style=${style}
      >${content}</span
    >`;
  }
}

define("loyalty-product-points", LoyaltyProductPoints);

declare global {
  interface HTMLElementTagNameMap {
    "loyalty-product-points": LoyaltyProductPoints;
  }
}
