import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import type {
  CartConfig,
  LauncherConfig,
  ProductPointsConfig,
  ProgramPresentationConfig,
  WidgetKind,
} from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { api } from "../api/client.js";
import { ApiError } from "../api/errors.js";
import { guardLeaving } from "../app/navigation.js";
import { StoreScreen } from "../app/screen.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { define } from "../ui/element.js";
import { focusFirstProblem, formErrors, NO_ERRORS, type FormErrors } from "../ui/field-errors.js";
import { fieldStyles } from "../ui/form-field.js";
import { formProblem } from "../ui/form-problem.js";
import { formatDateTime, languageName } from "../ui/format.js";
import { announce } from "../ui/live-region.js";
import { taskView } from "../ui/state-view.js";
import { base, screenStyles } from "../ui/styles.js";
import {
  sameConfig,
  textLanguages,
  textsOf,
  valueAt,
  withLanguage,
  withoutItem,
  withoutLanguage,
  withValue,
  withWidgetMessages,
  type Draft,
} from "./widgets/draft.js";
import { extraFieldStyles } from "./widgets/fields.js";
import {
  cartFields,
  ITEM_PATHS,
  launcherFields,
  presentationFields,
  productPointsFields,
  type FieldsContext,
  type ItemList,
} from "./widgets/widget-fields.js";
import { fallbackLanguages, type TextLanguageDetail } from "./widgets/text-languages.js";
import { previewStyles, SAMPLE_PRICE, widgetPreview } from "./widgets/widget-preview.js";

const KINDS: readonly WidgetKind[] = ["product-points", "cart", "program-presentation", "launcher"];

/** The query parameter that keeps the chosen widget in the URL (a reload, a shared link). */
const WIDGET_PARAM = "widget";

function kindName(kind: WidgetKind): string {
  switch (kind) {
    case "product-points":
      return msg("Product points");
    case "cart":
      return msg("Cart");
    case "program-presentation":
      return msg("Programme page");
    case "launcher":
      return msg("Launcher");
  }
}

/** A widget's configuration as the back-office reads it. */
interface Saved {
  isDefault: boolean;
  updatedAt: string | null;
  config: Draft;
}

function load(kind: WidgetKind, storeId: number, signal: AbortSignal): Promise<Saved> {
  const options = { params: { storeId }, signal };
  switch (kind) {
    case "product-points":
      return api.call("getProductPointsWidgetConfiguration", options);
    case "cart":
      return api.call("getCartWidgetConfiguration", options);
    case "program-presentation":
      return api.call("getProgramPresentationWidgetConfiguration", options);
    case "launcher":
      return api.call("getLauncherWidgetConfiguration", options);
  }
}

/** Publishes `config` (checked against the kind's schema first, by the client). */
function publish(kind: WidgetKind, storeId: number, config: Draft): Promise<Saved> {
  const params = { storeId };
  switch (kind) {
    case "product-points":
      return api.call("setProductPointsWidgetConfiguration", {
        params,
        body: config as ProductPointsConfig,
      });
    case "cart":
      return api.call("setCartWidgetConfiguration", { params, body: config as CartConfig });
    case "program-presentation":
      return api.call("setProgramPresentationWidgetConfiguration", {
        params,
        body: config as ProgramPresentationConfig,
      });
    case "launcher":
      return api.call("setLauncherWidgetConfiguration", { params, body: config as LauncherConfig });
  }
}

/** Deletes the saved configuration: answers the default, now served. */
function restoreDefault(kind: WidgetKind, storeId: number): Promise<Saved> {
  const options = { params: { storeId } };
  switch (kind) {
    case "product-points":
      return api.call("resetProductPointsWidgetConfiguration", options);
    case "cart":
      return api.call("resetCartWidgetConfiguration", options);
    case "program-presentation":
      return api.call("resetProgramPresentationWidgetConfiguration", options);
    case "launcher":
      return api.call("resetLauncherWidgetConfiguration", options);
  }
}

/**
 * The language whose form shows the first issue of a refused publication: one of `languages`
 * for an issue in its texts (`translations.fr.title`), undefined (the default language) for any
 * other field; none when no issue names a field.
 */
function languageOfIssues(
  error: unknown,
  languages: readonly string[],
): { language: string | undefined } | undefined {
  if (!(error instanceof ApiError)) return undefined;
  for (const { field } of error.issues) {
    const [first, language, ...path] = field.split(".");
    if (first === "translations") {
      if (language !== undefined && languages.includes(language) && path.length > 0) {
        return { language };
      }
    } else if (field !== "") {
      return { language: undefined };
    }
  }
  return undefined;
}

function kindFromUrl(): WidgetKind {
  const asked = new URLSearchParams(location.search).get(WIDGET_PARAM);
  return KINDS.find((kind) => kind === asked) ?? "product-points";
}

/**
 * Widgets: what the storefront widgets say and how they look. One tab per widget (product
 * points, cart, programme page), each a form beside a live preview of the real widget with the
 * draft. Nothing reaches the storefront until "Publish"; unpublished changes are not lost
 * without a confirmation (another tab, a link of the app, closing the tab). A published
 * configuration can be dropped for the default ("Restore the default"), after a confirmation.
 * The texts are written in the store's language, and may be translated into others: the
 * language switcher above the form then gives a form of the texts only, in the language chosen,
 * and the preview shows the widget in that language.
 */
export class WidgetsScreen extends StoreScreen {
  static override styles = [
    base,
    screenStyles,
    fieldStyles,
    extraFieldStyles,
    previewStyles,
    css`
      [role="tablist"] {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem;
        margin: 0 0 var(--bo-space);
        border-block-end: 1px solid var(--bo-border);
      }
      [role="tab"] {
        min-block-size: 2.75rem;
        padding: 0.5rem 1rem;
        border: 1px solid transparent;
        border-block-end: none;
        border-radius: var(--bo-radius) var(--bo-radius) 0 0;
        background: none;
        color: var(--bo-text);
        font: inherit;
        font-weight: 600;
        cursor: pointer;
      }
      [role="tab"]:hover {
        background: var(--bo-page);
      }
      [role="tab"][aria-selected="true"] {
        border-color: var(--bo-border);
        background: var(--bo-surface);
        color: var(--bo-accent-strong);
        box-shadow: inset 0 3px 0 var(--bo-accent);
        margin-block-end: -1px;
      }
      .panel > bo-state-view {
        --bo-state-view-min-size: 36rem;
      }
      .meta {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem 1rem;
        margin: 0 0 var(--bo-space);
      }
      .meta__state {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 1rem;
        margin: 0;
        color: var(--bo-muted);
      }
      .editor {
        display: grid;
        gap: 1.5rem;
      }
      @media (min-width: 64rem) {
        .editor {
          grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
          align-items: start;
        }
        .preview {
          position: sticky;
          inset-block-start: 1rem;
        }
      }
      .editor__main,
      .preview {
        min-inline-size: 0;
      }
      fieldset {
        margin: 0 0 var(--bo-space);
        padding: 0.75rem var(--bo-space) 0;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
        min-inline-size: 0;
      }
      legend {
        padding-inline: 0.25rem;
        font-weight: 700;
      }
      fieldset.item {
        background: var(--bo-page);
        padding-block-end: 0.75rem;
      }
      fieldset > .button {
        margin-block-end: var(--bo-space);
      }
      fieldset.item > .button {
        margin-block-end: 0;
      }
      .actions {
        position: sticky;
        inset-block-end: 0;
        z-index: 1;
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem 0.75rem;
        padding: 0.75rem 0;
        background: var(--bo-page);
        border-block-start: 1px solid var(--bo-border);
      }
      .save-status {
        font-weight: 600;
      }
      .save-status--dirty {
        color: var(--bo-text);
      }
      .save-status--published {
        color: var(--bo-success);
      }
    `,
  ];

  static override properties = {
    ...StoreScreen.properties,
    kind: { state: true },
    saved: { state: true },
    draft: { state: true },
    formKey: { state: true },
    errors: { state: true },
    busy: { state: true },
    restoring: { state: true },
    published: { state: true },
    language: { state: true },
  };

  declare kind: WidgetKind;
  /** The configuration as published (or the default). */
  declare saved: Saved | undefined;
  /** What the form says now: the preview shows it, "Publish" sends it. */
  declare draft: Draft | undefined;
  /** Renews the form's controls (after a load, a discard, an item added or removed). */
  declare formKey: number;
  declare errors: FormErrors;
  declare busy: boolean;
  /** "Restore the default" is waiting for the server. */
  declare restoring: boolean;
  /** The last publication succeeded, and nothing changed since. */
  declare published: boolean;
  /** The language whose texts the form edits; undefined: the store's default language. */
  declare language: string | undefined;

  constructor() {
    super();
    this.kind = kindFromUrl();
    this.formKey = 0;
    this.errors = NO_ERRORS;
    this.busy = false;
    this.restoring = false;
    this.published = false;
    this.language = undefined;
  }

  readonly #configuration = new Task(this, {
    task: ([kind, storeId], { signal }) => load(kind, storeId, signal),
    args: () => [this.kind, this.store.id] as const,
    onComplete: (saved) => this.#reset(saved),
  });

  /**
   * What the product-points preview's sample earns under the store's rules: with "hide when
   * zero", a sample earning nothing shows nothing, and the preview says why.
   */
  readonly #samplePoints = new Task(this, {
    task: async ([kind, storeId], { signal }) =>
      kind === "product-points"
        ? (
            await api.call("previewProductPoints", {
              params: { storeId },
              query: { price: String(SAMPLE_PRICE) },
              signal,
            })
          ).points
        : undefined,
    args: () => [this.kind, this.store.id] as const,
  });

  protected override get screenTitle(): string {
    return msg("Widgets");
  }

  get #dirty(): boolean {
    return (
      this.saved !== undefined &&
      this.draft !== undefined &&
      !sameConfig(this.draft, this.saved.config)
    );
  }

  #reset(saved: Saved): void {
    this.saved = saved;
    this.draft = structuredClone(saved.config);
    this.formKey += 1;
    this.errors = NO_ERRORS;
    this.#keepLanguage();
  }

  /** Back to the default language when the draft no longer has the one the form edits. */
  #keepLanguage(): void {
    if (this.language !== undefined && !textLanguages(this.draft ?? {}).includes(this.language)) {
      this.#showLanguage(undefined);
    }
  }

  /** Unpublished changes: every way out of the screen asks first (app/navigation.ts). */
  #stopGuarding?: () => void;

  override connectedCallback(): void {
    super.connectedCallback();
    this.#stopGuarding = guardLeaving({
      pending: () => this.#dirty,
      confirmLeave: async () => {
        const leave = await this.#confirmDiscard();
        if (leave) this.#discardDraft();
        return leave;
      },
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopGuarding?.();
  }

  #confirmDiscard(): Promise<boolean> {
    return confirmAction({
      heading: msg("Discard your changes?"),
      body: msg(
        str`Your changes to the ${kindName(this.kind)} widget are not published: they will be lost.`,
      ),
      confirmLabel: msg("Discard changes"),
      cancelLabel: msg("Keep editing"),
      destructive: true,
    });
  }

  #discardDraft(): void {
    if (this.saved) this.#reset(this.saved);
  }

  protected override render() {
    return html`<h1>${this.screenTitle}</h1>
      <p class="intro">
        ${msg(
          "What the storefront widgets say and how they look: the product points, the cart and the programme page.",
        )}
      </p>
      <div role="tablist" aria-label=${msg("Widgets")} @keydown=${this.#onTabKey}>
        ${KINDS.map(
          (kind) =>
            html`<button
              role="tab"
              type="button"
              id="tab-${kind}"
              aria-selected=${kind === this.kind ? "true" : "false"}
              aria-controls="panel"
              tabindex=${kind === this.kind ? "0" : "-1"}
              @click=${() => void this.#select(kind)}
            >
              ${kindName(kind)}
            </button>`,
        )}
      </div>
      <div class="panel" role="tabpanel" id="panel" aria-labelledby="tab-${this.kind}">
        ${taskView(this.#configuration, {
          label: msg(str`Loading the ${kindName(this.kind)} widget`),
          ready: () => this.#renderEditor(),
        })}
      </div>`;
  }

  #renderEditor() {
    const { saved, draft, language } = this;
    if (!saved || !draft) return nothing;
    const { fields } = this.errors;
    const dirty = this.#dirty;
    const context: FieldsContext = {
      store: this.store,
      errors: fields,
      add: (list) => void this.#addItem(list),
      remove: (list, index) => void this.#removeItem(list, index),
      translation:
        language === undefined
          ? undefined
          : {
              language,
              texts: textsOf(draft, language),
              fallbacks: fallbackLanguages(language, textLanguages(draft)).map((key) => ({
                name: languageName(key),
                texts: textsOf(draft, key),
              })),
              defaultName: languageName(this.store.language),
            },
    };
    let form;
    switch (this.kind) {
      case "product-points":
        form = productPointsFields(draft as unknown as ProductPointsConfig, context);
        break;
      case "cart":
        form = cartFields(draft as unknown as CartConfig, context);
        break;
      case "program-presentation":
        form = presentationFields(draft as unknown as ProgramPresentationConfig, context);
        break;
      case "launcher":
        form = launcherFields(draft as unknown as LauncherConfig, context);
        break;
    }
    return html`<div class="meta">
        <p class="meta__state" id="widget-state" tabindex="-1">
          ${
            saved.isDefault
              ? html`<span
                  >${msg(str`Using the default texts in ${languageName(this.store.language)}.`)}</span
                >`
              : nothing
          }
          ${
            saved.updatedAt
              ? html`<span>${msg(str`Last published ${formatDateTime(saved.updatedAt)}.`)}</span>`
              : html`<span>${msg("Never published.")}</span>`
          }
        </p>
        ${
          saved.isDefault
            ? nothing
            : html`<button
                class="button"
                type="button"
                id="restore-default"
                aria-disabled=${this.restoring ? "true" : "false"}
                aria-busy=${this.restoring ? "true" : "false"}
                @click=${this.#restoreDefault}
              >
                ${this.restoring ? msg("Restoring the default…") : msg("Restore the default")}
              </button>`
        }
      </div>
      <div class="editor">
        <div class="editor__main">
          <bo-text-languages
            .defaultLanguage=${this.store.language}
            .languages=${textLanguages(draft)}
            .selected=${language}
            @text-language-select=${this.#onLanguageSelect}
            @text-language-add=${this.#onLanguageAdd}
            @text-language-remove=${this.#onLanguageRemove}
          ></bo-text-languages>
          <form
            novalidate
            aria-label=${msg(str`${kindName(this.kind)} widget settings`)}
            @submit=${this.#publish}
            @input=${this.#onInput}
            @change=${this.#onInput}
          >
            ${formProblem(this.errors)}
            ${keyed(`${this.kind}:${this.formKey}`, html`<div class="fields">${form}</div>`)}
            <div class="actions">
              <button
                class="button button--primary"
                type="submit"
                id="publish"
                aria-disabled=${this.busy || this.restoring ? "true" : "false"}
              >
                ${this.busy ? msg("Publishing…") : msg("Publish")}
              </button>
              <button
                class="button"
                type="button"
                aria-disabled=${dirty ? "false" : "true"}
                @click=${this.#discard}
              >
                ${msg("Discard changes")}
              </button>
              <span
                class="save-status ${dirty ? "save-status--dirty" : this.published ? "save-status--published" : ""}"
                role="status"
                >${dirty ? msg("Unpublished changes") : this.published ? msg("Published") : ""}</span
              >
            </div>
          </form>
        </div>
        <section class="preview" aria-labelledby="preview-heading">
          <h2 id="preview-heading">${msg("Preview")}</h2>
          ${widgetPreview(this.kind, this.store, draft, {
            samplePoints: this.#samplePoints.value,
            language,
          })}
        </section>
      </div>`;
  }

  #onInput(event: Event): void {
    const control = event.target;
    if (
      !(
        control instanceof HTMLInputElement ||
        control instanceof HTMLSelectElement ||
        control instanceof HTMLTextAreaElement
      ) ||
      !this.draft ||
      !this.saved
    ) {
      return;
    }
    const path = control.name || control.dataset["for"];
    if (!path) return;
    let value: unknown = control.value;
    if (control instanceof HTMLInputElement && control.type === "checkbox") {
      value = control.checked;
    } else if (control instanceof HTMLSelectElement && control.value === "") {
      // "No second button": the option leaves the action out.
      value = undefined;
    }
    // A translation left empty is the same as none: the default text.
    const current =
      valueAt(this.draft, path) ?? (path.startsWith("translations.") ? "" : undefined);
    if (current === value) return;
    this.draft = withValue(this.draft, path, value, this.saved.config);
    this.published = false;
  }

  #onTabKey(event: KeyboardEvent): void {
    const index = KINDS.indexOf(this.kind);
    const last = KINDS.length - 1;
    const next = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    void this.#select(KINDS[next]!);
  }

  async #select(kind: WidgetKind): Promise<void> {
    if (kind === this.kind) return;
    if (this.#dirty && !(await this.#confirmDiscard())) {
      // A click focused the other tab: the keyboard goes on from the one still selected.
      this.renderRoot.querySelector<HTMLElement>(`#tab-${this.kind}`)?.focus();
      return;
    }
    this.kind = kind;
    this.saved = undefined;
    this.draft = undefined;
    this.language = undefined;
    this.published = false;
    this.errors = NO_ERRORS;
    const url = new URL(location.href);
    url.searchParams.set(WIDGET_PARAM, kind);
    history.replaceState(history.state, "", url);
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(`#tab-${kind}`)?.focus();
  }

  async #addItem(list: ItemList): Promise<void> {
    if (!this.draft || !this.saved) return;
    const path = ITEM_PATHS[list];
    const items = (valueAt(this.draft, path) as unknown[] | undefined) ?? [];
    const item =
      list === "faq" ? { question: "", answer: "" } : { icon: "custom", title: "", text: "" };
    this.draft = withValue(this.draft, path, [...items, item], this.saved.config);
    this.published = false;
    this.formKey += 1;
    await this.updateComplete;
    // The new item's first field: where the user goes on typing.
    const first = list === "faq" ? "question" : "icon";
    this.renderRoot
      .querySelector<HTMLElement>(`[name="${path}.${items.length}.${first}"]`)
      ?.focus();
  }

  async #removeItem(list: ItemList, index: number): Promise<void> {
    if (!this.draft || !this.saved) return;
    // Its translations go with it: the items after it keep theirs.
    this.draft = withoutItem(this.draft, ITEM_PATHS[list], index);
    this.published = false;
    // The issues of the items after it no longer name the right fields.
    this.errors = NO_ERRORS;
    this.formKey += 1;
    announce(msg("Item removed."));
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(`#add-${list}`)?.focus();
  }

  #onLanguageSelect(event: CustomEvent<TextLanguageDetail>): void {
    this.#showLanguage(event.detail.language);
    announce(
      msg(
        str`The form shows the texts in ${languageName(event.detail.language ?? this.store.language)}.`,
      ),
    );
  }

  #onLanguageAdd(event: CustomEvent<TextLanguageDetail>): void {
    const { language } = event.detail;
    if (!this.draft || language === undefined) return;
    this.draft = withLanguage(this.draft, language);
    this.published = false;
    this.#showLanguage(language);
    announce(msg(str`${languageName(language)} added: the form shows the texts to translate.`));
  }

  #onLanguageRemove(event: CustomEvent<TextLanguageDetail>): void {
    const { language } = event.detail;
    if (!this.draft || language === undefined) return;
    this.draft = withoutLanguage(this.draft, language);
    this.published = false;
    this.#showLanguage(undefined);
    announce(msg(str`The texts in ${languageName(language)} are removed from the draft.`));
  }

  #showLanguage(language: string | undefined): void {
    if (language === this.language) return;
    this.language = language;
    this.formKey += 1;
  }

  /** The names of the form's controls: the issue paths it can show. */
  #fieldNames(): string[] {
    return [...this.renderRoot.querySelectorAll<HTMLInputElement>("form [name]")].map(
      (control) => control.name,
    );
  }

  async #discard(): Promise<void> {
    if (!this.#dirty || !this.saved) return;
    this.#discardDraft();
    announce(msg("Changes discarded: the form shows the published configuration."));
    await this.updateComplete;
  }

  async #restoreDefault(): Promise<void> {
    if (this.busy || this.restoring || !this.saved || this.saved.isDefault) return;
    const { kind, store } = this;
    const language = languageName(store.language);
    const consequence = msg(
      str`The ${kindName(kind)} widget shows the default texts in ${language} on your store at once. The configuration you published is deleted.`,
    );
    const confirmed = await confirmAction({
      heading: msg(str`Restore the default ${kindName(kind)} widget?`),
      body: this.#dirty
        ? `${consequence} ${msg("Your unpublished changes are lost too.")}`
        : consequence,
      confirmLabel: msg("Restore the default"),
      destructive: true,
    });
    if (!confirmed || this.kind !== kind || this.store.id !== store.id) return;
    this.restoring = true;
    try {
      const restored = await restoreDefault(kind, store.id);
      // Another widget or store chosen meanwhile: its own load shows what is served.
      if (this.kind !== kind || this.store.id !== store.id) return;
      this.#reset(restored);
      this.published = false;
      announce(
        msg(
          str`Default restored: the ${kindName(kind)} widget shows the default texts in ${language}.`,
        ),
      );
      // The button is gone: the focus goes to what the widget uses now.
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#widget-state")?.focus();
    } catch (error) {
      this.errors = formErrors(error, []);
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
    } finally {
      this.restoring = false;
    }
  }

  async #publish(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.busy || this.restoring || !this.draft) return;
    this.busy = true;
    try {
      const saved = await publish(this.kind, this.store.id, this.draft);
      this.saved = saved;
      this.draft = structuredClone(saved.config);
      this.#keepLanguage();
      this.errors = NO_ERRORS;
      this.published = true;
    } catch (error) {
      // A problem in the texts of another language: the form shows that language's.
      const shown = languageOfIssues(error, textLanguages(this.draft));
      if (shown && shown.language !== this.language) {
        this.#showLanguage(shown.language);
        announce(
          msg(
            str`Something to fix in the texts in ${languageName(shown.language ?? this.store.language)}: the form shows them.`,
          ),
        );
        await this.updateComplete;
      }
      this.errors = withWidgetMessages(formErrors(error, this.#fieldNames()), error);
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
    } finally {
      this.busy = false;
    }
  }
}

define("bo-widgets-screen", WidgetsScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-widgets-screen": WidgetsScreen;
  }
}
