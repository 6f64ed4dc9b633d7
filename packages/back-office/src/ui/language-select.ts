import { msg } from "@lit/localize";
import { css, html } from "lit";
import { changeLocale, currentLocale, LANGUAGES, type Locale } from "../i18n/locale.js";
import { BoElement, define } from "./element.js";
import { base } from "./styles.js";

/**
 * The language of the app, for this browser (kept in localStorage).
 *
 * @summary The language picker (English, Français).
 */
export class LanguageSelect extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        display: inline-block;
      }
      select {
        min-block-size: 2.5rem;
        padding: 0.4rem 0.6rem;
        border: 1px solid var(--bo-control-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
        color: var(--bo-text);
        font: inherit;
      }
    `,
  ];

  protected override render() {
    const locale = currentLocale();
    return html`<label class="visually-hidden" for="language">${msg("Language")}</label>
      <select
        id="language"
        @change=${(event: Event) =>
          void changeLocale((event.target as HTMLSelectElement).value as Locale)}
      >
        ${LANGUAGES.map(
          (language) =>
            html`<option
              value=${language.locale}
              lang=${language.locale}
              ?selected=${language.locale === locale}
            >
              ${language.name}
            </option>`,
        )}
      </select>`;
  }
}

define("bo-language-select", LanguageSelect);

declare global {
  interface HTMLElementTagNameMap {
    "bo-language-select": LanguageSelect;
  }
}
