import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import {
  PLATFORM_KINDS,
  SHOPIFY_API_VERSION,
  keepsStoredCredentials,
  platformConnectionSchemaFor,
  type PlatformConnectionSummary,
  type PlatformConnectionTest,
  type PlatformConnectionWriteInput,
  type PlatformKind,
} from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../../api/client.js";
import { ApiError, RequestValidationError, issuesFromZod } from "../../api/errors.js";
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
 * What failed and what to do, in the merchant's language, from the test's cause; undefined for
 * a cause this build does not know (a newer server's), whose English text is shown instead.
 */
function testExplanation({ platform, cause, httpStatus }: PlatformConnectionTest) {
  const name = platformName(platform);
  // The number reads the same in every language; the translator places it.
  const status = httpStatus === null ? "" : ` (HTTP ${httpStatus})`;
  switch (cause) {
    case "unauthorized":
      return credentialsRefused(platform, status);
    case "request-rejected":
      return requestRefused(platform, status);
    case "redirect":
      return msg(
        str`${name} answered with a redirect${status}, which is not followed: enter the shop's address exactly as it is served (https, with or without www).`,
      );
    case "not-found":
      return msg(
        str`${name} has no API at this address${status}: check the shop's URL, and that its API is enabled.`,
      );
    case "http-error":
      return msg(
        str`${name} answered with an error of its own${status}: the shop may be down or busy; try again in a moment.`,
      );
    case "timeout":
      return msg(
        str`${name} did not answer in time: check that the shop is online, then try again.`,
      );
    case "private-address":
      return msg(
        "The shop's address leads to a private network, which this service does not connect to: enter the shop's public address.",
      );
    case "unreachable":
      return msg(str`${name} could not be reached at this address: check the shop's URL.`);
    case "unreadable":
      return msg(
        str`${name} sent an answer that could not be read: check that the URL is the shop's own address.`,
      );
    case "not-api":
      return msg(
        str`${name} answered something other than its API: check that the URL is the shop's own address.`,
      );
    default:
      return undefined;
  }
}

/** Credentials refused, named as the platform's back-office names them. */
function credentialsRefused(platform: PlatformKind, status: string) {
  switch (platform) {
    case "woocommerce":
      return msg(
        str`WooCommerce refused the credentials${status}: check the consumer key and consumer secret, and that they may read customers and write coupons.`,
      );
    case "shopify":
      return msg(
        str`Shopify refused the credentials${status}: check the Admin API access token, and that it may read customers and write discounts.`,
      );
    case "prestashop":
      return msg(
        str`PrestaShop refused the credentials${status}: check the webservice key, and that it may read customers and write cart rules.`,
      );
    default:
      return undefined;
  }
}

/** A request refused: what the credentials may do is what to check. */
function requestRefused(platform: PlatformKind, status: string) {
  switch (platform) {
    case "woocommerce":
      return msg(
        str`WooCommerce refused the request${status}: check the permissions of the consumer key (read and write).`,
      );
    case "shopify":
      return msg(
        str`Shopify refused the request${status}: check the access scopes of the Admin API access token.`,
      );
    case "prestashop":
      return msg(
        str`PrestaShop refused the request${status}: check the permissions of the webservice key.`,
      );
    default:
      return undefined;
  }
}

/**
 * The store's platform connection: what is saved (credentials are write-only: only whether
 * they are stored), a test of it, and a form per platform with only that platform's fields,
 * filled with the stored settings. For the stored platform and URL the secrets may be left
 * blank, which keeps the stored ones, as the server does.
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
    url: { state: true },
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
  /** The URL as typed in the form: the stored secrets are kept only for the stored one. */
  declare url: string;
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
      this.url = summary?.url ?? "";
    },
  });

  constructor() {
    super();
    this.summary = null;
    this.platform = "sandbox";
    this.url = "";
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
                ${test.ok ? nothing : this.#renderExplanation(test)}
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

  #renderExplanation(test: PlatformConnectionTest) {
    const explanation = testExplanation(test);
    if (explanation !== undefined) return explanation;
    // The server's sentence, in English, for a cause written after this build.
    return test.message
      ? html`<span lang=${currentLocale() === "en" ? nothing : "en"}>${test.message}</span>`
      : nothing;
  }

  #renderForm() {
    const fields = this.errors.fields;
    const same = this.summary?.platform === this.platform;
    const keeps = keepsStoredCredentials(this.summary, { platform: this.platform, url: this.url });
    const secretHint = keeps
      ? msg("Leave blank to keep the stored key.")
      : same && this.summary?.hasCredentials
        ? msg("The stored key is kept only for the same URL: type it again.")
        : msg("Write-only: never shown once saved.");
    const secret = (name: string, label: string) =>
      inputField({
        name,
        label,
        type: "password",
        autocomplete: "off",
        spellcheck: false,
        required: !keeps,
        hint: secretHint,
        error: fields[name],
      });
    return html`<form
      class="card"
      novalidate
      aria-labelledby="platform-form-heading"
      @submit=${this.#save}
      @change=${this.#changed}
      @input=${this.#typed}
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
    // The stored platform's settings, so that a save keeps them unless they are changed.
    const settings = this.summary?.settings;
    const prestashop = settings?.platform === "prestashop" ? settings : undefined;
    switch (this.platform) {
      case "woocommerce":
        return html`${secret("consumerKey", msg("Consumer key"))}
        ${secret("consumerSecret", msg("Consumer secret"))}`;
      case "shopify":
        return html`${secret("accessToken", msg("Admin API access token"))}
        ${inputField({
          name: "apiVersion",
          label: msg("Admin API version"),
          value: settings?.platform === "shopify" ? settings.apiVersion : SHOPIFY_API_VERSION,
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
          value: prestashop?.languageId ?? 1,
          hint: msg("The shop's language for the names of the discount codes."),
          error: fields["languageId"],
        })}
        ${inputField({
          name: "currencyId",
          label: msg("Currency id"),
          type: "number",
          min: 1,
          step: 1,
          value: prestashop?.currencyId ?? 1,
          hint: msg("The shop's currency for the amounts of the discount codes."),
          error: fields["currencyId"],
        })}`;
      default:
        return nothing;
    }
  }

  async #changed(event: Event): Promise<void> {
    const target = event.target as HTMLSelectElement;
    if (target.name !== "platform") return;
    this.platform = target.value as PlatformKind;
    this.errors = NO_ERRORS;
    this.saved = false;
    // The URL field shows the stored URL for the stored platform only.
    await this.updateComplete;
    this.#readUrl(target.form);
  }

  #typed(event: Event): void {
    const target = event.target as HTMLInputElement;
    if (target.name === "url") this.#readUrl(target.form);
  }

  #readUrl(form: HTMLFormElement | null): void {
    const field = form?.elements.namedItem("url");
    this.url = field instanceof HTMLInputElement ? field.value : "";
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.target as HTMLFormElement;
    this.saving = true;
    this.saved = false;
    try {
      const body = connectionOf(new FormData(form));
      // The operation's schema lets every secret out; the server asks for them unless it keeps
      // the stored ones, which this checks first, with the same rule.
      const checked = platformConnectionSchemaFor(this.summary, body).safeParse(body);
      if (!checked.success) throw new RequestValidationError(issuesFromZod(checked.error, "body"));
      const summary = await api.call("setPlatformConnection", {
        params: { storeId: this.storeId },
        body,
      });
      this.summary = summary;
      this.platform = summary.platform;
      this.errors = NO_ERRORS;
      this.test = undefined;
      this.saved = true;
      await this.updateComplete;
      // The credentials typed are not kept on the page: they are write-only.
      form.reset();
      this.#readUrl(form);
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

/**
 * The form's values as the operation takes them: the fields of the chosen platform only, a
 * blank secret left out (the server then keeps the stored one, or names it as missing).
 */
function connectionOf(data: FormData): PlatformConnectionWriteInput {
  const text = (name: string) => fieldText(data, name);
  const secret = (name: string) => (text(name).trim() === "" ? undefined : text(name));
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
        consumerKey: secret("consumerKey"),
        consumerSecret: secret("consumerSecret"),
      };
    case "shopify":
      return {
        platform,
        url: text("url"),
        accessToken: secret("accessToken"),
        apiVersion: text("apiVersion").trim() || undefined,
      };
    case "prestashop":
      return {
        platform,
        url: text("url"),
        webserviceKey: secret("webserviceKey"),
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
