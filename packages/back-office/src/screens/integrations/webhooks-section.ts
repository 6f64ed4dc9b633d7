import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import {
  EVENT_TYPES,
  WEBHOOK_SIGNATURE_HEADER,
  type EventType,
  type WebhookEndpoint,
} from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../../api/client.js";
import { confirmAction } from "../../ui/confirm-dialog.js";
import "../../ui/copy-button.js";
import { BoElement, define } from "../../ui/element.js";
import {
  focusFirstProblem,
  formErrors,
  NO_ERRORS,
  type FormErrors,
} from "../../ui/field-errors.js";
import { formText } from "../../ui/form-data.js";
import { fieldStyles, inputField } from "../../ui/form-field.js";
import { formProblem } from "../../ui/form-problem.js";
import { formatDate } from "../../ui/format.js";
import { announce } from "../../ui/live-region.js";
import { problemMessage } from "../../ui/problem-message.js";
import { taskView } from "../../ui/state-view.js";
import { base } from "../../ui/styles.js";
import { eventLabel } from "./event-text.js";
import { focusAfterUpdate } from "./form-parts.js";
import { integrationStyles } from "./integration-styles.js";
import "./webhook-deliveries.js";

/**
 * The store's webhook endpoints: the list, each with its delivery log on demand; a new
 * endpoint (its signing secret shown once, with a copy button); deletion after confirmation.
 *
 * @summary The webhook endpoints section of the integrations screen.
 */
export class WebhooksSection extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    integrationStyles,
    css`
      .endpoints {
        --bo-state-view-min-size: 10rem;
      }
      .url {
        font-weight: 700;
        overflow-wrap: anywhere;
      }
      form {
        max-inline-size: 44rem;
      }
      .fieldset-error {
        margin-block-end: 0.75rem;
      }
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    endpoints: { state: true },
    created: { state: true },
    open: { state: true },
    errors: { state: true },
    creating: { state: true },
    deleteError: { state: true },
  };

  declare storeId: number;
  declare endpoints: WebhookEndpoint[];
  /** The endpoint just added, with its signing secret (shown this once). */
  declare created: (WebhookEndpoint & { secret: string }) | undefined;
  /** The endpoints whose delivery log is open. */
  declare open: ReadonlySet<number>;
  declare errors: FormErrors;
  declare creating: boolean;
  declare deleteError: unknown;

  readonly #list = new Task(this, {
    task: ([storeId], { signal }) =>
      api.call("listWebhookEndpoints", { params: { storeId }, signal }),
    args: () => [this.storeId] as const,
    onComplete: (endpoints) => {
      this.endpoints = endpoints;
    },
  });

  constructor() {
    super();
    this.endpoints = [];
    this.open = new Set();
    this.errors = NO_ERRORS;
    this.creating = false;
  }

  protected override render() {
    return html`<section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">${msg("Webhook endpoints")}</h2>
      <p class="intro">
        ${msg(
          "The service posts the programme's events to these addresses, signed with each endpoint's secret, and tries again when an endpoint does not answer.",
        )}
      </p>
      ${this.#renderCreated()}
      ${
        this.deleteError === undefined
          ? nothing
          : html`<div class="alert" role="alert" id="delete-error" tabindex="-1">
              ${problemMessage(this.deleteError)}
            </div>`
      }
      ${taskView(this.#list, {
        class: "endpoints",
        label: msg("Loading the webhook endpoints"),
        isEmpty: () => this.endpoints.length === 0,
        empty: () => html`<p>${msg("No webhook endpoint yet: add one below.")}</p>`,
        ready: () =>
          html`<ul class="items" aria-labelledby="webhooks-heading">
            ${this.endpoints.map((endpoint) => this.#renderEndpoint(endpoint))}
          </ul>`,
      })}
      ${this.#renderForm()}
    </section>`;
  }

  #renderCreated() {
    const created = this.created;
    if (!created) return nothing;
    return html`<div
      class="secret"
      id="created-endpoint"
      role="group"
      aria-labelledby="created-endpoint-heading"
      tabindex="-1"
    >
      <h3 id="created-endpoint-heading">${msg("Endpoint added: its signing secret")}</h3>
      <p>
        <strong class="danger-text">${msg("Copy it now: you will not see it again.")}</strong>
        ${msg(
          html`The endpoint at <code>${created.url}</code> needs it to check the
            <code>${WEBHOOK_SIGNATURE_HEADER}</code> header of each delivery.`,
        )}
      </p>
      <code class="secret__value">${created.secret}</code>
      <div class="actions">
        <bo-copy-button .value=${created.secret} label=${msg("Copy the secret")}></bo-copy-button>
        <button class="button" type="button" @click=${() => void this.#dismissCreated()}>
          ${msg("I have copied it")}
        </button>
      </div>
    </div>`;
  }

  #renderEndpoint(endpoint: WebhookEndpoint) {
    const open = this.open.has(endpoint.id);
    const events =
      endpoint.events.length === 0
        ? msg("Every event")
        : endpoint.events.map((event) => eventLabel(event)).join(", ");
    return html`<li
      class="item ${endpoint.active ? "" : "item--inactive"}"
      id=${`endpoint-${endpoint.id}`}
      tabindex="-1"
    >
      <div class="item__head">
        <span class="url">${endpoint.url}</span>
        ${
          endpoint.active
            ? html`<span class="badge badge--ok"
                >${msg("Active", { id: "webhook-endpoint-active" })}</span
              >`
            : html`<span class="badge badge--muted">${msg("Deleted")}</span>`
        }
      </div>
      <dl class="facts">
        <div>
          <dt>${msg("Events")}</dt>
          <dd>${events}</dd>
        </div>
        <div>
          <dt>${msg("Added")}</dt>
          <dd>${formatDate(endpoint.createdAt)}</dd>
        </div>
        ${
          endpoint.active
            ? nothing
            : html`<div>
                <dt>${msg("Deleted")}</dt>
                <dd>${formatDate(endpoint.updatedAt)}</dd>
              </div>`
        }
      </dl>
      <div class="actions">
        <button
          class="button"
          type="button"
          aria-expanded=${open ? "true" : "false"}
          aria-controls=${`deliveries-${endpoint.id}`}
          @click=${() => this.#toggle(endpoint.id)}
        >
          ${open ? msg("Hide the delivery log") : msg("Show the delivery log")}<span
            class="visually-hidden"
          >
            ${endpoint.url}</span
          >
        </button>
        ${
          endpoint.active
            ? html`<button class="button" type="button" @click=${() => void this.#delete(endpoint)}>
                ${msg("Delete")}<span class="visually-hidden"> ${endpoint.url}</span>
              </button>`
            : nothing
        }
      </div>
      <div id=${`deliveries-${endpoint.id}`}>
        ${
          open
            ? html`<bo-webhook-deliveries
                .storeId=${this.storeId}
                .endpointId=${endpoint.id}
                .url=${endpoint.url}
                .active=${endpoint.active}
              ></bo-webhook-deliveries>`
            : nothing
        }
      </div>
    </li>`;
  }

  #renderForm() {
    const fields = this.errors.fields;
    const eventsError = fields["events"];
    return html`<form
      class="card"
      novalidate
      aria-labelledby="new-endpoint-form"
      @submit=${this.#create}
    >
      <h3 id="new-endpoint-form">${msg("Add an endpoint")}</h3>
      ${formProblem(this.errors)}
      ${inputField({
        name: "url",
        label: msg("URL"),
        type: "url",
        required: true,
        autocomplete: "off",
        spellcheck: false,
        hint: msg("Where to post the events, such as https://shop.example/webhooks/loyalty."),
        error: fields["url"],
      })}
      <fieldset aria-describedby=${eventsError ? "events-hint events-error" : "events-hint"}>
        <legend>${msg("Events")}</legend>
        <p class="field__hint" id="events-hint">
          ${msg("None checked: every event, those added later too.")}
        </p>
        <div class="checks">
          ${EVENT_TYPES.map(
            (event) =>
              html`<label class="check">
                <input type="checkbox" name="events" value=${event} />
                <span>${eventLabel(event)}</span>
              </label>`,
          )}
        </div>
        ${
          eventsError
            ? html`<p class="field__error fieldset-error" id="events-error">
                <span class="field__error-icon" aria-hidden="true">!</span>${eventsError}
              </p>`
            : nothing
        }
      </fieldset>
      <button class="button button--primary" aria-disabled=${this.creating ? "true" : "false"}>
        ${this.creating ? msg("Adding…") : msg("Add the endpoint")}
      </button>
    </form>`;
  }

  #toggle(id: number): void {
    const open = new Set(this.open);
    if (!open.delete(id)) open.add(id);
    this.open = open;
  }

  async #create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.creating) return;
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    this.creating = true;
    try {
      const created = await api.call("createWebhookEndpoint", {
        params: { storeId: this.storeId },
        body: {
          url: formText(data, "url"),
          events: data.getAll("events").map(String) as EventType[],
        },
      });
      const { secret: _secret, ...listed } = created;
      this.endpoints = [...this.endpoints, listed];
      this.created = created;
      this.errors = NO_ERRORS;
      form.reset();
      await focusAfterUpdate(this, "#created-endpoint");
    } catch (error) {
      this.errors = formErrors(error, ["url", "events"]);
      await this.updateComplete;
      focusFirstProblem(form);
    } finally {
      this.creating = false;
    }
  }

  async #dismissCreated(): Promise<void> {
    const id = this.created?.id;
    this.created = undefined;
    await focusAfterUpdate(this, `#endpoint-${id}`);
  }

  async #delete(endpoint: WebhookEndpoint): Promise<void> {
    const confirmed = await confirmAction({
      heading: msg("Delete this webhook endpoint?"),
      body: msg(
        str`Nothing more is delivered to ${endpoint.url}: deliveries waiting for a retry are given up. Its delivery log stays readable.`,
      ),
      confirmLabel: msg("Delete the endpoint"),
      destructive: true,
    });
    if (!confirmed) return;
    this.deleteError = undefined;
    try {
      const deleted = await api.call("deleteWebhookEndpoint", {
        params: { storeId: this.storeId, endpointId: endpoint.id },
      });
      this.endpoints = this.endpoints.map((current) =>
        current.id === endpoint.id ? deleted : current,
      );
      if (this.created?.id === endpoint.id) this.created = undefined;
      announce(msg(str`Endpoint ${endpoint.url} deleted.`));
      await focusAfterUpdate(this, `#endpoint-${endpoint.id}`);
    } catch (error) {
      this.deleteError = error;
      await focusAfterUpdate(this, "#delete-error");
    }
  }
}

define("bo-webhooks-section", WebhooksSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-webhooks-section": WebhooksSection;
  }
}
