import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import type { AdminReward } from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../api/client.js";
import { StoreScreen } from "../app/screen.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { define } from "../ui/element.js";
import { formatNumber, formatPoints } from "../ui/format.js";
import { announce } from "../ui/live-region.js";
import { problemMessage } from "../ui/problem-message.js";
import { taskView } from "../ui/state-view.js";
import { base, screenStyles } from "../ui/styles.js";
import "./rewards/reward-form.js";
import "./rewards/voucher-versions.js";
import {
  codesRemaining,
  voucherBenefit,
  voucherLimit,
  voucherMinimum,
  voucherValidity,
} from "./rewards/voucher-text.js";

/** The catalogue's order, the storefront's: cheapest first. */
function byCost(a: AdminReward, b: AdminReward): number {
  return a.triggerValue - b.triggerValue || a.name.localeCompare(b.name) || a.id - b.id;
}

/**
 * Rewards: what customers spend their points on. The catalogue (active or not) with each
 * reward's cost, voucher terms and codes; creating and editing a reward (a changed voucher
 * makes a new version: codes already issued keep their terms), activating and deactivating it,
 * and the history of its voucher's versions.
 */
export class RewardsScreen extends StoreScreen {
  static override styles = [
    base,
    screenStyles,
    css`
      .toolbar {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin: 0 0 var(--bo-space);
      }
      .creating {
        margin: 0 0 var(--bo-space);
      }
      bo-state-view {
        --bo-state-view-min-size: 24rem;
      }
      .rewards {
        display: grid;
        gap: var(--bo-space);
        margin: 0;
        padding: 0;
        list-style: none;
      }
      .reward {
        display: grid;
        gap: 0.75rem;
        min-inline-size: 0;
      }
      .reward--inactive {
        background: var(--bo-page);
      }
      .reward__head {
        display: flex;
        align-items: flex-start;
        gap: 0.75rem;
      }
      .reward__image {
        flex: none;
        inline-size: 4rem;
        block-size: 4rem;
        border-radius: var(--bo-radius);
        background: var(--bo-page);
        overflow: hidden;
      }
      .reward__image img {
        inline-size: 100%;
        block-size: 100%;
        object-fit: cover;
      }
      .reward__title {
        display: grid;
        gap: 0.25rem;
        min-inline-size: 0;
      }
      .reward__title h2 {
        margin: 0;
        overflow-wrap: anywhere;
      }
      .reward__description {
        margin: 0;
        color: var(--bo-muted);
        overflow-wrap: anywhere;
      }
      .status {
        justify-self: start;
        padding: 0.05rem 0.6rem;
        border-radius: 999px;
        font-size: 0.875rem;
        font-weight: 700;
      }
      .status--active {
        background: var(--bo-success-soft);
        color: var(--bo-success);
      }
      .status--inactive {
        background: var(--bo-skeleton);
        color: var(--bo-text);
      }
      .terms {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr));
        gap: 0.5rem 1rem;
        margin: 0;
      }
      .terms div {
        min-inline-size: 0;
      }
      .terms dt {
        color: var(--bo-muted);
        font-size: 0.875rem;
      }
      .terms dd {
        margin: 0;
        font-weight: 600;
        overflow-wrap: anywhere;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      details summary {
        display: inline-flex;
        align-items: center;
        min-block-size: 2.5rem;
        cursor: pointer;
        color: var(--bo-accent);
        font-weight: 600;
      }
      details[open] summary {
        margin-block-end: 0.5rem;
      }
      .editing {
        padding-block-start: 0.75rem;
        border-block-start: 1px solid var(--bo-border);
      }
      .editing h3 {
        margin: 0 0 0.75rem;
        font-size: 1.0625rem;
      }
      @media (forced-colors: active) {
        .status {
          border: 1px solid CanvasText;
        }
      }
    `,
  ];

  static override properties = {
    ...StoreScreen.properties,
    rewards: { state: true },
    creating: { state: true },
    editing: { state: true },
    pending: { state: true },
    failures: { state: true },
    openVersions: { state: true },
    loadedImages: { state: true },
  };

  /** The catalogue as loaded, then as this screen changed it. */
  declare rewards: AdminReward[] | undefined;
  declare creating: boolean;
  /** The reward whose edit form is open. */
  declare editing: number | undefined;
  /** Rewards whose activation is being changed. */
  declare pending: ReadonlySet<number>;
  /** A failed activation change, per reward. */
  declare failures: ReadonlyMap<number, unknown>;
  declare openVersions: ReadonlySet<number>;
  declare loadedImages: ReadonlySet<string>;

  constructor() {
    super();
    this.creating = false;
    this.pending = new Set();
    this.failures = new Map();
    this.openVersions = new Set();
    this.loadedImages = new Set();
  }

  readonly #rewards = new Task(this, {
    task: ([storeId], { signal }) => api.call("listAdminRewards", { params: { storeId }, signal }),
    args: () => [this.store.id] as const,
    onComplete: (rewards) => (this.rewards = [...rewards].sort(byCost)),
  });

  protected override get screenTitle(): string {
    return msg("Rewards");
  }

  protected override render() {
    return html`<h1>${this.screenTitle}</h1>
      <p class="intro">
        ${msg(
          "What customers spend their points on: each reward's cost in points and its voucher.",
        )}
      </p>
      <div class="toolbar">
        <button
          class="button button--primary"
          type="button"
          id="new-reward"
          aria-expanded=${this.creating ? "true" : "false"}
          aria-controls="create"
          @click=${this.#toggleCreate}
        >
          ${msg("New reward")}
        </button>
      </div>
      <div id="create">
        ${
          this.creating
            ? html`<section class="card creating" aria-labelledby="create-heading">
                <h2 id="create-heading">${msg("New reward")}</h2>
                <bo-reward-form
                  .store=${this.store}
                  @saved=${this.#created}
                  @cancel=${this.#closeCreate}
                ></bo-reward-form>
              </section>`
            : nothing
        }
      </div>
      ${taskView(this.#rewards, {
        label: msg("Loading the rewards"),
        isEmpty: (rewards) => (this.rewards ?? rewards).length === 0,
        empty: () =>
          html`<p>
            ${msg("No reward yet. Create the first one: customers spend their points on rewards.")}
          </p>`,
        ready: (rewards) =>
          html`<ul class="rewards" aria-label=${msg("Catalogue")}>
            ${(this.rewards ?? rewards).map((reward) => html`<li>${this.#renderReward(reward)}</li>`)}
          </ul>`,
      })}`;
  }

  #renderReward(reward: AdminReward) {
    const { voucher } = reward;
    const headingId = `reward-${reward.id}`;
    const editing = this.editing === reward.id;
    const pending = this.pending.has(reward.id);
    const failure = this.failures.get(reward.id);
    const image = reward.imageUrl?.startsWith("https://") ? reward.imageUrl : undefined;
    return html`<article
      class="card reward ${reward.active ? "" : "reward--inactive"}"
      aria-labelledby=${headingId}
    >
      <div class="reward__head">
        ${
          image
            ? html`<div class="reward__image">
                <img
                  src=${image}
                  alt=""
                  ?hidden=${!this.loadedImages.has(image)}
                  @load=${() => (this.loadedImages = new Set(this.loadedImages).add(image))}
                />
              </div>`
            : nothing
        }
        <div class="reward__title">
          <h2 id=${headingId}>${reward.name}</h2>
          <span class="status ${reward.active ? "status--active" : "status--inactive"}"
            >${reward.active ? msg("Active") : msg("Inactive")}</span
          >
        </div>
      </div>
      ${
        reward.description
          ? html`<p class="reward__description">${reward.description}</p>`
          : nothing
      }
      <dl class="terms">
        <div>
          <dt>${msg("Cost")}</dt>
          <dd>${formatPoints(reward.triggerValue)}</dd>
        </div>
        <div>
          <dt>${msg("Voucher")}</dt>
          <dd>${voucherBenefit(voucher)}</dd>
        </div>
        <div>
          <dt>${msg("Minimum order")}</dt>
          <dd>${voucherMinimum(voucher, this.store.currency)}</dd>
        </div>
        <div>
          <dt>${msg("Validity")}</dt>
          <dd>${voucherValidity(voucher)}</dd>
        </div>
        <div>
          <dt>${msg("Usage limit")}</dt>
          <dd>${voucherLimit(voucher.usageLimit)}</dd>
        </div>
        <div>
          <dt>${msg("Codes issued")}</dt>
          <dd>${formatNumber(voucher.codesIssued)}</dd>
        </div>
        <div>
          <dt>${msg("Codes remaining")}</dt>
          <dd>${codesRemaining(voucher.usageLimit, voucher.codesIssued)}</dd>
        </div>
      </dl>
      ${
        failure === undefined
          ? nothing
          : html`<div class="alert" role="alert">${problemMessage(failure)}</div>`
      }
      <div class="actions">
        <button
          class="button"
          type="button"
          data-edit=${reward.id}
          aria-expanded=${editing ? "true" : "false"}
          aria-controls="edit-${reward.id}"
          @click=${() => this.#toggleEdit(reward)}
        >
          ${msg("Edit")}<span class="visually-hidden"> ${reward.name}</span>
        </button>
        <button
          class="button"
          type="button"
          aria-disabled=${pending ? "true" : "false"}
          @click=${() => void this.#setActive(reward, !reward.active)}
        >
          ${reward.active ? msg("Deactivate") : msg("Activate")}<span class="visually-hidden">
            ${reward.name}</span
          >
        </button>
      </div>
      <div id="edit-${reward.id}">
        ${
          editing
            ? html`<div class="editing">
                <h3>${msg(str`Edit “${reward.name}”`)}</h3>
                <bo-reward-form
                  .store=${this.store}
                  .reward=${reward}
                  @saved=${(event: CustomEvent<AdminReward>) => this.#edited(event.detail)}
                  @cancel=${() => void this.#closeEdit(reward.id)}
                ></bo-reward-form>
              </div>`
            : nothing
        }
      </div>
      <details
        @toggle=${(event: Event) => this.#toggleVersions(reward.id, event)}
        ?open=${this.openVersions.has(reward.id)}
      >
        <summary>${msg(str`Voucher versions (current: ${formatNumber(voucher.version)})`)}</summary>
        ${
          this.openVersions.has(reward.id)
            ? html`<bo-voucher-versions
                .store=${this.store}
                .rewardId=${reward.id}
                .version=${voucher.version}
              ></bo-voucher-versions>`
            : nothing
        }
      </details>
    </article>`;
  }

  #replace(saved: AdminReward): void {
    const others = (this.rewards ?? []).filter((reward) => reward.id !== saved.id);
    this.rewards = [...others, saved].sort(byCost);
  }

  #toggleCreate(): void {
    if (this.creating) this.#closeCreate();
    else this.creating = true;
  }

  #closeCreate(): void {
    this.creating = false;
    this.renderRoot.querySelector<HTMLElement>("#new-reward")?.focus();
  }

  async #created(event: CustomEvent<AdminReward>): Promise<void> {
    const saved = event.detail;
    this.creating = false;
    this.#replace(saved);
    if (this.#rewards.value === undefined) await this.#rewards.run();
    await this.updateComplete;
    // The new reward, where the user can check it and go on from.
    const heading = this.renderRoot.querySelector<HTMLElement>(`#reward-${saved.id}`);
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
      heading.scrollIntoView({ block: "nearest" });
    }
  }

  #toggleEdit(reward: AdminReward): void {
    if (this.editing === reward.id) void this.#closeEdit(reward.id);
    else this.editing = reward.id;
  }

  async #closeEdit(rewardId: number): Promise<void> {
    this.editing = undefined;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(`[data-edit="${rewardId}"]`)?.focus();
  }

  #edited(saved: AdminReward): void {
    this.#replace(saved);
    void this.#closeEdit(saved.id);
  }

  #toggleVersions(rewardId: number, event: Event): void {
    const open = (event.target as HTMLDetailsElement).open;
    if (open === this.openVersions.has(rewardId)) return;
    const versions = new Set(this.openVersions);
    if (open) versions.add(rewardId);
    else versions.delete(rewardId);
    this.openVersions = versions;
  }

  async #setActive(reward: AdminReward, active: boolean): Promise<void> {
    if (this.pending.has(reward.id)) return;
    if (!active) {
      const confirmed = await confirmAction({
        heading: msg(str`Deactivate “${reward.name}”?`),
        body: msg(
          "Customers will no longer see it, nor claim it. Codes already issued stay as they are; you can activate it again later.",
        ),
        confirmLabel: msg("Deactivate"),
        destructive: true,
      });
      if (!confirmed) return;
    }
    this.pending = new Set(this.pending).add(reward.id);
    const failures = new Map(this.failures);
    failures.delete(reward.id);
    this.failures = failures;
    try {
      const saved = await api.call("updateReward", {
        params: { storeId: this.store.id, rewardId: reward.id },
        body: { active },
      });
      this.#replace(saved);
      announce(
        active ? msg(str`“${reward.name}” is active.`) : msg(str`“${reward.name}” is deactivated.`),
      );
    } catch (error) {
      this.failures = new Map(this.failures).set(reward.id, error);
    } finally {
      const pending = new Set(this.pending);
      pending.delete(reward.id);
      this.pending = pending;
    }
  }
}

define("bo-rewards-screen", RewardsScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-rewards-screen": RewardsScreen;
  }
}
