import { html, nothing } from "lit";
import type { CartWidgetResponse, Reward } from "@loyalty/shared-types";
import {
  ApiError,
  calculatePoints,
  customerHistory,
  rewardList,
  widgetConfig,
  type Customer,
  type Endpoint,
} from "../core/api.js";
import type { RewardClaimedDetail } from "../core/claim-event.js";
import { define, LoyaltyElement } from "../core/element.js";
import { RewardsController } from "../core/rewards.js";
import { base, colorVar, rewardsStyles } from "../core/styles.js";
import { loading, signInLink, withPoints } from "../core/templates.js";
import { styles } from "./cart-widget.styles.js";

/** How long `items` changes settle before the points are asked again (a quantity stepper). */
const DEBOUNCE_MS = 250;

/** A cart line as the theme writes it. */
export interface CartLine {
  /** The product's id in the store. */
  product?: string | number;
  /** The product's category ids. */
  categories?: (string | number)[];
  /** The unit price the customer pays, in the store's currency. */
  price: number;
  quantity: number;
}

const ID = /^\d{1,16}$/;

/** The API asks a price of at least 1; a line it could not price counts for nothing. */
function usable(line: unknown): line is CartLine {
  const { product, categories = [], price, quantity } = (line ?? {}) as Partial<CartLine>;
  return (
    Number(price) >= 1 &&
    Number(price) <= 1e9 &&
    Number(quantity) > 0 &&
    (product === undefined || ID.test(String(product))) &&
    Array.isArray(categories) &&
    categories.every((category) => ID.test(String(category)))
  );
}

/**
 * The box as it is once loaded, in grey, under the title's bar: the points line and the sign-in
 * invitation for a visitor; for a customer the points and balance lines and one affordable
 * reward (a customer may have none, or several: one is the middle ground).
 */
const line = html`<p class="placeholder"><span class="skeleton"></span></p>`;
const VISITOR_SKELETON = html`<div class="placeholder" aria-hidden="true">
  ${line}
  <p class="placeholder message">
    <span class="skeleton"></span><span class="skeleton button-shape"></span>
  </p>
</div>`;
const CUSTOMER_SKELETON = html`<div class="placeholder" aria-hidden="true">
  ${line}${line}${line}
  <ul class="rewards">
    <li class="reward">
      <div class="reward-text">${line}${line}${line}</div>
      <span class="skeleton button-shape"></span>
    </li>
  </ul>
</div>`;

interface Data {
  endpoint: Endpoint;
  customer: Customer | undefined;
  response: CartWidgetResponse;
  /** Undefined for an empty cart. */
  points: number | undefined;
  /** The identified customer's balance and rewards; "expired" when their hash is stale. */
  account: { balance: number; available: number; rewards: Reward[] } | "expired" | undefined;
}

/**
 * The cart's loyalty box: the points the cart earns and, for an identified customer, their
 * balance and the rewards they can claim now; visitors are invited to sign in.
 *
 * The points shown are a lower bound of what the order earns: each line is unit points × quantity,
 * while the server floors each line's total and applies the customer's club multiplier.
 *
 * `items` is a JSON array of lines, `[{"product":"1001","categories":[10,12],"price":19.9,"quantity":2}]`
 * (the property takes the array). Malformed JSON reads as an empty cart, and a line without a
 * price of at least 1 and a positive quantity, or with a non-numeric product or category id, is
 * left out: the page never breaks, and the figure stays a lower bound.
 *
 * @summary The points a cart earns, the customer's balance and the rewards they can claim.
 * @tag loyalty-cart-widget
 *
 * @event loyalty-reward-claimed - A reward was claimed. `detail`: `{ rewardId, code, pointsSpent, balance, expiresAt, domain, customerId }`.
 *
 * @csspart base - The box.
 * @csspart title - The heading, from the configuration.
 * @csspart earn - The points the cart earns.
 * @csspart balance - The customer's balance.
 * @csspart message - A sign-in invitation, or a claim's refusal.
 * @csspart sign-in - The sign-in link.
 * @csspart rewards-title - The heading of the rewards list.
 * @csspart rewards - The list of rewards the customer can claim.
 * @csspart reward - One reward.
 * @csspart reward-name - A reward's name.
 * @csspart reward-cost - A reward's cost in points.
 * @csspart claim-button - A reward's claim button.
 * @csspart conditions - A reward's conditions: minimum order, how long its code lasts.
 * @csspart confirm - The question asked before a claim spends points, with its buttons.
 * @csspart confirm-button - The button that confirms a claim.
 * @csspart cancel-button - The button that cancels a claim.
 * @csspart code - A claimed reward's code, with its copy button.
 * @csspart copy-button - The button that copies a code.
 * @csspart code-conditions - A claimed code's end date and minimum order.
 *
 * @cssprop --loyalty-accent-color - Buttons and numbers (default: the configuration's accent colour, then the store's branding colour).
 * @cssprop --loyalty-accent-text-color - Text on buttons (default: white).
 * @cssprop --loyalty-text-color - Text colour (default: inherited).
 * @cssprop --loyalty-font-family - Font (default: inherited).
 * @cssprop --loyalty-surface-color - Background of the box (default: white).
 * @cssprop --loyalty-border-color - Borders (default: translucent black).
 * @cssprop --loyalty-radius - Corner radius (default: 8px).
 * @cssprop --loyalty-spacing - Spacing (default: 1rem).
 * @cssprop --loyalty-cart-widget-min-height - Space reserved while loading or failed (default: 6em).
 * @cssprop --loyalty-skeleton-color - The loading placeholder's colour.
 */
export class LoyaltyCartWidget extends LoyaltyElement {
  static override styles = [base, rewardsStyles, styles];
  static override properties = {
    ...LoyaltyElement.properties,
    items: {
      converter: (value: string | null): unknown => {
        try {
          return JSON.parse(value ?? "");
        } catch {
          return undefined;
        }
      },
    },
  };

  /** The cart's lines; as an attribute, a JSON array. */
  declare items: CartLine[] | undefined;

  protected override get reloadOn(): PropertyKey[] {
    return [...super.reloadOn, "items"];
  }
  private data: Data | undefined;
  // Later changes wait for the cart to settle, the previous figures shown meanwhile.
  protected override debounceMs = DEBOUNCE_MS;
  private readonly rewards = new RewardsController(this);

  /** A claim here or in another widget of the page: the balance it left. */
  protected override claimed({ balance, pointsSpent }: RewardClaimedDetail): void {
    const account = this.data?.account;
    if (typeof account === "object") {
      account.balance = balance;
      account.available -= pointsSpent;
    }
    this.requestUpdate();
  }

  protected override async load(endpoint: Endpoint) {
    const { customer, items } = this;
    const lines = Array.isArray(items) ? items.filter(usable) : [];
    const config = widgetConfig(endpoint, "cart");
    // Every line joins the page's one request for products' points, identical lines once.
    const points = Promise.all(
      lines.map(async ({ product, categories = [], price, quantity }) => {
        const unit = await calculatePoints(endpoint, {
          product: product === undefined ? undefined : String(product),
          categories: categories.length ? categories.join(",") : undefined,
          price: Number(price),
        });
        return Math.floor(unit.points * Number(quantity));
      }),
    );
    const account = config.then(async ({ config: { showBalance, showRewards } }) => {
      if (!customer || !this.loads(showBalance || showRewards)) return undefined;
      try {
        const [{ balance, availablePoints }, rewards] = await Promise.all([
          customerHistory(endpoint, customer),
          this.loads(showRewards) ? rewardList(endpoint) : [],
        ]);
        return { balance, available: availablePoints, rewards };
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return "expired" as const;
        throw error;
      }
    });
    const [response, perLine, found] = await Promise.all([config, points, account]);
    return () => {
      this.data = {
        endpoint,
        customer,
        response,
        points: lines.length ? perLine.reduce((sum, line) => sum + line, 0) : undefined,
        account: found,
      };
    };
  }

  protected override render() {
    const { data, status } = this;
    const locale = this.locale(data?.response);
    const { t } = locale;
    if (data && !this.withDraft(data.response).config.enabled) return nothing;
    let content: unknown;
    let style = "";
    if (status === "error" || !data) {
      // Failed keeps the loading box's size, its message over the hidden skeleton: the cart
      // page does not move when either ends.
      const skeleton = this.customer ? CUSTOMER_SKELETON : VISITOR_SKELETON;
      content =
        status === "error"
          ? html`<span class="skeleton"></span>${skeleton}
              <p class="failure">${t("unavailable")}</p>`
          : html`${loading(locale)}${skeleton}`;
    } else {
      const { config, store } = this.withDraft(data.response);
      const { account, customer } = data;
      style = colorVar("--_accent", config.accentColor, store.brandingColor);
      const signIn = signInLink(config.loginUrl, locale, "button secondary");
      const balance = typeof account === "object" ? account.balance : undefined;
      const affordable =
        typeof account === "object" && config.showRewards
          ? account.rewards.filter(
              (reward) =>
                reward.triggerValue <= account.available || this.rewards.claimed(reward.id),
            )
          : [];
      content = html`<h2 part="title">${config.title}</h2>
        <div role="status">
          ${
            data.points === undefined
              ? nothing
              : html`<p part="earn">${withPoints(config.earnTemplate, data.points, locale)}</p>`
          }
          ${
            balance !== undefined && config.showBalance
              ? html`<p part="balance">${withPoints(config.balanceTemplate, balance, locale)}</p>`
              : nothing
          }
        </div>
        ${
          // A preview reads the account whatever its draft shows: the draft says whether it is.
          account === "expired" && (config.showBalance || config.showRewards)
            ? html`<p part="message">${t("signInAgain")} ${signIn}</p>`
            : !customer && (config.signedOutText || config.loginUrl)
              ? html`<p part="message">${config.signedOutText} ${signIn}</p>`
              : nothing
        }
        ${
          affordable.length
            ? html`<h3 part="rewards-title">${t("affordable")}</h3>
                ${this.rewards.render(
                  {
                    endpoint: data.endpoint,
                    customer,
                    locale,
                    // What the customer can spend: pending points cannot be.
                    balance: typeof account === "object" ? account.available : undefined,
                    currency: store.currency,
                    claimButtonText: config.claimButtonText,
                    confirmClaims: config.confirmClaims,
                  },
                  affordable,
                )}`
            : nothing
        }`;
    }
    return html`<div
      class="root ${status === "error" ? "failed" : ""}"
      part="base"
      lang=${locale.lang}
      aria-busy=${status === "loading"}
      .style=${style}
    >
      ${content}
    </div>`;
  }
}

define("loyalty-cart-widget", LoyaltyCartWidget);

declare global {
  interface HTMLElementTagNameMap {
    "loyalty-cart-widget": LoyaltyCartWidget;
  }
}
