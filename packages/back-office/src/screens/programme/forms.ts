import { msg, str } from "@lit/localize";
import type {
  AttributionRule,
  Club,
  ClubPolicy,
  CreateClubRequest,
  CreateRuleRequest,
  RuleKind,
  UpdateRuleRequest,
} from "@loyalty/shared-types";
import { css, html, nothing, type TemplateResult } from "lit";
import type { FieldIssue } from "../../api/errors.js";
import type { FormErrors } from "../../ui/field-errors.js";
import { formText } from "../../ui/form-data.js";
import { inputField, selectField } from "../../ui/form-field.js";
import { formProblem } from "../../ui/form-problem.js";
import { currencyUnit, targetText, thresholdHint } from "./describe.js";
import type { Fallback } from "../../ui/field-errors.js";

/*
 * The rule and club forms: templates rendered in the programme screen's shadow root (labels,
 * descriptions and FormData work there), and the bodies read from them. A number field left
 * empty is NaN, which the operation's schema refuses ("Enter a number."), never 0 by accident.
 */

function numberFrom(text: string): number {
  return text === "" ? Number.NaN : Number(text);
}

/** The form's text fields, trimmed. */
function textOf(form: HTMLFormElement): (name: string) => string {
  const data = new FormData(form);
  return (name) => formText(data, name).trim();
}

/** A checkbox with its label, hint and error, as the fields of form-field.ts. */
function checkboxField(options: {
  id: string;
  name: string;
  label: string;
  hint?: string;
  checked: boolean;
  error?: string | undefined;
}): TemplateResult {
  const hint = options.hint ? `${options.id}-hint` : undefined;
  const error = options.error ? `${options.id}-error` : undefined;
  const describedBy = [hint, error].filter(Boolean).join(" ");
  return html`<div class="field field--check ${options.error ? "field--invalid" : ""}">
    <div class="check">
      <input
        type="checkbox"
        id=${options.id}
        name=${options.name}
        ?checked=${options.checked}
        aria-describedby=${describedBy || nothing}
        aria-invalid=${options.error ? "true" : "false"}
      />
      <label class="field__label" for=${options.id}>${options.label}</label>
    </div>
    ${hint ? html`<p class="field__hint" id=${hint}>${options.hint}</p>` : nothing}
    ${
      error
        ? html`<p class="field__error" id=${error}>
            <span class="field__error-icon" aria-hidden="true">!</span>${options.error}
          </p>`
        : nothing
    }
  </div>`;
}

export interface FormOptions {
  /** Unique in the screen: the fields' ids start with it. */
  prefix: string;
  errors: FormErrors;
  saving: boolean;
  onSubmit: (event: SubmitEvent) => void;
  onCancel: () => void;
}

function formFrame(
  options: FormOptions & { label: string; submitLabel: string },
  fields: TemplateResult,
): TemplateResult {
  return html`<form
    class="edit-form card"
    novalidate
    aria-label=${options.label}
    @submit=${options.onSubmit}
    @keydown=${(event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        options.onCancel();
      }
    }}
  >
    ${formProblem(options.errors)} ${fields}
    <div class="form-actions">
      <button class="button button--primary" aria-disabled=${options.saving ? "true" : "false"}>
        ${options.saving ? msg("Saving…") : options.submitLabel}
      </button>
      <button class="button" type="button" @click=${options.onCancel}>${msg("Cancel")}</button>
    </div>
  </form>`;
}

/* ---------- Rules ---------- */

/** The rule form's fields, for `fieldErrors()`: what to say where the schema has no words. */
export function ruleFieldMessages(kind: RuleKind): Record<string, Fallback> {
  const conflict = (issue: FieldIssue) =>
    issue.code === "conflict"
      ? kind === "default"
        ? msg(
            "An active default rule exists already: deactivate it first, or save this one inactive.",
          )
        : msg(
            "Another active rule has this target: deactivate it first, or save this one inactive.",
          )
      : msg("Enter the id, a whole number.");
  return {
    kind: conflict,
    targetId: conflict,
    name: msg("Enter at most 200 characters."),
    rate: msg("Enter a number."),
    pointsPerItem: msg("Enter a whole number."),
    active: (issue) =>
      issue.code === "conflict"
        ? msg("Another active rule has the same target: deactivate it first.")
        : msg("Choose one of the proposed values."),
  };
}

export interface RuleFormOptions extends FormOptions {
  /** The rule edited; none to create one. */
  rule?: AttributionRule | undefined;
  /** The kind chosen in the create form (the target field depends on it). */
  kind: RuleKind;
  onKindChange: (kind: RuleKind) => void;
  currency: string;
}

export function ruleForm(options: RuleFormOptions): TemplateResult {
  const { rule, prefix, errors, kind } = options;
  const field = (name: string) => ({ name, id: `${prefix}-${name}`, error: errors.fields[name] });
  const target = rule
    ? html`<p class="fixed-target">
        <strong>${targetText(rule)}</strong>
        <span class="muted"
          >${msg("What a rule applies to cannot change: create another rule for another target.")}</span
        >
      </p>`
    : html`${selectField({
        ...field("kind"),
        label: msg("Applies to"),
        value: kind,
        options: [
          { value: "product", label: msg("One product (product rule)") },
          { value: "category", label: msg("One category (category rule)") },
          { value: "default", label: msg("Every other product (default rule)") },
        ],
      })}
      ${
        kind === "default"
          ? nothing
          : inputField({
              ...field("targetId"),
              label: kind === "product" ? msg("Product id") : msg("Category id"),
              hint: msg("The id your store's platform gives it."),
              inputmode: "numeric",
              required: true,
              autocomplete: "off",
            })
      }`;
  return formFrame(
    {
      ...options,
      label: rule ? msg("Edit the rule") : msg("New rule"),
      submitLabel: rule ? msg("Save the rule") : msg("Create the rule"),
    },
    html`<div
        @change=${(event: Event) => {
          const select = event.target as HTMLSelectElement;
          if (select.name === "kind") options.onKindChange(select.value as RuleKind);
        }}
      >
        ${target}
      </div>
      ${inputField({
        ...field("name"),
        label: msg("Name"),
        hint: msg("For you and your team: customers do not see it."),
        value: rule?.name ?? "",
        autocomplete: "off",
      })}
      <div class="field-row">
        ${inputField({
          ...field("rate"),
          label: msg(str`Points per ${currencyUnit(options.currency)} spent`),
          type: "number",
          inputmode: "decimal",
          min: 0,
          step: "any",
          required: true,
          value: rule?.rate ?? 1,
        })}
        ${inputField({
          ...field("pointsPerItem"),
          label: msg("Extra points per item"),
          type: "number",
          inputmode: "numeric",
          min: 0,
          step: 1,
          value: rule?.pointsPerItem ?? 0,
        })}
      </div>
      ${checkboxField({
        ...field("active"),
        label: msg("Active"),
        hint: msg("One active rule per product, per category, and one active default rule."),
        checked: rule?.active ?? true,
      })}`,
  );
}

/** The body of createRule from the form. */
export function ruleCreateBody(form: HTMLFormElement): CreateRuleRequest {
  const text = textOf(form);
  const kind = text("kind") as RuleKind;
  const target = text("targetId");
  return {
    kind,
    targetId: kind === "default" || target === "" ? null : numberFrom(target),
    ...ruleUpdateBody(form),
  };
}

/** The body of updateRule from the form: every field it shows. */
export function ruleUpdateBody(form: HTMLFormElement): Required<UpdateRuleRequest> {
  const text = textOf(form);
  const pointsPerItem = text("pointsPerItem");
  return {
    name: text("name"),
    rate: numberFrom(text("rate")),
    // Extra points are optional: an empty field means none.
    pointsPerItem: pointsPerItem === "" ? 0 : numberFrom(pointsPerItem),
    active: new FormData(form).get("active") === "on",
  };
}

/* ---------- Clubs ---------- */

export function clubFieldMessages(): Record<string, Fallback> {
  return {
    name: msg("This field is required."),
    threshold: (issue) =>
      issue.code === "conflict"
        ? msg("Another club has this threshold: choose another one.")
        : msg("Enter a whole number."),
    multiplier: msg("Enter a number."),
  };
}

export interface ClubFormOptions extends FormOptions {
  club?: Club | undefined;
  /** How the store counts thresholds: the threshold field says it. */
  policy: ClubPolicy;
}

export function clubForm(options: ClubFormOptions): TemplateResult {
  const { club, prefix, errors } = options;
  const field = (name: string) => ({ name, id: `${prefix}-${name}`, error: errors.fields[name] });
  return formFrame(
    {
      ...options,
      label: club ? msg("Edit the club") : msg("New club"),
      submitLabel: club ? msg("Save the club") : msg("Create the club"),
    },
    html`${inputField({
        ...field("name"),
        label: msg("Name"),
        hint: msg("Customers see it, in the widgets."),
        required: true,
        value: club?.name ?? "",
        autocomplete: "off",
      })}
      <div class="field-row">
        ${inputField({
          ...field("threshold"),
          label:
            options.policy.basis === "amount-spent"
              ? msg("Amount to reach it")
              : msg("Points to reach it"),
          hint: thresholdHint(options.policy),
          type: "number",
          inputmode: "numeric",
          min: 0,
          step: 1,
          required: true,
          value: club?.threshold ?? "",
        })}
        ${inputField({
          ...field("multiplier"),
          label: msg("Points multiplier"),
          hint: msg("1 keeps the points as earned; 1.5 gives 50% more."),
          type: "number",
          inputmode: "decimal",
          min: 0,
          step: "any",
          required: true,
          value: club?.multiplier ?? 1,
        })}
      </div>`,
  );
}

/** The body of createClub (and updateClub: the same fields) from the form. */
export function clubBody(form: HTMLFormElement): CreateClubRequest {
  const text = textOf(form);
  return {
    name: text("name"),
    threshold: numberFrom(text("threshold")),
    multiplier: numberFrom(text("multiplier")),
  };
}

/** The forms' own look, beside the fields' (fieldStyles). */
export const formStyles = css`
  .edit-form {
    margin-block: 0.75rem;
  }
  .field-row {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(100%, 12rem), 1fr));
    gap: 0 1rem;
  }
  /* A field beside a taller one keeps its control at its own height. */
  .field-row > .field {
    align-content: start;
  }
  .field--check .check {
    display: flex;
    align-items: center;
    gap: 0.5rem;
  }
  .field--check input {
    inline-size: 1.5rem;
    block-size: 1.5rem;
    margin: 0;
    accent-color: var(--bo-accent);
  }
  .fixed-target {
    display: grid;
    gap: 0.15rem;
  }
  .form-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
`;
