import { msg, str } from "@lit/localize";
import type { AdminStore, WidgetKind } from "@loyalty/shared-types";
import "@loyalty/widgets/cart-widget";
import "@loyalty/widgets/product-points";
import "@loyalty/widgets/program-presentation";
import "@loyalty/widgets/launcher";
import { css, html, nothing, type TemplateResult } from "lit";
import { storePath } from "../../app/navigation.js";
import { formatCurrency, formatNumber } from "../../ui/format.js";
import type { Draft } from "./draft.js";

/*
 * The live preview: the storefront's own elements (@loyalty/widgets, loaded with this screen
 * only), fed the draft through their `previewConfig` property. They read the store and the
 * sample's points from the public API of this same server, as a storefront would. Their `lang`
 * is the language whose texts the merchant edits: the store's own language included, or a
 * back-office in French would show the French texts beside the default ones being edited.
 */

/** A product page's sample: one product at this price. */
export const SAMPLE_PRICE = 49.9;

/** A cart's sample: two lines, as a theme writes them. */
export const SAMPLE_CART = [
  { price: 49.9, quantity: 1 },
  { price: 12.5, quantity: 2 },
];

/** What the preview shows, in words: the sample data it uses. */
function caption(kind: WidgetKind, store: AdminStore): string {
  const money = (amount: number) => formatCurrency(amount, store.currency);
  switch (kind) {
    case "product-points":
      return msg(str`A product at ${money(SAMPLE_PRICE)}.`);
    case "cart": {
      const [first, second] = SAMPLE_CART as [
        (typeof SAMPLE_CART)[number],
        (typeof SAMPLE_CART)[number],
      ];
      return msg(
        str`A visitor's cart of two lines: ${money(first.price)} × ${formatNumber(first.quantity)} and ${money(second.price)} × ${formatNumber(second.quantity)}.`,
      );
    }
    case "program-presentation":
      return msg("The programme page, as a visitor sees it.");
    case "launcher":
      return msg("The launcher's button and its panel, as a visitor sees them.");
  }
}

/** The widget element itself, for the draft, in `lang`. */
function element(kind: WidgetKind, store: AdminStore, draft: Draft, lang: string): TemplateResult {
  const apiBase = location.origin;
  switch (kind) {
    case "product-points":
      return html`<loyalty-product-points
        lang=${lang}
        api-base=${apiBase}
        domain=${store.domain}
        price=${SAMPLE_PRICE}
        .previewConfig=${draft}
      ></loyalty-product-points>`;
    case "cart":
      return html`<loyalty-cart-widget
        lang=${lang}
        api-base=${apiBase}
        domain=${store.domain}
        .items=${SAMPLE_CART}
        .previewConfig=${draft}
      ></loyalty-cart-widget>`;
    case "program-presentation":
      return html`<loyalty-program-presentation
        lang=${lang}
        api-base=${apiBase}
        domain=${store.domain}
        .previewConfig=${draft}
      ></loyalty-program-presentation>`;
    case "launcher":
      return html`<loyalty-launcher
        lang=${lang}
        api-base=${apiBase}
        domain=${store.domain}
        .previewConfig=${draft}
      ></loyalty-launcher>`;
  }
}

/**
 * The preview of `draft` for a widget of `kind`, in `language` (the store's when undefined): a
 * caption saying what it shows, then the widget. Links inside do not leave the back-office: a
 * click on them does nothing. `samplePoints`: what the product-points sample earns, once known;
 * the widget hidden for earning nothing says why under it.
 */
export function widgetPreview(
  kind: WidgetKind,
  store: AdminStore,
  draft: Draft,
  {
    samplePoints,
    language,
  }: { samplePoints?: number | undefined; language?: string | undefined } = {},
): TemplateResult {
  const off =
    (kind === "cart" || kind === "product-points" || kind === "launcher") &&
    draft["enabled"] === false;
  const hiddenAtZero =
    kind === "product-points" && !off && draft["hideWhenZero"] === true && samplePoints === 0;
  return html`<p class="preview__caption">${caption(kind, store)}</p>
    ${
      off
        ? html`<p class="alert alert--info preview__off">
            ${msg("The widget is turned off: the storefront shows nothing.")}
          </p>`
        : nothing
    }
    <div
      class="preview__frame preview__frame--${kind}"
      @click=${(event: Event) => {
        if (event.composedPath().some((node) => node instanceof HTMLAnchorElement)) {
          event.preventDefault();
        }
      }}
    >
      ${element(kind, store, draft, language ?? store.language)}
    </div>
    ${
      hiddenAtZero
        ? html`<p class="alert alert--info preview__note">
            ${msg(
              str`Your rules give this product no points, so the widget hides itself, as “Hide it when the product earns no points” asks.`,
            )}
            <a href=${storePath(store.id, "programme")}>${msg("Set the earning rules")}</a>
          </p>`
        : nothing
    }`;
}

export const previewStyles = css`
  .preview__caption {
    color: var(--bo-muted);
  }
  .preview__frame {
    padding: var(--bo-space);
    border: 1px dashed var(--bo-control-border);
    border-radius: var(--bo-radius);
    background: var(--bo-surface);
    color: #1f2328;
    overflow-x: auto;
  }
  .preview__note {
    margin-block: 0.75rem 0;
  }
  .preview__frame--product-points {
    min-block-size: 4rem;
  }
  .preview__frame--cart {
    min-block-size: 12rem;
  }
  .preview__frame--program-presentation {
    min-block-size: 24rem;
    padding: 0;
  }
  loyalty-program-presentation {
    display: block;
  }
`;
