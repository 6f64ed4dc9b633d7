import { msg } from "@lit/localize";
import { html, nothing, type TemplateResult } from "lit";
import { ApiError, RequestValidationError } from "../api/errors.js";
import { currentLocale } from "../i18n/locale.js";

/** The user's words for a reason of the API (the server's own title is English). */
function titleOf(error: ApiError): string {
  switch (error.reason) {
    case "validation-failed":
      return error instanceof RequestValidationError
        ? msg("Some fields need your attention.")
        : msg("The server refused some values.");
    case "unauthorized":
      return msg("Access refused.");
    case "forbidden":
      return msg("This account may not do that.");
    case "not-found":
      return msg("Not found.");
    case "rate-limited":
      return msg("Too many requests: wait a moment, then try again.");
    case "platform-credentials-rejected":
    case "platform-resource-not-found":
    case "platform-request-rejected":
      return msg("The store's platform refused the operation.");
    case "platform-unavailable":
      return msg("The store's platform did not answer.");
    case "network-error":
      return msg("The server could not be reached. Check your connection, then try again.");
    case "unexpected-response":
      return msg("The server answered something unexpected.");
    case "internal-server-error":
      return msg("The server failed. Try again in a moment.");
    default:
      return error.title;
  }
}

/**
 * The server's or a schema's own words, which are English: marked so where the user's language
 * is another, so that screen readers pronounce them right.
 */
export function inEnglish(text: string): TemplateResult {
  return html`<span lang=${currentLocale() === "en" ? nothing : "en"}>${text}</span>`;
}

/**
 * What went wrong, for the user: a title in their language, then the server's own
 * explanation (`inEnglish`). For a `role="alert"` box, a state view's error, a form's summary.
 */
export function problemMessage(error: unknown): TemplateResult {
  if (!(error instanceof ApiError)) {
    return html`<p><strong>${msg("Something went wrong.")}</strong></p>`;
  }
  const detail = error.detail && error.detail !== error.title ? error.detail : undefined;
  return html`<p>
      <strong>${titleOf(error)}</strong>
      ${detail ? inEnglish(detail) : nothing}
    </p>
    ${
      error.requestId
        ? html`<p class="muted">
            ${msg("Reference for support:")} <code>${error.requestId}</code>
          </p>`
        : nothing
    }`;
}
