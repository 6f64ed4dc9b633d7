import { msg, str } from "@lit/localize";
import { MAX_TEXT_LANGUAGES, textLanguageProblem } from "@loyalty/shared-types";
import { translationChain } from "@loyalty/widgets";
import { css, html, nothing, type PropertyValues } from "lit";
import { intlLocale } from "../../i18n/locale.js";
import { confirmAction } from "../../ui/confirm-dialog.js";
import { BoElement, define } from "../../ui/element.js";
import { fieldStyles, inputField } from "../../ui/form-field.js";
import { formatNumber, languageName } from "../../ui/format.js";
import { base } from "../../ui/styles.js";

/**
 * The languages whose texts the storefront shows for a text `language` lacks, nearest first
 * (`fr` for `fr-CA`, `zh-Hant` then `zh` for `zh-Hant-TW`), among `languages`: the widgets' own
 * chain, without `language`. After them, the store's default language.
 */
export function fallbackLanguages(language: string, languages: readonly string[]): string[] {
  return translationChain(language, languages).filter((key) => key !== language);
}

/** Where a text is missing, the languages it is taken from in turn: "French, else in English". */
export function fallbackNames(languages: readonly string[], defaultLanguage: string): string {
  return [...languages, defaultLanguage]
    .map(languageName)
    .reduce((list, next) => msg(str`${list}, else in ${next}`));
}

/** A name as the first word of a label: French writes language names in lower case. */
function capitalised(name: string): string {
  return name.charAt(0).toLocaleUpperCase(intlLocale()) + name.slice(1);
}

/** What the "Add a language" field suggests: the languages most stores sell in. */
const COMMON_LANGUAGES = [
  "ar",
  "cs",
  "da",
  "de",
  "el",
  "en",
  "en-GB",
  "en-US",
  "es",
  "fi",
  "fr",
  "fr-CA",
  "he",
  "hi",
  "hu",
  "it",
  "ja",
  "ko",
  "nb",
  "nl",
  "pl",
  "pt",
  "pt-BR",
  "ro",
  "ru",
  "sv",
  "th",
  "tr",
  "uk",
  "vi",
  "zh-Hans",
  "zh-Hant",
] as const;

/** Whether the language of `tag` has a name: a well-formed tag of no language is a typo. */
function isKnownLanguage(tag: string): boolean {
  try {
    const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
    return names.of(new Intl.Locale(tag).language) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The language to add for what the merchant typed: a BCP 47 tag in any case (`pt_br`,
 * `FR-ca`), written canonically, or the name of a suggested language ("French"). Else why not.
 */
export function languageToAdd(
  typed: string,
  { defaultLanguage, languages }: { defaultLanguage: string; languages: readonly string[] },
): { language: string } | { problem: string } {
  const input = typed.trim();
  const example = msg("Enter a language tag such as fr, fr-CA or pt-BR.");
  if (input === "") return { problem: example };
  const locale = intlLocale();
  let language: string | undefined = COMMON_LANGUAGES.find(
    (tag) => languageName(tag).toLocaleLowerCase(locale) === input.toLocaleLowerCase(locale),
  );
  if (language === undefined) {
    try {
      language = Intl.getCanonicalLocales(input.replaceAll("_", "-"))[0];
    } catch {
      language = undefined;
    }
  }
  if (language === undefined || textLanguageProblem(language) !== undefined) {
    return { problem: msg(str`“${input}” is not a language tag. ${example}`) };
  }
  if (!isKnownLanguage(language)) {
    return { problem: msg(str`No language has the tag “${language}”. ${example}`) };
  }
  const name = languageName(language);
  if (language === defaultLanguage) {
    return {
      problem: msg(
        str`${capitalised(name)} is the store's default language: its texts are the form's own.`,
      ),
    };
  }
  if (languages.includes(language)) {
    return { problem: msg(str`${capitalised(name)} (${language}) is already in the list.`) };
  }
  if (languages.length >= MAX_TEXT_LANGUAGES) {
    return {
      problem: msg(
        str`At most ${formatNumber(MAX_TEXT_LANGUAGES)} languages besides the default one: remove one first.`,
      ),
    };
  }
  return { language };
}

/** The detail of the switcher's events: the language, undefined for the store's default. */
export interface TextLanguageDetail {
  language: string | undefined;
}

/**
 * Which language's texts the widget form edits: the store's default language, or one of the
 * languages the merchant added; adds a language (a BCP 47 tag, or a suggested language's name)
 * and removes one after a confirmation. The screen owns the draft: the element says what the
 * merchant chose with its events, and shows what the screen gives it back.
 *
 * @summary The language switcher of the widget texts.
 * @event text-language-select - The merchant chose the language to edit (`detail.language`).
 * @event text-language-add - The merchant added `detail.language`: edit it now.
 * @event text-language-remove - The merchant confirmed removing `detail.language` and its texts.
 */
export class TextLanguages extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    css`
      :host {
        display: block;
        margin: 0 0 var(--bo-space);
      }
      .choose {
        display: flex;
        flex-wrap: wrap;
        align-items: flex-end;
        gap: 0.5rem 0.75rem;
      }
      .choose .field {
        flex: 1 1 14rem;
        margin: 0;
      }
      .add {
        margin-block-start: var(--bo-space);
        padding: 0.75rem var(--bo-space) 0;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
      }
      .add__actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin-block-end: var(--bo-space);
      }
      .note {
        margin: 0.75rem 0 0;
      }
    `,
  ];

  static override properties = {
    defaultLanguage: { attribute: false },
    languages: { attribute: false },
    selected: { attribute: false },
    adding: { state: true },
    problem: { state: true },
  };

  /** The store's language: the configuration's own texts are in it. */
  declare defaultLanguage: string;
  /** The languages the draft has texts for. */
  declare languages: readonly string[];
  /** The language the form edits; undefined: the default one. */
  declare selected: string | undefined;
  /** The "Add a language" field is open. */
  declare adding: boolean;
  /** Why the typed language cannot be added. */
  declare problem: string | undefined;

  constructor() {
    super();
    this.defaultLanguage = "en";
    this.languages = [];
    this.selected = undefined;
    this.adding = false;
    this.problem = undefined;
  }

  /** Where the focus goes once the screen shows the language chosen, added or removed. */
  #focusAfterUpdate: string | undefined;

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    // Set, not left to the options' `selected`: that attribute no longer moves a list the
    // merchant has used (the screen turns to another language after a refused publication).
    const list = this.renderRoot.querySelector<HTMLSelectElement>("#text-language");
    if (list) list.value = this.selected ?? "";
    if (this.#focusAfterUpdate) {
      this.renderRoot.querySelector<HTMLElement>(this.#focusAfterUpdate)?.focus();
      this.#focusAfterUpdate = undefined;
    }
  }

  protected override render() {
    const { selected } = this;
    const defaultName = languageName(this.defaultLanguage);
    // What the storefront shows for a text the language edited lacks.
    const shown =
      selected === undefined
        ? undefined
        : fallbackNames(fallbackLanguages(selected, this.languages), this.defaultLanguage);
    // The labels touch their tags: a select's displayed value is its option's whole text.
    const options = [
      { value: "", label: msg(str`${capitalised(defaultName)} (default)`) },
      ...this.languages.map((language) => ({
        value: language,
        label: `${capitalised(languageName(language))} (${language})`,
      })),
    ];
    return html`<div class="choose">
        <div class="field">
          <label class="field__label" for="text-language">${msg("Language of the texts")}</label>
          <select class="field__control" id="text-language" @change=${this.#onSelect}>
            ${options.map(({ value, label }) => html`<option value=${value}>${label}</option>`)}
          </select>
        </div>
        ${
          selected === undefined
            ? nothing
            : html`<button class="button" type="button" id="remove-language" @click=${this.#remove}>
                ${msg(str`Remove the texts in ${languageName(selected)}`)}
              </button>`
        }
        <button
          class="button"
          type="button"
          id="add-language-toggle"
          aria-expanded=${this.adding ? "true" : "false"}
          aria-controls="add-language"
          @click=${this.#toggleAdding}
        >
          ${msg("Add a language")}
        </button>
      </div>
      ${this.adding ? this.#renderAdding() : nothing}
      ${
        shown === undefined
          ? nothing
          : html`<p class="note muted">
              ${msg(str`The form shows the texts only. An empty field shows the text in ${shown}.`)}
            </p>`
      }`;
  }

  #renderAdding() {
    const taken = new Set([this.defaultLanguage, ...this.languages]);
    const suggestions = COMMON_LANGUAGES.filter((tag) => !taken.has(tag))
      .map((tag) => ({ tag, name: capitalised(languageName(tag)) }))
      .sort((a, b) => a.name.localeCompare(b.name, intlLocale()));
    return html`<form
      class="add"
      id="add-language"
      novalidate
      aria-label=${msg("Add a language")}
      @submit=${this.#add}
      @keydown=${(event: KeyboardEvent) => {
        if (event.key === "Escape") {
          event.preventDefault();
          this.#closeAdding();
        }
      }}
      @input=${() => (this.problem = undefined)}
    >
      ${inputField({
        name: "language",
        label: msg("Language to add"),
        hint: msg("A language tag such as fr, fr-CA or pt-BR, or a suggested language's name."),
        autocomplete: "off",
        spellcheck: false,
        list: "common-languages",
        error: this.problem,
      })}
      <datalist id="common-languages">
        ${suggestions.map(({ tag, name }) => html`<option value=${tag}>${name}</option>`)}
      </datalist>
      <div class="add__actions">
        <button class="button button--primary" type="submit">${msg("Add")}</button>
        <button class="button" type="button" @click=${this.#closeAdding}>${msg("Cancel")}</button>
      </div>
    </form>`;
  }

  #onSelect(event: Event): void {
    const value = (event.target as HTMLSelectElement).value;
    this.#emit("text-language-select", value === "" ? undefined : value);
  }

  #toggleAdding(): void {
    if (this.adding) {
      this.#closeAdding();
      return;
    }
    this.adding = true;
    this.problem = undefined;
    this.#focusAfterUpdate = "#field-language";
  }

  #closeAdding(): void {
    this.adding = false;
    this.problem = undefined;
    this.#focusAfterUpdate = "#add-language-toggle";
  }

  #add(event: SubmitEvent): void {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>("#field-language");
    const choice = languageToAdd(input?.value ?? "", {
      defaultLanguage: this.defaultLanguage,
      languages: this.languages,
    });
    if ("problem" in choice) {
      this.problem = choice.problem;
      this.#focusAfterUpdate = "#field-language";
      return;
    }
    this.adding = false;
    this.problem = undefined;
    // The list now shows the language added, chosen: the merchant goes on from there.
    this.#focusAfterUpdate = "#text-language";
    this.#emit("text-language-add", choice.language);
  }

  async #remove(): Promise<void> {
    const language = this.selected;
    if (language === undefined) return;
    const name = languageName(language);
    // What visitors reading it get once it is gone: another variant's texts (`fr` for `fr-CA`)
    // where there is one, else the default ones.
    const remaining = this.languages.filter((key) => key !== language);
    const shown = fallbackNames(translationChain(language, remaining), this.defaultLanguage);
    const confirmed = await confirmAction({
      heading: msg(str`Remove the texts in ${name}?`),
      body: msg(
        str`Your texts in ${name} leave the draft. Once you publish, visitors reading ${name} see the texts in ${shown}.`,
      ),
      confirmLabel: msg("Remove the language"),
      destructive: true,
    });
    if (!confirmed || this.selected !== language) return;
    this.#focusAfterUpdate = "#text-language";
    this.#emit("text-language-remove", language);
  }

  #emit(type: string, language: string | undefined): void {
    this.dispatchEvent(new CustomEvent<TextLanguageDetail>(type, { detail: { language } }));
  }
}

define("bo-text-languages", TextLanguages);

declare global {
  interface HTMLElementTagNameMap {
    "bo-text-languages": TextLanguages;
  }
}
