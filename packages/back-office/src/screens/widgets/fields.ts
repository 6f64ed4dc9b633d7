import { msg, str } from "@lit/localize";
import { css, html, nothing, type TemplateResult } from "lit";
import { ifDefined } from "lit/directives/if-defined.js";
import { live } from "lit/directives/live.js";

/*
 * The fields src/ui/form-field.ts has no template for, written the same way (label, hint and
 * error in the screen's shadow root, `name` = the issue path of the value, the same classes):
 * a checkbox, and a colour as text with a picker beside it.
 */

function fieldIds(name: string, hint: string | undefined, error: string | undefined) {
  const id = `field-${name.replace(/[^\w-]/g, "-")}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return {
    id,
    hintId,
    errorId,
    describedBy: [hintId, errorId].filter(Boolean).join(" ") || undefined,
  };
}

function fieldError(id: string | undefined, error: string | undefined) {
  return id && error
    ? html`<p class="field__error" id=${id}>
        <span class="field__error-icon" aria-hidden="true">!</span>${error}
      </p>`
    : nothing;
}

export interface CheckboxFieldOptions {
  name: string;
  label: string;
  checked: boolean;
  hint?: string | undefined;
  error?: string | undefined;
}

/** A checkbox, its label beside it. Its value is `checked` (read it from the element). */
export function checkboxField(options: CheckboxFieldOptions): TemplateResult {
  const { id, hintId, errorId, describedBy } = fieldIds(options.name, options.hint, options.error);
  return html`<div class="field field--check ${options.error ? "field--invalid" : ""}">
    <div class="check">
      <input
        class="check__control"
        type="checkbox"
        id=${id}
        name=${options.name}
        .checked=${live(options.checked)}
        aria-describedby=${ifDefined(describedBy)}
        aria-invalid=${options.error ? "true" : "false"}
      />
      <label class="field__label" for=${id}>${options.label}</label>
    </div>
    ${hintId ? html`<p class="field__hint" id=${hintId}>${options.hint}</p>` : nothing}
    ${fieldError(errorId, options.error)}
  </div>`;
}

export interface ColorFieldOptions {
  name: string;
  label: string;
  /** The configuration's value: a colour, or "" for the fallback. */
  value: string;
  /** What "" stands for (the store's branding colour, say): the picker shows it. */
  fallback: string;
  hint?: string | undefined;
  error?: string | undefined;
}

const HEX6 = /^#[0-9a-f]{6}$/i;
const HEX3 = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i;

/** The picker's value (`#rrggbb` only) for a colour of the configuration. */
function pickerValue(value: string, fallback: string): string {
  for (const colour of [value, fallback]) {
    if (HEX6.test(colour)) return colour.toLowerCase();
    const short = HEX3.exec(colour);
    if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`;
  }
  return "#000000";
}

/**
 * A colour: typed (`#1a73e8`, `rgb(26 115 232)`, or empty for the fallback) or picked. The
 * picker carries `data-for` instead of a name: the text field is the value.
 */
export function colorField(options: ColorFieldOptions): TemplateResult {
  const { id, hintId, errorId, describedBy } = fieldIds(options.name, options.hint, options.error);
  const label = options.label;
  return html`<div class="field ${options.error ? "field--invalid" : ""}">
    <label class="field__label" for=${id}>${label}</label>
    ${hintId ? html`<p class="field__hint" id=${hintId}>${options.hint}</p>` : nothing}
    <div class="color">
      <input
        class="field__control"
        id=${id}
        name=${options.name}
        type="text"
        spellcheck="false"
        autocomplete="off"
        .value=${live(options.value)}
        aria-describedby=${ifDefined(describedBy)}
        aria-invalid=${options.error ? "true" : "false"}
      />
      <input
        class="color__picker"
        type="color"
        data-for=${options.name}
        aria-label=${msg(str`Colour picker: ${label}`)}
        .value=${live(pickerValue(options.value, options.fallback))}
      />
    </div>
    ${fieldError(errorId, options.error)}
  </div>`;
}

/** The look of these fields, with `fieldStyles`. */
export const extraFieldStyles = css`
  .check {
    display: flex;
    align-items: center;
    gap: 0.6rem;
  }
  .check__control {
    flex: none;
    inline-size: 1.5rem;
    block-size: 1.5rem;
    margin: 0;
    accent-color: var(--bo-accent);
  }
  .field--check .field__label {
    font-weight: 600;
  }
  .field--check .field__hint,
  .field--check .field__error {
    margin-inline-start: 2.1rem;
  }
  .color {
    display: flex;
    gap: 0.5rem;
  }
  .color .field__control {
    flex: 1 1 auto;
    min-inline-size: 0;
  }
  .color__picker {
    flex: none;
    inline-size: 3rem;
    min-block-size: 2.75rem;
    padding: 0.2rem;
    border: 1px solid var(--bo-control-border);
    border-radius: var(--bo-radius);
    background: var(--bo-surface);
    cursor: pointer;
  }
`;
