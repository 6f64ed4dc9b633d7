import { msg, str } from "@lit/localize";
import type { WebhookDelivery } from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues } from "lit";
import { api, type RequestQuery } from "../../api/client.js";
import { currentLocale } from "../../i18n/locale.js";
import { BoElement, define } from "../../ui/element.js";
import { fieldStyles, selectField } from "../../ui/form-field.js";
import { formatDateTime, formatNumber } from "../../ui/format.js";
import { announce } from "../../ui/live-region.js";
import { loadMoreButton, PagedList } from "../../ui/paged-list.js";
import { problemMessage } from "../../ui/problem-message.js";
import "../../ui/state-view.js";
import { base } from "../../ui/styles.js";
import { eventLabel } from "./event-text.js";
import { integrationStyles } from "./integration-styles.js";

type Status = WebhookDelivery["status"];

function statusLabel(status: Status): string {
  switch (status) {
    case "pending":
      return msg("Pending");
    case "delivered":
      return msg("Delivered");
    case "failed":
      return msg("Failed");
  }
}

const STATUS_BADGE: Record<Status, string> = {
  pending: "badge--muted",
  delivered: "badge--ok",
  failed: "badge--bad",
};

/**
 * The delivery log of one webhook endpoint, newest first: each event's status, attempts, last
 * answer and next try, filtered by status, page by page, and "Send again" on a delivery.
 *
 * @summary The delivery log of a webhook endpoint.
 */
export class WebhookDeliveries extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    integrationStyles,
    css`
      :host {
        margin-block: 0.5rem 0;
        padding-block-start: 0.75rem;
      }
      .deliveries {
        --bo-state-view-min-size: 10rem;
      }
      .filter {
        max-inline-size: 16rem;
      }
      .item {
        background: var(--bo-page);
      }
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    endpointId: { type: Number },
    /** The endpoint's URL: names the log. */
    url: {},
    /** A deleted endpoint's deliveries are not sent again. */
    active: { type: Boolean },
    status: { state: true },
    resendError: { state: true },
  };

  declare storeId: number;
  declare endpointId: number;
  declare url: string;
  declare active: boolean;
  /** The status the log is filtered on; "" for every delivery. */
  declare status: Status | "";
  declare resendError: { id: number; error: unknown } | undefined;

  readonly #list = new PagedList<WebhookDelivery>(this, async (cursor, signal) => {
    const query: RequestQuery<"listWebhookDeliveries"> = {
      ...(this.status ? { status: this.status } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const page = await api.call("listWebhookDeliveries", {
      params: { storeId: this.storeId, endpointId: this.endpointId },
      query,
      signal,
    });
    return { items: page.deliveries, nextCursor: page.nextCursor };
  });

  constructor() {
    super();
    this.url = "";
    this.active = true;
    this.status = "";
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has("storeId") || changed.has("endpointId") || changed.has("status")) {
      void this.#list.reload();
    }
  }

  protected override render() {
    const list = this.#list;
    const headingId = `deliveries-heading-${this.endpointId}`;
    return html`<h3 id=${headingId}>
        ${msg("Delivery log")}<span class="visually-hidden"> ${this.url}</span>
      </h3>
      <div class="filter" @change=${this.#filter}>
        ${selectField({
          name: "status",
          id: `status-${this.endpointId}`,
          label: msg("Show"),
          value: this.status,
          options: [
            { value: "", label: msg("Every delivery") },
            { value: "failed", label: msg("Failed") },
            { value: "pending", label: msg("Pending") },
            { value: "delivered", label: msg("Delivered") },
          ],
        })}
      </div>
      <bo-state-view
        class="deliveries"
        aria-busy=${list.refreshing ? "true" : "false"}
        .state=${list.state}
        .error=${list.error}
        .label=${msg("Loading the deliveries")}
        @retry=${() => void list.reload()}
      >
        ${
          list.state === "empty"
            ? html`<p>
                ${this.status ? msg("No delivery with this status.") : msg("Nothing delivered yet.")}
              </p>`
            : html`<ul class="items" aria-labelledby=${headingId}>
                ${list.items.map((delivery) => this.#renderDelivery(delivery))}
              </ul>`
        }
      </bo-state-view>
      ${loadMoreButton(list, msg("Load more deliveries"), () => void this.#more())}`;
  }

  #renderDelivery(delivery: WebhookDelivery) {
    const english = currentLocale() === "en" ? nothing : "en";
    const answer = [
      delivery.lastStatusCode === null ? undefined : `HTTP ${delivery.lastStatusCode}`,
      delivery.lastError ?? undefined,
    ].filter(Boolean);
    return html`<li class="item" tabindex="-1" data-delivery=${delivery.id}>
      <div class="item__head">
        <span class="item__title">${eventLabel(delivery.event)}</span>
        <span class="badge ${STATUS_BADGE[delivery.status]}">${statusLabel(delivery.status)}</span>
        <span class="muted">${formatDateTime(delivery.createdAt)}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>${msg("Attempts")}</dt>
          <dd>${formatNumber(delivery.attempts)}</dd>
        </div>
        <div>
          <dt>${msg("Last answer")}</dt>
          <dd lang=${delivery.lastError ? english : nothing}>
            ${answer.length > 0 ? answer.join(" · ") : msg("None yet")}
          </dd>
        </div>
        <div>
          <dt>${delivery.deliveredAt ? msg("Delivered") : msg("Next try")}</dt>
          <dd>
            ${
              delivery.deliveredAt
                ? formatDateTime(delivery.deliveredAt)
                : delivery.nextAttemptAt
                  ? formatDateTime(delivery.nextAttemptAt)
                  : msg("None: given up")
            }
          </dd>
        </div>
        <div>
          <dt>${msg("Event id")}</dt>
          <dd>${delivery.eventId}</dd>
        </div>
      </dl>
      ${
        this.resendError?.id === delivery.id
          ? html`<div class="alert" role="alert">${problemMessage(this.resendError.error)}</div>`
          : nothing
      }
      ${
        this.active
          ? html`<div class="actions">
              <button class="button" type="button" @click=${() => void this.#resend(delivery)}>
                ${msg("Send again")}<span class="visually-hidden">
                  ${msg(str`event ${delivery.eventId}`)}</span
                >
              </button>
            </div>`
          : nothing
      }
    </li>`;
  }

  #filter(event: Event): void {
    this.status = (event.target as HTMLSelectElement).value as Status | "";
  }

  async #more(): Promise<void> {
    const first = await this.#list.loadMore();
    if (first === undefined) return;
    await this.updateComplete;
    this.renderRoot.querySelectorAll<HTMLElement>("li[data-delivery]")[first]?.focus();
  }

  async #resend(delivery: WebhookDelivery): Promise<void> {
    this.resendError = undefined;
    try {
      const updated = await api.call("redeliverWebhook", {
        params: { storeId: this.storeId, endpointId: this.endpointId, deliveryId: delivery.id },
      });
      this.#list.replace((item) => item.id === delivery.id, updated);
      announce(msg(str`Event ${delivery.eventId} will be sent again: its delivery is pending.`));
    } catch (error) {
      this.resendError = { id: delivery.id, error };
    }
  }
}

define("bo-webhook-deliveries", WebhookDeliveries);

declare global {
  interface HTMLElementTagNameMap {
    "bo-webhook-deliveries": WebhookDeliveries;
  }
}
