import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import type { AdminStore } from "@loyalty/shared-types";
import { css, html } from "lit";
import { api } from "../../api/client.js";
import { BoElement, define } from "../../ui/element.js";
import { formatDate, formatNumber } from "../../ui/format.js";
import { taskView } from "../../ui/state-view.js";
import { base } from "../../ui/styles.js";
import { voucherLimit, voucherSummary } from "./voucher-text.js";

/**
 * Every version of a reward's voucher, newest first: its terms, the codes it issued and may
 * still issue, and which one claims use now. Loaded when shown.
 *
 * @summary The voucher versions of a reward.
 */
export class VoucherVersions extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        display: block;
      }
      bo-state-view {
        --bo-state-view-min-size: 6rem;
      }
      ol {
        display: grid;
        gap: 0.5rem;
        margin: 0;
        padding: 0;
        list-style: none;
      }
      li {
        padding: 0.6rem 0.75rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-page);
      }
      .version {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem;
        margin: 0 0 0.25rem;
        font-weight: 700;
      }
      .badge {
        padding: 0.05rem 0.5rem;
        border-radius: 999px;
        background: var(--bo-success-soft);
        color: var(--bo-success);
        font-size: 0.875rem;
      }
      dl {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 1.25rem;
        margin: 0.25rem 0 0;
      }
      dl div {
        display: flex;
        gap: 0.35rem;
      }
      dt {
        color: var(--bo-muted);
      }
      dd {
        margin: 0;
        font-weight: 600;
      }
      @media (forced-colors: active) {
        .badge {
          border: 1px solid CanvasText;
        }
      }
    `,
  ];

  static override properties = {
    store: { attribute: false },
    rewardId: { attribute: false },
    version: { attribute: false },
  };

  declare store: AdminStore;
  declare rewardId: number;
  /** The current version: the list is read again when it changes (a saved edit). */
  declare version: number;

  readonly #versions = new Task(this, {
    task: ([storeId, rewardId], { signal }) =>
      api.call("listVoucherVersions", { params: { storeId, rewardId }, signal }),
    args: () => [this.store.id, this.rewardId, this.version] as const,
  });

  protected override render() {
    const currency = this.store.currency;
    return taskView(this.#versions, {
      label: msg("Loading the voucher versions"),
      isEmpty: (versions) => versions.length === 0,
      empty: () => html`<p>${msg("No voucher version.")}</p>`,
      ready: (versions) =>
        html`<ol>
          ${versions.map(
            (version) =>
              html`<li>
                <p class="version">
                  ${msg(str`Version ${formatNumber(version.version)}`)}
                  ${version.current ? html`<span class="badge">${msg("Current")}</span>` : ""}
                </p>
                <p>${voucherSummary(version, currency)}</p>
                <dl>
                  <div>
                    <dt>${msg("Usage limit:")}</dt>
                    <dd>${voucherLimit(version.usageLimit)}</dd>
                  </div>
                  <div>
                    <dt>${msg("Codes issued:")}</dt>
                    <dd>${formatNumber(version.codesIssued)}</dd>
                  </div>
                  <div>
                    <dt>${msg("Remaining:")}</dt>
                    <dd>
                      ${
                        version.codesRemaining === null
                          ? msg("No limit")
                          : formatNumber(version.codesRemaining)
                      }
                    </dd>
                  </div>
                  <div>
                    <dt>${msg("Since:")}</dt>
                    <dd>${formatDate(version.createdAt)}</dd>
                  </div>
                </dl>
              </li>`,
          )}
        </ol>`,
    });
  }
}

define("bo-voucher-versions", VoucherVersions);

declare global {
  interface HTMLElementTagNameMap {
    "bo-voucher-versions": VoucherVersions;
  }
}
