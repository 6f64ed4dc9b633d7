import { html, nothing, type PropertyValues } from "lit";
import type {
  CustomerCode,
  CustomerHistoryResponseV2,
  LauncherWidgetResponse,
  REFERRAL_LINK_PARAMETER,
  Reward,
  VoucherTerms,
} from "@loyalty/shared-types";
import {
  ApiError,
  customerCodes,
  customerHistory,
  inviteFriend,
  rewardList,
  widgetConfig,
  type Customer,
  type Endpoint,
} from "../core/api.js";
import type { RewardClaimedDetail } from "../core/claim-event.js";
import { define, LoyaltyElement } from "../core/element.js";
import { hasString, type Locale, type StringKey } from "../core/i18n.js";
import { ICONS } from "../core/icons.js";
import { copyText, RewardsController, voucherConditions } from "../core/rewards.js";
import { base, colorVar, rewardsStyles } from "../core/styles.js";
import { clubProgress, isWebUrl, signInLink } from "../core/templates.js";
import { styles } from "./launcher.styles.js";

/** The shared contract's constant, restated: importing its value would bundle zod. */
const LINK_PARAMETER = "loyalty_referral" satisfies typeof REFERRAL_LINK_PARAMETER;
/** A language the referral operation takes for the invitation email. */
const LANGUAGE = /^[a-z]{2}(-[A-Z]{2})?$/;

type Config = LauncherWidgetResponse["config"];

/** What the panel shows, read when it first opens: a page view that never opens it asks nothing. */
interface Panel {
  /** Undefined while the configuration hides it; null when it could not be read. */
  rewards?: Reward[] | null;
  history?: CustomerHistoryResponseV2;
  /** The status of a failed history read: 401 asks the customer to sign in again. */
  historyError?: number;
  codes?: CustomerCode[] | null;
}

interface Data {
  response: LauncherWidgetResponse;
  endpoint: Endpoint;
  customer: Customer | undefined;
  panel?: Panel;
}

/** Where an invitation stands. */
type Invitation =
  | { state: "idle" }
  | { state: "sending" }
  | { state: "sent"; email: string; link: string; shared?: boolean; showLink?: boolean }
  | { state: "refused"; message: StringKey };

/** What has the focus in the document, if anything but the page itself. */
function focused(): HTMLElement | undefined {
  const active = document.activeElement;
  return active instanceof HTMLElement && active !== document.body ? active : undefined;
}

/**
 * A floating button on every page of the store, opening the loyalty panel. A signed-in customer
 * (`customer-id` and `customer-hash`) sees their balance first (what they can spend, what is
 * pending, what expires next), their club and its progress, the rewards they may claim, the
 * codes they still can use, the ways to earn, and an invitation to send a friend. A visitor
 * reads the programme's pitch, with links to join and to sign in.
 *
 * The panel is a modal dialog: focus stays inside until it closes (Escape, the close button),
 * then returns to the button.
 *
 * @summary A floating launcher opening the customer's loyalty panel.
 * @tag loyalty-launcher
 *
 * @csspart button - The floating button.
 * @csspart panel - The panel (a dialog).
 * @csspart title - The panel's heading.
 * @csspart close-button - The button closing the panel.
 * @csspart balance - The customer's balance.
 * @csspart available - What the customer can spend now, when some points are pending.
 * @csspart pending - The points still pending.
 * @csspart next-expiry - The points that expire next, and when.
 * @csspart club - The customer's club and its perk.
 * @csspart section - Each section of the panel.
 * @csspart section-title - Each section's heading.
 * @csspart rewards - The rewards list.
 * @csspart reward - A reward.
 * @csspart conditions - A reward's conditions.
 * @csspart claim-button - A reward's claim button.
 * @csspart confirm - The question asked before a claim spends points, with its buttons.
 * @csspart confirm-button - The button that confirms a claim.
 * @csspart cancel-button - The button that cancels a claim.
 * @csspart my-code - A code the customer can still use.
 * @csspart copy-button - The button copying a code.
 * @csspart way - A way to earn points.
 * @csspart icon - A way to earn's icon.
 * @csspart invite-form - The form inviting a friend.
 * @csspart share-button - The button sharing, or copying, the invitation's link.
 * @csspart sign-in - The sign-in link shown to visitors.
 * @csspart join - The link to create an account, shown to visitors.
 *
 * @cssprop --loyalty-accent-color - The button, links and progress (default: the configuration's, then the store's branding colour).
 * @cssprop --loyalty-accent-text-color - Text on the accent colour (default: white or black, whichever reads).
 * @cssprop --loyalty-text-color - The panel's text colour.
 * @cssprop --loyalty-surface-color - The panel's background (default: #fff).
 * @cssprop --loyalty-border-color - Separators.
 * @cssprop --loyalty-radius - Corner radius (default: 8px).
 * @cssprop --loyalty-spacing - Base spacing (default: 1rem).
 * @cssprop --loyalty-font-family - Font (default: inherited).
 * @cssprop --loyalty-launcher-offset - Distance of the button from the window's corner (default: 1rem).
 * @cssprop --loyalty-launcher-z-index - Stacking of the button over the page (default: 2147483000).
 *
 * @event loyalty-reward-claimed - A reward was claimed: `detail` is `{ rewardId, code, pointsSpent, balance, expiresAt, domain, customerId }`.
 */
export class LoyaltyLauncher extends LoyaltyElement {
  static override styles = [base, rewardsStyles, styles];

  private data: Data | undefined;
  private readonly rewards = new RewardsController(this);
  /** Whether the panel is open (always, in the back-office's preview). */
  private opened = false;
  /** `show()` was called before the configuration loaded. */
  private showWhenLoaded = false;
  /** What had the focus when the panel opened. */
  private opener: HTMLElement | undefined;
  private invitation: Invitation = { state: "idle" };
  /** What a shared invitation says, with its link. */
  private shareText = "";
  /** Said to screen readers: a copy done. */
  private announcement = "";
  private copiedCode = "";

  protected override async load(endpoint: Endpoint) {
    const response = await widgetConfig(endpoint, "launcher");
    const data: Data = { response, endpoint, customer: this.customer };
    // The back-office's preview shows the panel at once, as a visitor sees it.
    if (this.previewConfig) data.panel = await this.readPanel(data);
    return () => {
      this.data = data;
      this.invitation = { state: "idle" };
      this.announcement = "";
      this.copiedCode = "";
      // A panel open for the previous customer (a sign-out in a one-page app) shows the new one's.
      if (this.opened) void this.fillPanel(data);
    };
  }

  private get dialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector("dialog");
  }

  /** Reads what the panel shows: each part may fail without taking the others down. */
  private async readPanel(data: Data): Promise<Panel> {
    const { endpoint, customer } = data;
    const config = this.withDraft(data.response).config;
    const panel: Panel = {};
    await Promise.all([
      this.loads(config.showRewards) &&
        rewardList(endpoint).then(
          (list) => (panel.rewards = list),
          () => (panel.rewards = null),
        ),
      customer &&
        customerHistory(endpoint, customer).then(
          (page) => (panel.history = page),
          (error) => (panel.historyError = error instanceof ApiError ? error.status : 0),
        ),
      customer &&
        customerCodes(endpoint, customer).then(
          (answer) => (panel.codes = answer.codes),
          () => (panel.codes = null),
        ),
    ]);
    return panel;
  }

  private async fillPanel(data: Data): Promise<void> {
    const panel = await this.readPanel(data);
    if (this.data === data) {
      data.panel = panel;
      this.requestUpdate();
    }
  }

  /**
   * Opens the panel; its data is read the first time. Called before the launcher's
   * configuration has loaded (a theme's "Rewards" link clicked early), it opens once loaded.
   */
  async show(): Promise<void> {
    const data = this.data;
    if (!data) {
      this.showWhenLoaded = true;
      this.opener = focused();
      return;
    }
    // A launcher the merchant turned off has no panel to open.
    if (this.opened || !this.withDraft(data.response).config.enabled) return;
    this.opened = true;
    // What had the focus (the button, or the theme's own link) gets it back on closing.
    this.opener ??= focused();
    if (!data.panel) void this.fillPanel(data);
    this.requestUpdate();
    await this.updateComplete;
    this.dialog?.showModal();
  }

  /** Closes the panel; focus goes back to what opened it. */
  hide(): void {
    this.showWhenLoaded = false;
    if (!this.opened) this.opener = undefined;
    this.dialog?.close();
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    if (this.showWhenLoaded && this.data && this.status === "ready") {
      this.showWhenLoaded = false;
      // After this update, not inside it.
      queueMicrotask(() => void this.show());
    }
  }

  /**
   * Tab from the panel's last control goes to its first, Shift+Tab from the first to the last:
   * a modal dialog alone would let focus leave for the browser's own controls.
   */
  private readonly trapFocus = (event: KeyboardEvent) => {
    if (event.key !== "Tab") return;
    const controls = [
      ...this.renderRoot.querySelectorAll<HTMLElement>(
        "dialog button:not([disabled]), dialog a[href], dialog input, dialog summary",
      ),
    ].filter((control) => control.getClientRects().length > 0);
    const first = controls[0];
    const last = controls[controls.length - 1];
    const active = (this.renderRoot as ShadowRoot).activeElement;
    if (event.shiftKey ? active === first : active === last) {
      event.preventDefault();
      (event.shiftKey ? last : first)?.focus();
    }
  };

  private readonly closed = () => {
    this.opened = false;
    this.requestUpdate();
    const opener = this.opener;
    this.opener = undefined;
    // Opened by the button (focus inside this element) or by nothing still on the page: the button.
    if (opener && opener !== this && opener.isConnected) opener.focus();
    else this.renderRoot.querySelector<HTMLElement>('[part="button"]')?.focus();
  };

  /** A claim here or in another widget of the page: the balance it left, and the new code. */
  protected override claimed({ balance, pointsSpent }: RewardClaimedDetail): void {
    const data = this.data;
    const history = data?.panel?.history;
    if (!data?.panel || !history) return;
    data.panel.history = {
      ...history,
      balance,
      availablePoints: history.availablePoints - pointsSpent,
    };
    this.requestUpdate();
    if (data.customer) {
      const customer = data.customer;
      void customerCodes(data.endpoint, customer).then(
        (answer) => {
          if (data.panel && this.data === data) {
            data.panel.codes = answer.codes;
            this.requestUpdate();
          }
        },
        () => undefined,
      );
    }
  }

  private async copyCode(code: string, target: HTMLElement, locale: Locale) {
    if (await copyText(code, target.parentElement?.querySelector("code"))) {
      this.copiedCode = code;
      this.announcement = locale.t("copied");
      this.requestUpdate();
    }
  }

  private async invite(event: SubmitEvent, data: Data, locale: Locale, storeName: string) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const customer = data.customer;
    const offer = data.response.referral;
    if (!customer || !offer || this.invitation.state === "sending") return;
    const field = (name: string) =>
      (form.elements.namedItem(name) as HTMLInputElement | null)?.value.trim() ?? "";
    const email = field("email");
    const firstName = field("firstName");
    this.invitation = { state: "sending" };
    this.requestUpdate();
    try {
      const referral = await inviteFriend(data.endpoint, customer, {
        email,
        ...(firstName ? { firstName } : {}),
        ...(LANGUAGE.test(locale.lang) ? { language: locale.lang } : {}),
      });
      const link = new URL(offer.landingUrl);
      link.searchParams.set(LINK_PARAMETER, referral.hash);
      // Another customer signed in meanwhile: this invitation is not theirs to see.
      if (this.data !== data) return;
      this.invitation = { state: "sent", email: referral.email, link: link.href };
      this.announcement = locale.t("invited", { email: referral.email });
      this.shareText = locale.t("shareText", { store: storeName });
    } catch (error) {
      if (this.data !== data) return;
      const reason = error instanceof ApiError ? error.reason : undefined;
      // A stale hash is the customer's session, not the friend's address.
      const stale = error instanceof ApiError && error.status === 401;
      this.invitation = {
        state: "refused",
        message: stale ? "signInAgain" : reason && hasString(reason) ? reason : "inviteFailed",
      };
    }
    this.requestUpdate();
    await this.updateComplete;
    // Keyboard users land where the answer is: the share button, or the address to correct.
    const next = this.invitation.state === "sent" ? '[part="share-button"]' : 'input[name="email"]';
    this.renderRoot.querySelector<HTMLElement>(next)?.focus();
  }

  private async share(locale: Locale) {
    const invitation = this.invitation;
    if (invitation.state !== "sent") return;
    if (typeof navigator.share === "function") {
      try {
        await navigator.share({ text: this.shareText, url: invitation.link });
        return;
      } catch (error) {
        // Dismissed by the customer: nothing to say. Refused by the browser: copy instead.
        if (error instanceof DOMException && error.name === "AbortError") return;
      }
    }
    if (await copyText(invitation.link, undefined)) {
      this.invitation = { ...invitation, shared: true };
      this.announcement = locale.t("linkCopied");
      this.requestUpdate();
      return;
    }
    // Neither: the link in a field the customer sees, selected for them to copy.
    this.invitation = { ...invitation, showLink: true };
    this.requestUpdate();
    await this.updateComplete;
    const field = this.renderRoot.querySelector<HTMLInputElement>("#invitation-link");
    field?.focus();
    field?.select();
  }

  private async inviteAnother() {
    this.invitation = { state: "idle" };
    this.requestUpdate();
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('input[name="email"]')?.focus();
  }

  private section(id: string, title: string, body: unknown) {
    return html`<section part="section" aria-labelledby="${id}-title">
      <h3 id="${id}-title" part="section-title">${title}</h3>
      ${body}
    </section>`;
  }

  private balance(history: CustomerHistoryResponseV2, locale: Locale, currency: string) {
    const { t, points, number, date } = locale;
    const { club, negativeBalance, nextExpiry } = history;
    const pending = history.pendingPoints > 0;
    return html`<div class="balance">
      <p class="figure" part="balance">${points(history.balance)}</p>
      ${
        pending
          ? html`<dl>
                <div>
                  <dt>${t("available")}</dt>
                  <dd part="available">${points(history.availablePoints)}</dd>
                </div>
                <div>
                  <dt>${t("pending")}</dt>
                  <dd part="pending">${points(history.pendingPoints)}</dd>
                </div>
              </dl>
              <p class="hint">${t("pendingHint")}</p>`
          : nothing
      }
      ${negativeBalance ? html`<p class="hint">${t(negativeBalance.reason)}</p>` : nothing}
      ${
        nextExpiry
          ? html`<p part="next-expiry">
              ${t("nextExpiry", {
                points: points(nextExpiry.points),
                date: date(nextExpiry.expiresAt),
              })}
            </p>`
          : nothing
      }
      ${
        club
          ? html`<p part="club">
              <strong>${t("club")} ${club.name}</strong>
              ${
                club.multiplier > 1
                  ? html`· ${t("multiplier", { multiplier: number(club.multiplier) })}`
                  : nothing
              }
            </p>`
          : nothing
      }
      ${clubProgress(history, locale, currency)}
    </div>`;
  }

  private codes(codes: CustomerCode[] | null | undefined, data: Data, locale: Locale) {
    const { t, date } = locale;
    if (codes === undefined) return html`<span class="skeleton"></span>`;
    if (codes === null) return html`<p>${t("unavailable")}</p>`;
    if (!codes.length) return html`<p>${t("noCodes")}</p>`;
    const currency = data.response.store.currency;
    return html`<ul class="codes">
      ${codes.map((code, index) => {
        const terms = [
          code.expiresAt ? t("validUntil", { date: date(code.expiresAt) }) : "",
          ...voucherConditions({ ...code.voucher, validityDays: null }, locale, currency),
        ].filter(Boolean);
        return html`<li part="my-code" class="code">
          <strong>${code.rewardName}</strong>
          <code id="my-code-${index}">${code.code}</code>
          <button
            part="copy-button"
            class="button secondary"
            aria-describedby="my-code-${index}"
            @click=${(event: Event) =>
              void this.copyCode(code.code, event.currentTarget as HTMLElement, locale)}
          >
            ${t(this.copiedCode === code.code ? "copied" : "copy")}
          </button>
          ${terms.length ? html`<small>${terms.join(" · ")}</small>` : nothing}
        </li>`;
      })}
    </ul>`;
  }

  private offerText(terms: VoucherTerms, locale: Locale, currency: string): string {
    const { t, money, percent } = locale;
    if (terms.kind === "free_shipping") return t("freeShipping");
    const amount =
      terms.kind === "percentage"
        ? percent(terms.value ?? 0)
        : money(terms.value ?? 0, terms.currency ?? currency);
    return t("amountOff", { amount });
  }

  private inviteSection(data: Data, locale: Locale, storeName: string) {
    const offer = data.response.referral;
    if (!offer) return nothing;
    const { t, points } = locale;
    const invitation = this.invitation;
    const currency = data.response.store.currency;
    let body: unknown;
    if (invitation.state === "sent") {
      body = html`<p>${t("invited", { email: invitation.email })}</p>
        ${
          invitation.showLink
            ? html`<label for="invitation-link">${t("invitationLink")}</label>
                <input
                  id="invitation-link"
                  part="invitation-link"
                  readonly
                  .value=${invitation.link}
                />`
            : nothing
        }
        <div class="actions">
          <button part="share-button" class="button" @click=${() => void this.share(locale)}>
            ${
              typeof navigator.share === "function"
                ? t("shareLink")
                : t(invitation.shared ? "linkCopied" : "copyLink")
            }
          </button>
          <button class="button secondary" @click=${() => void this.inviteAnother()}>
            ${t("inviteAnother")}
          </button>
        </div>`;
    } else {
      const sending = invitation.state === "sending";
      const refused = invitation.state === "refused";
      body = html`<form
        part="invite-form"
        @submit=${(event: SubmitEvent) => void this.invite(event, data, locale, storeName)}
      >
        <label for="friend-email">${t("friendEmail")}</label>
        <input
          id="friend-email"
          name="email"
          type="email"
          required
          autocomplete="off"
          aria-invalid=${refused}
          aria-describedby=${refused ? "invite-error" : nothing}
        />
        <label for="friend-name">${t("friendName")}</label>
        <input id="friend-name" name="firstName" autocomplete="off" maxlength="100" />
        ${
          refused
            ? html`<p id="invite-error" class="message" role="alert">${t(invitation.message)}</p>`
            : nothing
        }
        <button class="button" aria-disabled=${sending} aria-busy=${sending}>
          ${sending ? t("sending") : t("sendInvite")}
        </button>
      </form>`;
    }
    return this.section(
      "invite",
      t("invite"),
      html`<p>
          ${t("inviteOffer", {
            offer: this.offerText(offer.refereeVoucher, locale, currency),
            points: points(offer.referrerBonus),
          })}
        </p>
        ${body}`,
    );
  }

  private panelBody(data: Data, config: Config, locale: Locale) {
    const { t } = locale;
    const { panel, customer, endpoint } = data;
    const store = data.response.store;
    const storeName = new URL(store.domain).host;
    const ways = config.waysToEarn.length
      ? this.section(
          "earn",
          t("waysToEarn"),
          html`<ul class="ways">
            ${config.waysToEarn.map(
              (way) =>
                html`<li part="way">
                  ${ICONS[way.icon]}
                  <div><strong>${way.title}</strong> <span>${way.text}</span></div>
                </li>`,
            )}
          </ul>`,
        )
      : nothing;
    if (!panel) {
      return html`<div class="loading" aria-busy="true">
        <span class="skeleton"></span><span class="skeleton"></span>
        <span class="sr-only">${t("loading")}</span>
      </div>`;
    }
    const history = panel.history;
    const signedIn = customer && history;
    const rewards =
      config.showRewards && panel.rewards !== undefined
        ? this.section(
            "rewards",
            t("rewards"),
            panel.rewards === null
              ? html`<p>${t("unavailable")}</p>`
              : panel.rewards.length
                ? this.rewards.render(
                    {
                      endpoint,
                      customer: signedIn ? customer : undefined,
                      locale,
                      balance: history?.availablePoints,
                      currency: store.currency,
                      confirmClaims: config.confirmClaims,
                    },
                    panel.rewards,
                  )
                : html`<p>${t("noRewards")}</p>`,
          )
        : nothing;
    if (!customer) {
      const join = isWebUrl(config.signUpUrl)
        ? html`<a part="join" class="button" href=${config.signUpUrl}>${t("join")}</a>`
        : nothing;
      return html`<p>${config.visitorText}</p>
        <div class="actions">
          ${join} ${signInLink(config.loginUrl, locale, "button secondary")}
        </div>
        ${ways} ${rewards}`;
    }
    if (!signedIn) {
      // A stale hash asks to sign in again; any other failure leaves what could be read.
      return panel.historyError === 401
        ? html`<p>${t("signInAgain")}</p>
            <div class="actions">${signInLink(config.loginUrl, locale)}</div>`
        : html`<p role="alert">${t("unavailable")}</p>
            ${ways} ${rewards}`;
    }
    return html`${this.balance(history, locale, store.currency)} ${rewards}
    ${this.section("codes", t("myCodes"), this.codes(panel.codes, data, locale))} ${ways}
    ${config.showReferral ? this.inviteSection(data, locale, storeName) : nothing}`;
  }

  protected override render() {
    const { data, status } = this;
    // A launcher that cannot load stays out of the way: the store's page goes on without it.
    if (!data || status === "error") return nothing;
    const locale = this.locale(data.response);
    const { t } = locale;
    const { config, store } = this.withDraft(data.response);
    if (!config.enabled && !this.previewConfig) return nothing;
    const inline = !!this.previewConfig;
    const open = inline || this.opened;
    const panel = html`<div class="panel-head">
        <h2 id="title" part="title">${config.title}</h2>
        ${
          inline
            ? nothing
            : html`<button
                part="close-button"
                class="close"
                aria-label=${t("close")}
                @click=${() => this.hide()}
              >
                <span aria-hidden="true">×</span>
              </button>`
        }
      </div>
      <div class="panel-body">${open ? this.panelBody(data, config, locale) : nothing}</div>
      <p id="announcement" class="sr-only" role="status">${this.announcement}</p>`;
    return html`<div
      class="root ${config.position} ${inline ? "inline" : ""}"
      lang=${locale.lang}
      .style=${colorVar("--_accent", config.accentColor, store.brandingColor)}
    >
      <button
        part="button"
        class="launcher"
        aria-haspopup="dialog"
        aria-expanded=${open}
        @click=${() => void this.show()}
      >
        ${ICONS.points} <span>${config.label}</span>
      </button>
      ${
        inline
          ? html`<div part="panel" class="panel" role="region" aria-labelledby="title">
              ${panel}
            </div>`
          : html`<dialog
              part="panel"
              class="panel"
              aria-labelledby="title"
              @close=${this.closed}
              @keydown=${this.trapFocus}
            >
              ${panel}
            </dialog>`
      }
    </div>`;
  }
}

define("loyalty-launcher", LoyaltyLauncher);

declare global {
  interface HTMLElementTagNameMap {
    "loyalty-launcher": LoyaltyLauncher;
  }
}
