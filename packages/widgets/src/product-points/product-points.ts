import { html, nothing } from "lit";
import type { ProductPointsWidgetResponse } from "@loyalty/shared-types";
import { calculatePoints, widgetConfig, type Endpoint } from "../core/api.js";
import { define, LoyaltyElement } from "../core/element.js";
import { ICONS } from "../core/icons.js";
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
  private timer: ReturnType<typeof setTimeout> | undefined;

  protected override reload(): void {
    clearTimeout(this.timer);
    // The first answer comes at once; later changes wait for the picker to settle, showing the
    // previous points meanwhile.
    if (!this.data) super.reload();
    else this.timer = setTimeout(() => super.reload(), DEBOUNCE_MS);
  }

  protected override async load(endpoint: Endpoint) {
    const price = Number(this.price);
    if (!(price > 0)) throw new Error("price must be a positive number");
    const [response, { points }] = await Promise.all([
      widgetConfig(endpoint, "product-points"),
      calculatePoints(endpoint, { product: this.product, categories: this.categories, price }),
    ]);
    return () => (this.data = { response, points });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.timer);
  }

  protected override render() {
    const { data, status } = this;
    const language = data?.response.store.language;
    const { t, number } = this.locale(language);
    let content: unknown = nothing;
    let style = "";
    if (status === "loading" && !data) {
      content = html`<span class="skeleton"></span><span class="sr-only">${t("loading")}</span>`;
    } else if (status !== "error" && data) {
      // A failure leaves the reserved line empty: a product page is better without us than
      // with an error message.
      const { config, store } = data.response;
      style =
        colorVar("--_text", config.textColor) +
        colorVar("--_accent", config.accentColor, store.brandingColor);
      if (config.enabled && !(config.hideWhenZero && data.points === 0)) {
        const [before, after] = config.template.split("{points}", 2);
        content = html`${config.showIcon ? ICONS.points : nothing}<span part="label"
            >${before}${
              after === undefined ? nothing : html`<strong>${number(data.points)}</strong>${after}`
            }</span
          >`;
      }
    }
    // A polite live region: a screen reader hears the new points when a variant changes them.
    return html`<span
      class="root"
      part="base"
      role="status"
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
