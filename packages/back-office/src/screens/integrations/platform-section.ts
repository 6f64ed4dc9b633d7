import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import {
  PLATFORM_KINDS,
  SHOPIFY_API_VERSION,
  type PlatformConnectionInput,
  type PlatformConnectionSummary,
  type PlatformConnectionTest,
  type PlatformKind,
} from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { currentLocale } from "../../i18n/locale.js";
import { BoElement, define } from "../../ui/element.js";
import {
  focusFirstProblem,
  formErrors,
  NO_ERRORS,
  type FormErrors,
} from "../../ui/field-errors.js";
import { fieldStyles, inputField, selectField } from "../../ui/form-field.js";
import { formatNumber } from "../../ui/format.js";
import { problemMessage } from "../../ui/problem-message.js";
import { taskView } from "../../ui/state-view.js";
import { base } from "../../ui/styles.js";
import { fieldText, focusAfterUpdate, formProblem, savedStatus } from "./form-parts.js";
import { integrationStyles } from "./integration-styles.js";

const FIELDS = [
  "platform",
  "url",
  "consumerKey",
  "consumerSecret",
  "accessToken",
  "apiVersion",
  "webserviceKey",
  "languageId",
  "currencyId",
];

/** A platform's name. */
export function platformName(platform: PlatformKind): string {
  switch (platform) {
    case "sandbox":
      return msg("Sandbox (built in)");
    case "woocommerce":
      return "WooCommerce";
    case "shopify":
      return "Shopify";
    case "prestashop":
      return "PrestaShop";
  }
}

/** Why a connection test failed, in the merchant's words. */
function testReason(reason: PlatformConnectionTest["reason"]): string {
  switch (reason) {
    case "platform-credentials-rejected":
      return msg("The platform refused the credentials.");
    case "platform-resource-not-found":
      return msg("The platform did not find what was asked: check the URL.");
    case "platform-request-rejected":
      return msg("The platform refused the request.");
    case "platform-unavailable":
      return msg("The platform did not answer.");
    default:
      return msg("The connection failed.");
  }
}

/**
 * The store's platform connection: what is saved (credentials are write-only: only whether
 * they are stored), a test of it, and a form per platform with only that platform's fields.
 *
 * @summary The platform connection section of the integrations screen.
 */
export class PlatformSection extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    integrationStyles,
    css`
      .connection {
        --bo-state-view-min-size: 34rem;
      }
      .test {
        display: grid;
        gap: 0.5rem;
        justify-items: start;
        margin-block: var(--bo-space);
      }
      .test__result--ok,
      .test__result--bad {
        padding: 0.5rem 0.75rem;
        border-inline-start: 4px solid var(--bo-border);
        background: var(--bo-page);
      }
      .test__result--ok {
        border-color: var(--bo-success);
      }
      .test__result--bad {
        border-color: var(--bo-danger);
      }
      .test__result p {
        margin: 0;
      }
      form {
        max-inline-size: 40rem;
      }
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    summary: { state: true },
    platform: { state: true },
    errors: { state: true },
    saving: { state: true },
    saved: { state: true },
    testing: { state: true },
    test: { state: true },
    testError: { state: true },
  };

  declare storeId: number;
  /** The connection as saved (null: none yet). */
  declare summary: PlatformConnectionSummary | null;
  /** The platform chosen in the form: its fields show. */
  declare platform: PlatformKind;
  declare errors: FormErrors;
  declare saving: boolean;
  declare saved: boolean;
  declare testing: boolean;
  declare test: PlatformConnectionTest | undefined;
  declare testError: unknown;

  readonly #connection = new Task(this, {
    task: async ([storeId], { signal }) => {
      try {
        return await api.call("getPlatformConnection", { params: { storeId }, signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    args: () => [this.storeId] as const,
    onComplete: (summary) => {
      this.summary = summary;
      this.platform = summary?.platform ?? "sandbox";
    },
  });

  constructor() {
    super();
    this.summary = null;
    this.platform = "sandbox";
    this.errors = NO_ERRORS;
    this.saving = false;
    this.saved = false;
    this.testing = false;
  }

  protected override render() {
    return html`<section aria-labelledby="platform-heading">
      <h2 id="platform-heading">${msg("Platform connection")}</h2>
      <p class="intro">
        ${msg(
          "The service asks the store's platform for discount codes (rewards, referrals) and for customers.",
        )}
      </p>
      ${taskView(this.#connection, {
        class: "connection",
        label: msg("Loading the platform connection"),
        ready: () => this.#renderConnection(),
      })}
    </section>`;
  }

  #renderConnection() {
    const summary = this.summary;
    return html`<dl class="facts">
        <div>
          <dt>${msg("Platform")}</dt>
          <dd>${summary ? platformName(summary.platform) : msg("Not connected yet")}</dd>
        </div>
        <div>
          <dt>${msg("URL")}</dt>
          <dd>${summary?.url ?? "—"}</dd>
        </div>
        <div>
          <dt>${msg("Credentials")}</dt>
          <dd>
            ${
              summary?.hasCredentials
                ? msg("Stored (never shown)")
                : summary?.platform === "sandbox"
                  ? msg("None needed")
                  : msg("Not stored")
            }
          </dd>
        </div>
      </dl>
      ${summary ? this.#renderTest() : nothing} ${this.#renderForm()}`;
  }

  #renderTest() {
    const test = this.test;
    return html`<div class="test">
      <button
        class="button"
        type="button"
        aria-disabled=${this.testing ? "true" : "false"}
        aria-describedby="test-hint"
        @click=${() => void this.#runTest()}
      >
        ${this.testing ? msg("Testing…") : msg("Test the connection")}
      </button>
      <p class="muted" id="test-hint">
        ${msg("Asks the platform something harmless with the saved connection.")}
      </p>
      <div
        class="test__result ${test ? (test.ok ? "test__result--ok" : "test__result--bad") : ""}"
        role="status"
      >
        ${
          test
            ? html`<p>
                <strong>${test.ok ? msg("The connection works.") : testReason(test.reason)}</strong>
                ${
                  test.message
                    ? html`<span lang=${currentLocale() === "en" ? nothing : "en"}
                        >${test.message}</span
                      >`
                    : nothing
                }
                ${msg(str`The platform answered in ${formatNumber(test.durationMs)} ms.`)}
              </p>`
            : nothing
        }
      </div>
      ${
        this.testError === undefined
          ? nothing
          : html`<div class="alert" role="alert">${problemMessage(this.testError)}</div>`
      }
    </div>`;
  }

  #renderForm() {
    const fields = this.errors.fields;
    const same = this.summary?.platform === this.platform;
    const stored = same && (this.summary?.hasCredentials ?? false);
    const secretHint = stored
      ? msg("Stored, never shown. Type it again to save a change.")
      : msg("Write-only: never shown once saved.");
    const secret = (name: string, label: string) =>
      inputField({
        name,
        label,
        type: "password",
        autocomplete: "off",
        spellcheck: false,
        required: true,
        hint: secretHint,
        error: fields[name],
      });
    return html`<form
      class="card"
      novalidate
      aria-labelledby="platform-form-heading"
      @submit=${this.#save}
      @change=${this.#changed}
    >
      <h3 id="platform-form-heading">${msg("Change the connection")}</h3>
      ${savedStatus("platform-saved", this.saved ? msg("Connection saved.") : undefined)}
      ${formProblem(this.errors)}
      ${selectField({
        name: "platform",
        label: msg("Platform"),
        value: this.platform,
        options: PLATFORM_KINDS.map((platform) => ({
          value: platform,
          label: platformName(platform),
        })),
        error: fields["platform"],
      })}
      ${
        this.platform === "sandbox"
          ? html`<p class="muted">
              ${msg(
                "The sandbox keeps the codes in the service's own database: for demonstrations and tests.",
              )}
            </p>`
          : inputField({
              name: "url",
              label: msg("URL"),
              type: "url",
              required: true,
              autocomplete: "off",
              spellcheck: false,
              value: same ? (this.summary?.url ?? "") : "",
              hint: this.#urlHint(),
              error: fields["url"],
            })
      }
      ${this.#renderPlatformFields(secret)}
      <button class="button button--primary" aria-disabled=${this.saving ? "true" : "false"}>
        ${this.saving ? msg("Saving…") : msg("Save the connection")}
      </button>
    </form>`;
  }

  #urlHint(): string {
    switch (this.platform) {
      case "shopify":
        return msg("The shop's admin address, such as https://my-shop.myshopify.com.");
      case "prestashop":
        return msg("The shop's address; the webservice is under /api.");
      default:
        return msg("The WordPress site, such as https://shop.example.");
    }
  }

  #renderPlatformFields(secret: (name: string, label: string) => unknown) {
    const fields = this.errors.fields;
    switch (this.platform) {
      case "woocommerce":
        return html`${secret("consumerKey", msg("Consumer key"))}
        ${secret("consumerSecret", msg("Consumer secret"))}`;
      case "shopify":
        return html`${secret("accessToken", msg("Admin API access token"))}
        ${inputField({
          name: "apiVersion",
          label: msg("Admin API version"),
          value: SHOPIFY_API_VERSION,
          spellcheck: false,
          hint: msg("Such as 2026-10; 2025-10 or later."),
          error: fields["apiVersion"],
        })}`;
      case "prestashop":
        return html`${secret("webserviceKey", msg("Webservice key"))}
        ${inputField({
          name: "languageId",
          label: msg("Language id"),
          type: "number",
          min: 1,
          step: 1,
          value: 1,
          hint: msg("The shop's language for the names of the discount codes."),
          error: fields["languageId"],
        })}
        ${inputField({
          name: "currencyId",
          label: msg("Currency id"),
          type: "number",
          min: 1,
          step: 1,
          value: 1,
          hint: msg("The shop's currency for the amounts of the discount codes."),
          error: fields["currencyId"],
        })}`;
      default:
        return nothing;
    }
  }

  #changed(event: Event): void {
    const target = event.target as HTMLSelectElement;
    if (target.name !== "platform") return;
    this.platform = target.value as PlatformKind;
    this.errors = NO_ERRORS;
    this.saved = false;
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.target as HTMLFormElement;
    this.saving = true;
    this.saved = false;
    try {
      const summary = await api.call("setPlatformConnection", {
        params: { storeId: this.storeId },
        body: connectionOf(new FormData(form)),
      });
      this.summary = summary;
      this.platform = summary.platform;
      this.errors = NO_ERRORS;
      this.test = undefined;
      this.saved = true;
      await this.updateComplete;
      // The credentials typed are not kept on the page: they are write-only.
      form.reset();
      await focusAfterUpdate(this, "#platform-saved");
    } catch (error) {
      this.errors = formErrors(error, FIELDS);
      await this.updateComplete;
      focusFirstProblem(form);
    } finally {
      this.saving = false;
    }
  }

  async #runTest(): Promise<void> {
    if (this.testing) return;
    this.testing = true;
    this.test = undefined;
    this.testError = undefined;
    try {
      this.test = await api.call("testPlatformConnection", { params: { storeId: this.storeId } });
    } catch (error) {
      this.testError = error;
    } finally {
      this.testing = false;
    }
  }
}

/** The form's values as the operation takes them: the fields of the chosen platform only. */
function connectionOf(data: FormData): PlatformConnectionInput {
  const text = (name: string) => fieldText(data, name);
  const optionalNumber = (name: string) => {
    const value = text(name).trim();
    return value === "" ? undefined : Number(value);
  };
  const platform = text("platform") as PlatformKind;
  switch (platform) {
    case "woocommerce":
      return {
        platform,
        url: text("url"),
        consumerKey: text("consumerKey"),
        consumerSecret: text("consumerSecret"),
      };
    case "shopify":
      return {
        platform,
        url: text("url"),
        accessToken: text("accessToken"),
        apiVersion: text("apiVersion").trim() || undefined,
      };
    case "prestashop":
      return {
        platform,
        url: text("url"),
        webserviceKey: text("webserviceKey"),
        languageId: optionalNumber("languageId"),
        currencyId: optionalNumber("currencyId"),
      };
    default:
      return { platform: "sandbox" };
  }
}

define("bo-platform-section", PlatformSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-platform-section": PlatformSection;
  }
}
