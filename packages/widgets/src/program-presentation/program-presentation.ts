import { html, nothing, type ElementPart } from "lit";
import { Directive, directive } from "lit/directive.js";
import type {
  ButtonAction,
  CustomerHistoryResponseV2,
  ProgramPresentationWidgetResponse,
  Reward,
  SECTION_OF_ACTION,
} from "@loyalty/shared-types";
import {
  ApiError,
  customerHistory,
  rewardList,
  widgetConfig,
  type Customer,
  type Endpoint,
} from "../core/api.js";
import type { RewardClaimedDetail } from "../core/claim-event.js";
import { define, LoyaltyElement } from "../core/element.js";
import type { Locale } from "../core/i18n.js";
import { ICONS } from "../core/icons.js";
import { RewardsController } from "../core/rewards.js";
import { base, colorVar, rewardsStyles } from "../core/styles.js";
import { clubProgress, isWebUrl, signInLink } from "../core/templates.js";
import { styles } from "./program-presentation.styles.js";

/** The shared contract's map, restated: importing its value would bundle zod into the page. */
const SECTION = {
  "scroll-points": "howToEarn",
  "scroll-redeem": "rewards",
  "scroll-history": "history",
  "scroll-faq": "faq",
} as const satisfies typeof SECTION_OF_ACTION;

type Config = ProgramPresentationWidgetResponse["config"];
type Sections = Config["sections"];
type SectionId = keyof Sections;
type Transaction = CustomerHistoryResponseV2["transactions"][number];
type History = Omit<CustomerHistoryResponseV2, "transactions"> & { transactions: Transaction[] };

interface Data {
  response: ProgramPresentationWidgetResponse;
  endpoint: Endpoint;
  customer: Customer | undefined;
  /** Undefined when the section is off; null when the list could not be read. */
  rewards?: Reward[] | null;
  history?: History;
  /** The status of a failed history read: 401 asks the customer to sign in again. */
  historyError?: number;
  more?: "loading" | "failed";
}

interface HtmlSanitizer {
  allowAttribute(name: string): boolean;
}
type SanitizingElement = Element & {
  setHTML?: (html: string, options?: { sanitizer?: HtmlSanitizer }) => void;
};
let sanitizer: HtmlSanitizer | undefined;

/**
 * Sets the banner's HTML, which the server sanitised already. Browsers with the HTML Sanitizer
 * API sanitise it once more, in case a proxy or a cache served something else; its default
 * drops `target` and `rel`, which the server writes safely on links opening a new tab.
 */
class BannerHtml extends Directive {
  private html: string | undefined;

  render(_html: string) {
    return nothing;
  }

  override update(part: ElementPart, [html]: [string]) {
    if (html !== this.html) {
      this.html = html;
      const element = part.element as SanitizingElement;
      if (element.setHTML) {
        const Sanitizer = (globalThis as { Sanitizer?: new () => HtmlSanitizer }).Sanitizer;
        if (!sanitizer && Sanitizer) {
          sanitizer = new Sanitizer();
          sanitizer.allowAttribute("target");
          sanitizer.allowAttribute("rel");
        }
        element.setHTML(html, sanitizer && { sanitizer });
      } else {
        element.innerHTML = html;
      }
    }
    return nothing;
  }
}
const bannerHtml = directive(BannerHtml);

/** The loading sections: a heading and a few lines each, decorative. */
const SKELETON = html`<div class="skeleton-sections" aria-hidden="true">
  ${[0, 1, 2].map(
    () =>
      html`<div class="skeleton-section">
        <span class="skeleton heading"></span><span class="skeleton"></span
        ><span class="skeleton"></span><span class="skeleton short"></span>
      </div>`,
  )}
</div>`;

/**
 * The loyalty programme's page: a banner with buttons leading to its sections (how to earn,
 * rewards, the customer's points and history, questions), as the back-office configures them.
 * An identified customer (`customer-id` and `customer-hash`) sees their balance and may claim
 * rewards; a visitor is invited to sign in.
 *
 * @summary The loyalty programme page: banner, ways to earn, rewards, history and FAQ.
 * @tag loyalty-program-presentation
 *
 * @csspart header - The banner.
 * @csspart header-image - The banner's image (decorative).
 * @csspart header-content - The banner's text and buttons (the card when the configuration asks for one).
 * @csspart header-text - The banner's text.
 * @csspart primary-button - The banner's main button or link.
 * @csspart secondary-button - The banner's second button or link.
 * @csspart section - Each section.
 * @csspart section-title - Each section's heading.
 * @csspart way - A way to earn points.
 * @csspart icon - A way to earn's icon.
 * @csspart rewards - The rewards list.
 * @csspart reward - A reward.
 * @csspart claim-button - A reward's claim button (identified customers).
 * @csspart conditions - A reward's conditions: minimum order, how long its code lasts.
 * @csspart confirm - The question asked before a claim spends points, with its buttons.
 * @csspart confirm-button - The button that confirms a claim.
 * @csspart cancel-button - The button that cancels a claim.
 * @csspart code - A claimed reward's code.
 * @csspart copy-button - The button that copies a code.
 * @csspart code-conditions - A claimed code's end date and minimum order.
 * @csspart balance - The customer's balance.
 * @csspart transaction - A transaction of the history.
 * @csspart more-button - The button loading older transactions.
 * @csspart sign-in - The sign-in link shown to visitors.
 * @csspart faq-item - A question and its answer (a `<details>`).
 *
 * @cssprop --loyalty-header-height - The banner's height when its image is cropped (default: 320px).
 * @cssprop --loyalty-header-mobile-height - The same on screens under 600px (default: 240px).
 * @cssprop --loyalty-header-background - Banner background (default: the configuration's, then the store's branding colour).
 * @cssprop --loyalty-header-text-color - Banner text colour (default: the configuration's).
 * @cssprop --loyalty-header-card-background - The banner's text card (default: --loyalty-surface-color).
 * @cssprop --loyalty-accent-color - Buttons, icons and progress (default: the store's branding colour).
 * @cssprop --loyalty-accent-text-color - Text on accent buttons (default: #fff).
 * @cssprop --loyalty-text-color - Sections' text colour (default: inherited).
 * @cssprop --loyalty-surface-color - Card background (default: #fff).
 * @cssprop --loyalty-border-color - Separators and card borders.
 * @cssprop --loyalty-radius - Corner radius (default: 8px).
 * @cssprop --loyalty-spacing - Base spacing (default: 1rem).
 * @cssprop --loyalty-font-family - Font (default: inherited).
 * @cssprop --loyalty-skeleton-color - The loading placeholder's colour.
 * @cssprop --loyalty-scroll-margin - Space kept above a section the banner's buttons scroll to, for a sticky store header (default: 1rem).
 *
 * @event loyalty-reward-claimed - A reward was claimed: `detail` is `{ rewardId, code, pointsSpent, balance, expiresAt, domain, customerId }`.
 */
export class LoyaltyProgramPresentation extends LoyaltyElement {
  static override styles = [base, rewardsStyles, styles];

  private data: Data | undefined;
  private readonly rewards = new RewardsController(this);
  private historyReads = 0;

  protected override async load(endpoint: Endpoint) {
    const response = await widgetConfig(endpoint, "program-presentation");
    const { rewards, history } = response.config.sections;
    const customer = this.customer;
    const data: Data = { response, endpoint, customer };
    // Either may fail without taking the page down: its section says so.
    await Promise.all([
      this.loads(rewards.enabled) &&
        rewardList(endpoint).then(
          (list) => (data.rewards = list),
          () => (data.rewards = null),
        ),
      // The rewards need the balance too, to tell which ones the customer can afford.
      customer &&
        this.loads(history.enabled || rewards.enabled) &&
        customerHistory(endpoint, customer).then(
          (page) => (data.history = page),
          (error) => (data.historyError = error instanceof ApiError ? error.status : 0),
        ),
    ]);
    return () => (this.data = data);
  }

  /** A claim here or in another widget of the page: the balance it left, then the history. */
  protected override claimed({ balance, pointsSpent }: RewardClaimedDetail): void {
    const data = this.data;
    if (!data?.history) return;
    const availablePoints = data.history.availablePoints - pointsSpent;
    data.history = { ...data.history, balance, availablePoints };
    void this.readHistory(data);
  }

  /** Reads the first page again (after a claim), or appends the page at `cursor`. */
  private async readHistory(data: Data, cursor?: string) {
    if (!data.customer || (cursor && data.more === "loading")) return;
    if (cursor) data.more = "loading";
    this.requestUpdate();
    const shown = data.history?.transactions.length ?? 0;
    // A refresh (after a claim) replaces the pages read so far; a page read meanwhile is dropped.
    const read = ++this.historyReads;
    try {
      const page = await customerHistory(data.endpoint, data.customer, cursor);
      if (read !== this.historyReads) return;
      data.history =
        cursor && data.history
          ? { ...page, transactions: [...data.history.transactions, ...page.transactions] }
          : page;
      data.more = undefined;
    } catch {
      // A failed refresh keeps the balance the claim gave; a failed page says so.
      if (cursor) data.more = "failed";
    }
    this.requestUpdate();
    if (cursor && !data.more) {
      // The button may be gone: keyboard users go on from the first transaction they had not seen.
      await this.updateComplete;
      this.renderRoot.querySelectorAll<HTMLElement>("[part=transaction]")[shown]?.focus();
    }
  }

  private go(id: SectionId) {
    const heading = this.renderRoot.querySelector<HTMLElement>(`#${id}-title`);
    heading?.scrollIntoView({
      behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "smooth",
    });
    // Screen readers and keyboards follow the eyes; preventScroll keeps the smooth scroll going.
    heading?.focus({ preventScroll: true });
  }

  private button(
    name: "primary" | "secondary",
    text: string | undefined,
    action: ButtonAction | undefined,
    url: string | undefined,
    sections: Sections,
  ) {
    if (!text || !action) return nothing;
    const label = `${name}-button`;
    if (action === "url") {
      return isWebUrl(url)
        ? html`<a part=${label} class="button ${name}" href=${url}>${text}</a>`
        : nothing;
    }
    // An action this release does not know (added to the API later) shows no button.
    const id = SECTION[action] as SectionId | undefined;
    return id && sections[id].enabled
      ? html`<button part=${label} class="button ${name}" @click=${() => this.go(id)}>
          ${text}
        </button>`
      : nothing;
  }

  private header({ header, sections }: Config) {
    const desktop = header.backgroundImageUrl ?? "";
    const mobile = header.mobileBackgroundImageUrl || desktop;
    const text = header.text;
    return html`<div
      part="header"
      class="header ${header.imageFit} ${header.mobileLayout} ${header.contentPosition} ${
        header.contentCard ? "card" : ""
      }"
    >
      ${
        mobile
          ? html`<picture
              >${
                mobile === desktop
                  ? nothing
                  : html`<source media="(max-width: 599px)" srcset=${mobile} />`
              }<img
                part="header-image"
                class=${desktop ? "" : "mobile-only"}
                src=${desktop || mobile}
                alt=""
            /></picture>`
          : nothing
      }
      <div part="header-content" class="content">
        ${
          text
            ? header.isRawHtml
              ? html`<div part="header-text" class="text" ${bannerHtml(text)}></div>`
              : html`<p part="header-text" class="text">${text}</p>`
            : nothing
        }
        <div class="actions">
          ${this.button("primary", header.primaryButtonText, header.primaryButtonAction, header.primaryButtonUrl, sections)}
          ${this.button("secondary", header.secondaryButtonText, header.secondaryButtonAction, header.secondaryButtonUrl, sections)}
        </div>
      </div>
    </div>`;
  }

  private historyBody(data: Data, section: Sections["history"], locale: Locale) {
    const { t, points, date } = locale;
    const { history, historyError } = data;
    if (!data.customer || historyError === 401) {
      return html`<p>${historyError ? t("signInAgain") : section.signedOutText}</p>
        ${signInLink(section.loginUrl, locale)}`;
    }
    if (!history) return html`<p>${t("unavailable")}</p>`;
    const { club, transactions, nextCursor, negativeBalance } = history;
    return html`<dl>
        <div>
          <dt>${t("balance")}</dt>
          <dd part="balance">${points(history.balance)}</dd>
        </div>
        ${
          history.pendingPoints > 0
            ? html`<div>
                <dt>${t("pending")}</dt>
                <dd part="pending">${points(history.pendingPoints)}</dd>
              </div>`
            : nothing
        }
        ${
          club
            ? html`<div>
                <dt>${t("club")}</dt>
                <dd>${club.name}</dd>
              </div>`
            : nothing
        }
      </dl>
      ${history.pendingPoints > 0 ? html`<p part="pending-hint">${t("pendingHint")}</p>` : nothing}
      ${negativeBalance ? html`<p part="negative-balance">${t(negativeBalance.reason)}</p>` : nothing}
      ${
        history.nextExpiry
          ? html`<p part="next-expiry">
              ${t("nextExpiry", {
                points: points(history.nextExpiry.points),
                date: date(history.nextExpiry.expiresAt),
              })}
            </p>`
          : nothing
      }
      ${clubProgress(history, locale, data.response.store.currency)}
      <h3>${t("history")}</h3>
      ${
        transactions.length
          ? html`<ul class="transactions">
              ${transactions.map((transaction) => {
                const { order, points: change } = transaction;
                const reference =
                  (order && (order.externalReference ?? order.externalId)) ||
                  transaction.activity?.label ||
                  "";
                return html`<li part="transaction" tabindex="-1">
                  <span
                    >${t(transaction.kind)} ${reference}
                    ${transaction.voucherCode ? html`<code>${transaction.voucherCode}</code>` : nothing}</span
                  >
                  <time datetime=${transaction.createdAt}>${date(transaction.createdAt)}</time>
                  ${
                    transaction.pending && transaction.availableAt
                      ? html`<span part="available-on"
                          >${t("availableOn", { date: date(transaction.availableAt) })}</span
                        >`
                      : nothing
                  }
                  <strong
                    >${change > 0 ? "+" : change < 0 ? "\u2212" : ""}${points(Math.abs(change))}</strong
                  >
                </li>`;
              })}
            </ul>`
          : html`<p>${t("noHistory")}</p>`
      }
      ${
        nextCursor
          ? html`<button
              part="more-button"
              class="button secondary"
              aria-disabled=${data.more === "loading"}
              @click=${() => void this.readHistory(data, nextCursor)}
            >
              ${t("more")}
            </button>`
          : nothing
      }
      ${data.more === "failed" ? html`<p role="alert">${t("unavailable")}</p>` : nothing}`;
  }

  protected override render() {
    const { data, status } = this;
    const locale = this.locale(data?.response);
    const { t } = locale;
    if (!data || status === "error") {
      const failed = status === "error";
      // The banner's height is kept from the start. While loading, the sections' skeleton takes
      // at least a screen below it: what follows the widget starts below the fold, so the
      // sections can grow as tall as they are without moving what the customer sees.
      return html`<div class="root" lang=${locale.lang} aria-busy=${!failed}>
        <div part="header" class="header placeholder">
          ${
            failed
              ? html`<p>${t("unavailable")}</p>`
              : html`<span class="sr-only">${t("loading")}</span>`
          }
        </div>
        ${failed ? nothing : SKELETON}
      </div>`;
    }
    const { store, config } = this.withDraft(data.response);
    const { header, sections } = config;
    const section = (id: SectionId, body: () => unknown) =>
      sections[id].enabled
        ? html`<section id=${id} part="section" aria-labelledby="${id}-title">
            <h2 id="${id}-title" part="section-title" tabindex="-1">${sections[id].title}</h2>
            ${body()}
          </section>`
        : nothing;
    const { rewards, history } = data;
    return html`<div
      class="root"
      lang=${locale.lang}
      aria-busy=${status === "loading"}
      .style=${
        colorVar("--_accent", store.brandingColor) +
        colorVar("--_bg", header.backgroundColor, store.brandingColor) +
        colorVar("--_fg", header.textColor)
      }
    >
      ${this.header(config)}
      ${section(
        "howToEarn",
        () =>
          html`<ul class="ways">
            ${sections.howToEarn.items.map(
              (item) =>
                html`<li part="way">
                  ${ICONS[item.icon]}
                  <h3>${item.title}</h3>
                  <p>${item.text}</p>
                </li>`,
            )}
          </ul>`,
      )}
      ${section("rewards", () =>
        rewards === null
          ? html`<p>${t("unavailable")}</p>`
          : rewards?.length
            ? this.rewards.render(
                {
                  endpoint: data.endpoint,
                  // No claim without a balance: a hash the history refused would be refused too.
                  customer: history && data.customer,
                  locale,
                  // What the customer can spend: pending points cannot be.
                  balance: history?.availablePoints,
                  currency: store.currency,
                  confirmClaims: sections.rewards.confirmClaims,
                },
                rewards,
              )
            : html`<p>${sections.rewards.emptyText || t("noRewards")}</p>`,
      )}
      ${section("history", () => this.historyBody(data, sections.history, locale))}
      ${section(
        "faq",
        () =>
          html`${sections.faq.items.map(
            (item) =>
              html`<details part="faq-item">
                <summary>${item.question}</summary>
                <p>${item.answer}</p>
              </details>`,
          )}`,
      )}
    </div>`;
  }
}

define("loyalty-program-presentation", LoyaltyProgramPresentation);

declare global {
  interface HTMLElementTagNameMap {
    "loyalty-program-presentation": LoyaltyProgramPresentation;
  }
}
