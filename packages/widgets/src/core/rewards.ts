import { html, nothing, type ReactiveControllerHost } from "lit";
import type { Reward } from "@loyalty/shared-types";
import { claimReward, type Customer, type Endpoint } from "./api.js";
import { CLAIMED_EVENT, type RewardClaimedDetail } from "./claim-event.js";
import { hasString, type Locale, type StringKey } from "./i18n.js";

/** Where one reward's claim stands. */
type Claim =
  | { state: "claiming" }
  | { state: "claimed"; code: string; expiresAt: string | null; copied?: boolean }
  | { state: "refused"; message: StringKey };

export interface RewardsContext {
  endpoint: Endpoint;
  customer: Customer | undefined;
  locale: Locale;
  /** The balance to measure affordability with; undefined while unknown. */
  balance: number | undefined;
  claimButtonText?: string | undefined;
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

  async claim(context: RewardsContext, reward: Reward): Promise<void> {
    const { endpoint, customer, locale } = context;
    if (!customer || this.claims.get(reward.id)?.state === "claiming") return;
    this.set(reward.id, { state: "claiming" });
    try {
      const result = await claimReward(endpoint, customer, reward.id);
      if (result.code === null) {
        // A reason this release does not know yet still gets a message.
        const message = hasString(result.reason) ? result.reason : "claimFailed";
        this.set(reward.id, { state: "refused", message });
        return;
      }
      this.announcement = `${locale.t("yourCode", { name: reward.name })}: ${result.code}`;
      this.set(reward.id, { state: "claimed", code: result.code, expiresAt: result.expiresAt });
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
      await this.host.updateComplete;
      this.host.shadowRoot?.querySelector<HTMLElement>(`#copy-${reward.id}`)?.focus();
    } catch {
      this.set(reward.id, { state: "refused", message: "claimFailed" });
    }
  }

  private async copy(rewardId: number, code: string, target: HTMLElement, locale: Locale) {
    const claim = this.claims.get(rewardId);
    if (claim?.state !== "claimed") return;
    try {
      await navigator.clipboard.writeText(code);
      this.announcement = locale.t("copied");
      this.set(rewardId, { ...claim, copied: true });
    } catch {
      // No clipboard (an http page, a denied permission): select the code for Ctrl+C instead.
      const codeElement = target.parentElement?.querySelector("code");
      if (codeElement) getSelection()?.selectAllChildren(codeElement);
    }
  }

  private set(rewardId: number, claim: Claim): void {
    this.claims.set(rewardId, claim);
    this.host.requestUpdate();
  }

  /** The list, cheapest first as the API sends it. */
  render(context: RewardsContext, rewards: Reward[]) {
    this.own(context);
    const { locale, customer, balance } = context;
    const { t, points } = locale;
    return html`<p class="sr-only" role="status">${this.announcement}</p>
      <ul class="rewards" part="rewards">
        ${rewards.map((reward) => {
          const claim = this.claims.get(reward.id);
          const missing = balance === undefined ? 0 : reward.triggerValue - balance;
          let action: unknown = nothing;
          if (claim?.state === "claimed") {
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
              ${
                claim.expiresAt
                  ? html`<small>${t("validUntil", { date: locale.date(claim.expiresAt) })}</small>`
                  : nothing
              }
            </div>`;
          } else if (customer) {
            const claiming = claim?.state === "claiming";
            const name = context.claimButtonText
              ? // The name starts with the merchant's visible text, for voice control (WCAG 2.5.3).
                `${context.claimButtonText}, ${reward.name}, ${points(reward.triggerValue)}`
              : t("claimFor", { name: reward.name, points: points(reward.triggerValue) });
            // While claiming the button stays focusable (aria-disabled, not disabled): a refusal
            // must not drop a keyboard user's focus to the top of the page.
            action = html`<button
                part="claim-button"
                class="button"
                aria-label=${name}
                aria-describedby=${missing > 0 ? `need-${reward.id}` : nothing}
                ?disabled=${missing > 0}
                aria-disabled=${claiming}
                aria-busy=${claiming}
                @click=${() => void this.claim(context, reward)}
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
