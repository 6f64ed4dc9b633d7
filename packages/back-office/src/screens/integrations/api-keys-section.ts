import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import type { ApiKey, CreatedApiKey } from "@loyalty/shared-types";
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
import { focusAfterUpdate } from "./form-parts.js";
import { integrationStyles } from "./integration-styles.js";

/** A key's name in lists and questions: its label, else its id. */
function keyName(key: ApiKey): string {
  return key.label || key.id;
}

/**
 * The store's API keys: the list (active and revoked), a new key (shown once, with a copy
 * button), and revocation after a confirmation that names the key.
 *
 * @summary The API keys section of the integrations screen.
 */
export class ApiKeysSection extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    integrationStyles,
    css`
      .keys {
        --bo-state-view-min-size: 13rem;
      }
      .create {
        display: flex;
        flex-wrap: wrap;
        align-items: flex-end;
        gap: 0 0.75rem;
        max-inline-size: 40rem;
      }
      .create .field {
        flex: 1 1 14rem;
      }
      .create .button {
        margin-block-end: var(--bo-space);
        min-block-size: 2.75rem;
      }
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    keys: { state: true },
    created: { state: true },
    errors: { state: true },
    creating: { state: true },
    revokeError: { state: true },
  };

  declare storeId: number;
  /** The keys as last read or changed here. */
  declare keys: ApiKey[];
  /** The key just created: its secret is shown this once. */
  declare created: CreatedApiKey | undefined;
  declare errors: FormErrors;
  declare creating: boolean;
  declare revokeError: unknown;

  readonly #list = new Task(this, {
    task: ([storeId], { signal }) => api.call("listApiKeys", { params: { storeId }, signal }),
    args: () => [this.storeId] as const,
    onComplete: (keys) => {
      this.keys = keys;
    },
  });

  constructor() {
    super();
    this.keys = [];
    this.errors = NO_ERRORS;
    this.creating = false;
  }

  protected override render() {
    return html`<section aria-labelledby="keys-heading">
      <h2 id="keys-heading">${msg("API keys")}</h2>
      <p class="intro">
        ${msg(
          "The store's server signs its requests and its customers' hashes with a key. Several keys may be active at once, to replace one without interruption.",
        )}
      </p>
      ${this.#renderCreated()}
      ${
        this.revokeError === undefined
          ? nothing
          : html`<div class="alert" role="alert" id="revoke-error" tabindex="-1">
              ${problemMessage(this.revokeError)}
            </div>`
      }
      ${taskView(this.#list, {
        class: "keys",
        label: msg("Loading the API keys"),
        isEmpty: () => this.keys.length === 0,
        empty: () => html`<p>${msg("No API key yet: create one below.")}</p>`,
        ready: () =>
          html`<ul class="items" aria-labelledby="keys-heading">
            ${this.keys.map((key) => this.#renderKey(key))}
          </ul>`,
      })}
      <form class="card" novalidate aria-labelledby="new-key-form" @submit=${this.#create}>
        <h3 id="new-key-form">${msg("Create a key")}</h3>
        ${formProblem(this.errors)}
        <div class="create">
          ${inputField({
            name: "label",
            label: msg("Label"),
            hint: msg("What it is for, such as Production or Staging."),
            autocomplete: "off",
            error: this.errors.fields["label"],
          })}
          <button class="button button--primary" aria-disabled=${this.creating ? "true" : "false"}>
            ${this.creating ? msg("Creating…") : msg("Create the key")}
          </button>
        </div>
      </form>
    </section>`;
  }

  #renderCreated() {
    const created = this.created;
    if (!created) return nothing;
    return html`<div
      class="secret"
      id="created-key"
      role="group"
      aria-labelledby="created-key-heading"
      tabindex="-1"
    >
      <h3 id="created-key-heading">${msg(str`Key “${keyName(created)}” created`)}</h3>
      <p>
        <strong class="danger-text">${msg("Copy it now: you will not see it again.")}</strong>
        ${msg("Put it in the configuration of the store's server; the service keeps it encrypted.")}
      </p>
      <code class="secret__value">${created.key}</code>
      <div class="actions">
        <bo-copy-button .value=${created.key} label=${msg("Copy the key")}></bo-copy-button>
        <button class="button" type="button" @click=${() => void this.#dismissCreated()}>
          ${msg("I have copied it")}
        </button>
      </div>
    </div>`;
  }

  #renderKey(key: ApiKey) {
    return html`<li
      class="item ${key.active ? "" : "item--inactive"}"
      id=${`key-${key.id}`}
      tabindex="-1"
    >
      <div class="item__head">
        <span class="item__title">${key.label || msg("No label")}</span>
        ${
          key.active
            ? html`<span class="badge badge--ok">${msg("Active")}</span>`
            : html`<span class="badge badge--muted">${msg("Revoked")}</span>`
        }
      </div>
      <dl class="facts">
        <div>
          <dt>${msg("Key id")}</dt>
          <dd><code>${key.id}</code></dd>
        </div>
        <div>
          <dt>${msg("Created")}</dt>
          <dd>${formatDate(key.createdAt)}</dd>
        </div>
        ${
          key.revokedAt
            ? html`<div>
                <dt>${msg("Revoked")}</dt>
                <dd>${formatDate(key.revokedAt)}</dd>
              </div>`
            : nothing
        }
      </dl>
      ${
        key.active
          ? html`<div class="actions">
              <button class="button" type="button" @click=${() => void this.#revoke(key)}>
                ${msg("Revoke")}<span class="visually-hidden"> ${keyName(key)}</span>
              </button>
            </div>`
          : nothing
      }
    </li>`;
  }

  async #create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.creating) return;
    const form = event.target as HTMLFormElement;
    this.creating = true;
    try {
      const created = await api.call("createApiKey", {
        params: { storeId: this.storeId },
        body: { label: formText(new FormData(form), "label") },
      });
      const { key: _secret, ...listed } = created;
      this.keys = [listed, ...this.keys];
      this.created = created;
      this.errors = NO_ERRORS;
      form.reset();
      await focusAfterUpdate(this, "#created-key");
    } catch (error) {
      this.errors = formErrors(error, ["label"]);
      await this.updateComplete;
      focusFirstProblem(form);
    } finally {
      this.creating = false;
    }
  }

  async #dismissCreated(): Promise<void> {
    const id = this.created?.id;
    this.created = undefined;
    await focusAfterUpdate(this, `[id="key-${id}"]`);
  }

  async #revoke(key: ApiKey): Promise<void> {
    const confirmed = await confirmAction({
      heading: msg(str`Revoke the key “${keyName(key)}”?`),
      body: msg(
        str`Key ${key.id}: the servers that use it are refused at once, everywhere. This cannot be undone.`,
      ),
      confirmLabel: msg("Revoke the key"),
      destructive: true,
    });
    if (!confirmed) return;
    this.revokeError = undefined;
    try {
      const revoked = await api.call("revokeApiKey", {
        params: { storeId: this.storeId, keyId: key.id },
      });
      this.keys = this.keys.map((current) => (current.id === key.id ? revoked : current));
      if (this.created?.id === key.id) this.created = undefined;
      announce(msg(str`Key “${keyName(key)}” revoked.`));
      // Its button is gone: the focus goes to the key itself, now marked revoked.
      await focusAfterUpdate(this, `[id="key-${key.id}"]`);
    } catch (error) {
      this.revokeError = error;
      await focusAfterUpdate(this, "#revoke-error");
    }
  }
}

define("bo-api-keys-section", ApiKeysSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-api-keys-section": ApiKeysSection;
  }
}
