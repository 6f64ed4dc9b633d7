import { html, nothing, type ReactiveControllerHost } from "lit";
import type { Reward } from "@loyalty/shared-types";
import { claimReward, type Customer, type Endpoint } from "./api.js";
import { CLAIMED_EVENT, type RewardClaimedDetail } from "./claim-event.js";
import { hasString, type Locale, type StringKey } from "./i18n.js";

/** Where one reward's claim stands. */
type Claim =
  | { state: "confirming" }
  | { state: "claiming" }
  | {
      state: "claimed";
      code: string;
      expiresAt: string | null;
      minimumOrderAmount: number | null;
      copied?: boolean;
    }
  | { state: "refused"; message: StringKey };

export interface RewardsContext {
  endpoint: Endpoint;
  customer: Customer | undefined;
  locale: Locale;
  /** The balance to measure affordability with; undefined while unknown. */
  balance: number | undefined;
  /** The store's currency, in which a voucher's minimum order is written. */
  currency: string;
  claimButtonText?: string | undefined;
  /** Whether a claim asks first (the configuration's `confirmClaims`; unknown means yes). */
  confirmClaims?: boolean | undefined;
}

/**
 * What a reward's code asks of the order: its minimum amount and, before the claim, how long
 * the code lasts (after it, the date it ends is shown instead).
 */
export function voucherConditions(
  {
    minimumOrderAmount,
    validityDays,
    currency: voucherCurrency,
  }: Pick<Reward["voucher"], "minimumOrderAmount" | "validityDays"> & { currency?: string | null },
  { t, money, days }: Locale,
  storeCurrency: string,
): string[] {
  // A fixed amount's voucher names its currency; the others are in the store's.
  const currency = voucherCurrency ?? storeCurrency;
  return [
    minimumOrderAmount === null
      ? ""
      : t("minimumOrder", { amount: money(minimumOrderAmount, currency) }),
    validityDays === null ? "" : t("validFor", { duration: days(validityDays) }),
  ].filter(Boolean);
}

/**
 * Copies `text` to the clipboard. Where the page may not (an http page, a denied permission),
 * selects `fallback` instead, for Ctrl+C, and answers false.
 */
export async function copyText(
  text: string,
  fallback: Element | null | undefined,
): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (fallback) getSelection()?.selectAllChildren(fallback);
    return false;
  }
}

/**
 * The rewards list of the cart widget and the programme page: each reward with its cost and,
 * for an identified customer, a claim button that turns into the code and a copy button. Every
 * claim goes through here, once.
 */
export class RewardsController {
  private readonly claims = new Map<number, Claim>();
  /** Whose claims these are: another customer or store (a sign-out in a one-page app) sees none. */
  private owner = "";
  /** Said to screen readers: the code just obtained, a copy done. */
  private announcement = "";

  constructor(private readonly host: ReactiveControllerHost & HTMLElement) {}

  /** Whether this list obtained a code for the reward (it keeps showing it). */
  claimed(rewardId: number): boolean {
    return this.claims.get(rewardId)?.state === "claimed";
  }

  private own({ endpoint, customer }: RewardsContext): void {
    const owner = `${endpoint.apiBase} ${endpoint.domain} ${customer?.id ?? ""}`;
    if (owner !== this.owner) {
      this.owner = owner;
      this.claims.clear();
      this.announcement = "";
    }
  }

  /** The claim button: asks first when the configuration says so, else claims. */
  private async ask(context: RewardsContext, reward: Reward): Promise<void> {
    const state = this.claims.get(reward.id)?.state;
    if (state === "claiming" || state === "confirming") return;
    if (context.confirmClaims === false) return this.claim(context, reward);
    this.set(reward.id, { state: "confirming" });
    await this.focus(`#confirm-${reward.id}`);
  }

  /** Nothing spent: the list is as before, focus back on the reward's claim button. */
  private async cancel(rewardId: number): Promise<void> {
    this.claims.delete(rewardId);
    this.host.requestUpdate();
    await this.focus(`#claim-${rewardId}`);
  }

  private async focus(selector: string): Promise<void> {
    await this.host.updateComplete;
    this.host.shadowRoot?.querySelector<HTMLElement>(selector)?.focus();
  }

  async claim(context: RewardsContext, reward: Reward): Promise<void> {
    const { endpoint, customer, locale } = context;
    if (!customer || this.claims.get(reward.id)?.state === "claiming") return;
    const confirmed = this.claims.get(reward.id)?.state === "confirming";
    this.set(reward.id, { state: "claiming" });
    // The confirmation's buttons are gone: keyboard users wait on the claim button instead.
    if (confirmed) void this.focus(`#claim-${reward.id}`);
    try {
      const result = await claimReward(endpoint, customer, reward.id);
      if (result.code === null) {
        // A reason this release does not know yet still gets a message.
        const message = hasString(result.reason) ? result.reason : "claimFailed";
        this.set(reward.id, { state: "refused", message });
        return;
      }
      this.announcement = `${locale.t("yourCode", { name: reward.name })}: ${result.code}`;
      this.set(reward.id, {
        state: "claimed",
        code: result.code,
        expiresAt: result.expiresAt,
        minimumOrderAmount: result.voucher.minimumOrderAmount,
      });
      const detail: RewardClaimedDetail = {
        rewardId: result.rewardId,
        code: result.code,
        pointsSpent: result.pointsSpent,
        balance: result.balance,
        expiresAt: result.expiresAt,
        domain: endpoint.domain,
        customerId: customer.id,
      };
      this.host.dispatchEvent(
        new CustomEvent(CLAIMED_EVENT, { detail, bubbles: true, composed: true }),
      );
      // Keyboard users land on the copy button, whose description is the code.
      await this.focus(`#copy-${reward.id}`);
    } catch {
      this.set(reward.id, { state: "refused", message: "claimFailed" });
    }
  }

  private async copy(rewardId: number, code: string, target: HTMLElement, locale: Locale) {
    const claim = this.claims.get(rewardId);
    if (claim?.state !== "claimed") return;
    if (await copyText(code, target.parentElement?.querySelector("code"))) {
      this.announcement = locale.t("copied");
      this.set(rewardId, { ...claim, copied: true });
    }
  }

  private set(rewardId: number, claim: Claim): void {
    this.claims.set(rewardId, claim);
    this.host.requestUpdate();
  }

  /** The list, cheapest first as the API sends it. */
  render(context: RewardsContext, rewards: Reward[]) {
    this.own(context);
    const { locale, customer, balance, currency } = context;
    const { t, points } = locale;
    return html`<p class="sr-only" role="status">${this.announcement}</p>
      <ul class="rewards" part="rewards">
        ${rewards.map((reward) => {
          const claim = this.claims.get(reward.id);
          const missing = balance === undefined ? 0 : reward.triggerValue - balance;
          const conditions = voucherConditions(reward.voucher, locale, currency);
          let action: unknown = nothing;
          if (claim?.state === "claimed") {
            const after = [
              claim.expiresAt ? t("validUntil", { date: locale.date(claim.expiresAt) }) : "",
              ...voucherConditions(
                {
                  minimumOrderAmount: claim.minimumOrderAmount,
                  validityDays: null,
                  currency: reward.voucher.currency,
                },
                locale,
                currency,
              ),
            ].filter(Boolean);
            action = html`<div part="code" class="code">
              <span>${t("yourCode", { name: reward.name })}</span>
              <code id="code-${reward.id}">${claim.code}</code>
              <button
                id="copy-${reward.id}"
                part="copy-button"
                class="button secondary"
                aria-describedby="code-${reward.id}"
                @click=${(event: Event) =>
                  void this.copy(reward.id, claim.code, event.currentTarget as HTMLElement, locale)}
              >
                ${t(claim.copied ? "copied" : "copy")}
              </button>
              ${after.length ? html`<small part="code-conditions">${after.join(" · ")}</small>` : nothing}
            </div>`;
          } else if (claim?.state === "confirming") {
            // Nothing is spent until the customer confirms; Escape or Cancel leaves it as it was.
            action = html`<div
              part="confirm"
              class="confirm"
              role="group"
              aria-labelledby="ask-${reward.id}"
              @keydown=${(event: KeyboardEvent) => {
                if (event.key === "Escape") {
                  // Only the question closes: not the launcher's panel around the list.
                  event.preventDefault();
                  event.stopPropagation();
                  void this.cancel(reward.id);
                }
              }}
            >
              <p id="ask-${reward.id}">
                ${t("confirmClaim", { points: points(reward.triggerValue), name: reward.name })}
              </p>
              <button
                id="confirm-${reward.id}"
                part="confirm-button"
                class="button"
                aria-describedby=${conditions.length ? `terms-${reward.id}` : nothing}
                @click=${() => void this.claim(context, reward)}
              >
                ${t("confirm")}
              </button>
              <button
                part="cancel-button"
                class="button secondary"
                @click=${() => void this.cancel(reward.id)}
              >
                ${t("cancel")}
              </button>
            </div>`;
          } else if (customer) {
            const claiming = claim?.state === "claiming";
            const name = context.claimButtonText
              ? // The name starts with the merchant's visible text, for voice control (WCAG 2.5.3).
                `${context.claimButtonText}, ${reward.name}, ${points(reward.triggerValue)}`
              : t("claimFor", { name: reward.name, points: points(reward.triggerValue) });
            const described = [
              missing > 0 ? `need-${reward.id}` : "",
              conditions.length ? `terms-${reward.id}` : "",
            ].filter(Boolean);
            // While claiming the button stays focusable (aria-disabled, not disabled): a refusal
            // must not drop a keyboard user's focus to the top of the page.
            action = html`<button
                id="claim-${reward.id}"
                part="claim-button"
                class="button"
                aria-label=${name}
                aria-describedby=${described.length ? described.join(" ") : nothing}
                ?disabled=${missing > 0}
                aria-disabled=${claiming}
                aria-busy=${claiming}
                @click=${() => void this.ask(context, reward)}
              >
                ${claiming ? t("claiming") : context.claimButtonText || t("claim")}
              </button>
              ${
                missing > 0
                  ? html`<small id="need-${reward.id}"
                      >${t("needMore", { points: points(missing) })}</small
                    >`
                  : nothing
              }`;
          }
          return html`<li part="reward" class="reward">
            <div class="reward-text">
              <strong part="reward-name">${reward.name}</strong>
              <span part="reward-cost">${points(reward.triggerValue)}</span>
              ${reward.description ? html`<p>${reward.description}</p>` : nothing}
              ${
                conditions.length
                  ? html`<small part="conditions" id="terms-${reward.id}"
                      >${conditions.join(" · ")}</small
                    >`
                  : nothing
              }
            </div>
            <div class="reward-action">${action}</div>
            ${
              claim?.state === "refused"
                ? html`<p part="message" class="message" role="alert">${t(claim.message)}</p>`
                : nothing
            }
          </li>`;
        })}
      </ul>`;
  }
}
