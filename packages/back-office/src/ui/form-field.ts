import { css, html, nothing, type TemplateResult } from "lit";
import { ifDefined } from "lit/directives/if-defined.js";

/*
 * Form fields as templates, rendered into the screen's own shadow root: the label, the control,
 * its hint and its error share one root, so `for`, `aria-describedby` and the form's FormData
 * all work (they do not cross shadow roots). Read the values with `new FormData(form)`.
 *
 * ```ts
 * inputField({ name: "email", label: msg("Email"), type: "email", error: this.errors.fields.email })
 * ```
 */

interface FieldBase {
  /** The control's name: the issue path of its value (`email`, `voucher.value`). */
  name: string;
  label: string;
  hint?: string | undefined;
  /** The message to show; the control is then marked invalid. */
  error?: string | undefined;
  required?: boolean;
  disabled?: boolean;
  /** Unique within the shadow root: defaults to `field-<name>`. */
  id?: string;
}

export interface InputFieldOptions extends FieldBase {
  type?: "text" | "email" | "password" | "number" | "url" | "search" | "date" | "tel" | "color";
  value?: string | number | undefined;
  placeholder?: string;
  autocomplete?: string;
  inputmode?: "numeric" | "decimal" | "email" | "url" | "search" | "text";
  min?: number | string;
  max?: number | string;
  step?: number | string;
  maxlength?: number;
  spellcheck?: boolean;
  /** The id of a `<datalist>` of suggestions, in the same root. */
  list?: string;
  /** Called on each change of the value, as the user types. */
  onInput?: (event: InputEvent) => void;
  /** The language of the value, when it is not the app's (a text the user translates). */
  lang?: string;
}

export interface SelectFieldOptions extends FieldBase {
  options: readonly { value: string; label: string }[];
  value?: string | undefined;
}

export interface TextareaFieldOptions extends FieldBase {
  value?: string | undefined;
  rows?: number;
  placeholder?: string;
  /** The language of the value, when it is not the app's (a text the user translates). */
  lang?: string;
}

function ids(options: FieldBase) {
  const id = options.id ?? `field-${options.name.replace(/[^\w-]/g, "-")}`;
  const hint = options.hint ? `${id}-hint` : undefined;
  const error = options.error ? `${id}-error` : undefined;
  const describedBy = [hint, error].filter(Boolean).join(" ") || undefined;
  return { id, hint, error, describedBy };
}

function field(options: FieldBase, control: (id: string, describedBy?: string) => TemplateResult) {
  const { id, hint, error, describedBy } = ids(options);
  return html`<div class="field ${options.error ? "field--invalid" : ""}">
    <label class="field__label" for=${id}
      >${options.label}${
        options.required
          ? html`<span class="field__required" aria-hidden="true"> *</span>`
          : nothing
      }</label
    >
    ${hint ? html`<p class="field__hint" id=${hint}>${options.hint}</p>` : nothing}
    ${control(id, describedBy)}
    ${
      error
        ? html`<p class="field__error" id=${error}>
            <span class="field__error-icon" aria-hidden="true">!</span>${options.error}
          </p>`
        : nothing
    }
  </div>`;
}

export function inputField(options: InputFieldOptions): TemplateResult {
  return field(
    options,
    (id, describedBy) =>
      html`<input
        class="field__control"
        id=${id}
        name=${options.name}
        type=${options.type ?? "text"}
        value=${ifDefined(options.value === undefined ? undefined : String(options.value))}
        placeholder=${ifDefined(options.placeholder)}
        autocomplete=${ifDefined(options.autocomplete)}
        inputmode=${ifDefined(options.inputmode)}
        min=${ifDefined(options.min)}
        max=${ifDefined(options.max)}
        step=${ifDefined(options.step)}
        maxlength=${ifDefined(options.maxlength)}
        list=${ifDefined(options.list)}
        lang=${ifDefined(options.lang)}
        spellcheck=${ifDefined(options.spellcheck === undefined ? undefined : String(options.spellcheck))}
        aria-describedby=${ifDefined(describedBy)}
        aria-invalid=${options.error ? "true" : "false"}
        ?required=${options.required}
        ?disabled=${options.disabled}
        @input=${options.onInput}
      />`,
  );
}

export function selectField(options: SelectFieldOptions): TemplateResult {
  return field(
    options,
    (id, describedBy) =>
      html`<select
        class="field__control"
        id=${id}
        name=${options.name}
        aria-describedby=${ifDefined(describedBy)}
        aria-invalid=${options.error ? "true" : "false"}
        ?required=${options.required}
        ?disabled=${options.disabled}
      >
        ${options.options.map(
          (option) =>
            html`<option value=${option.value} ?selected=${option.value === options.value}>
              ${option.label}
            </option>`,
        )}
      </select>`,
  );
}

export function textareaField(options: TextareaFieldOptions): TemplateResult {
  return field(
    options,
    (id, describedBy) =>
      html`<textarea
        class="field__control"
        id=${id}
        name=${options.name}
        rows=${options.rows ?? 4}
        placeholder=${ifDefined(options.placeholder)}
        lang=${ifDefined(options.lang)}
        aria-describedby=${ifDefined(describedBy)}
        aria-invalid=${options.error ? "true" : "false"}
        ?required=${options.required}
        ?disabled=${options.disabled}
        .defaultValue=${options.value ?? ""}
      ></textarea>`,
  );
}

/** The fields' look: add it to the styles of an element that renders fields. */
export const fieldStyles = css`
  .field {
    display: grid;
    gap: 0.3rem;
    margin: 0 0 var(--bo-space);
  }
  .field__label {
    font-weight: 600;
  }
  .field__required {
    color: var(--bo-danger);
  }
  .field__hint {
    margin: 0;
    color: var(--bo-muted);
    font-size: 0.9375rem;
  }
  .field__control {
    inline-size: 100%;
    min-block-size: 2.75rem;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--bo-control-border);
    border-radius: var(--bo-radius);
    background: var(--bo-surface);
    color: var(--bo-text);
    font: inherit;
  }
  textarea.field__control {
    resize: vertical;
  }
  .field__control:focus-visible {
    outline: 3px solid var(--bo-focus);
    outline-offset: 1px;
  }
  .field--invalid .field__control {
    border-color: var(--bo-danger);
    border-width: 2px;
  }
  .field__error {
    display: flex;
    gap: 0.4rem;
    align-items: baseline;
    margin: 0;
    color: var(--bo-danger);
    font-weight: 600;
  }
  .field__error-icon {
    display: inline-grid;
    place-items: center;
    flex: none;
    inline-size: 1.1em;
    block-size: 1.1em;
    border-radius: 50%;
    background: var(--bo-danger);
    color: #fff;
    font-size: 0.8em;
  }
  @media (forced-colors: active) {
    .field--invalid .field__control {
      border-color: Mark;
    }
    .field__error-icon {
      border: 1px solid CanvasText;
    }
  }
`;
