import { msg } from "@lit/localize";
import { Task } from "@lit/task";
import type { ReferralProgram, ReferralProgramInput, VoucherKind } from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { BoElement, define } from "../../ui/element.js";
import {
  focusFirstProblem,
  formErrors,
  NO_ERRORS,
  type FormErrors,
} from "../../ui/field-errors.js";
import { formText } from "../../ui/form-data.js";
import { fieldStyles, inputField, selectField } from "../../ui/form-field.js";
import { formProblem } from "../../ui/form-problem.js";
import { taskView } from "../../ui/state-view.js";
import { base } from "../../ui/styles.js";
import { focusAfterUpdate, savedStatus } from "./form-parts.js";
import { integrationStyles } from "./integration-styles.js";

const VOUCHER = "refereeVoucher";
const FIELDS = [
  "active",
  "referrerBonus",
  `${VOUCHER}.kind`,
  `${VOUCHER}.value`,
  `${VOUCHER}.currency`,
  `${VOUCHER}.minimumOrderAmount`,
  `${VOUCHER}.validityDays`,
  "landingUrl",
];

/**
 * The store's referral programme: the referrer's bonus, the referee's voucher and the page the
 * invitation links to. Until one is set the service refuses invitations: the section says so,
 * above the same form.
 *
 * @summary The referral programme section of the integrations screen.
 */
export class ReferralSection extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    integrationStyles,
    css`
      .programme {
        --bo-state-view-min-size: 40rem;
      }
      form {
        max-inline-size: 44rem;
      }
      .row {
        display: grid;
        gap: 0 var(--bo-space);
      }
      @media (min-width: 40rem) {
        .row {
          grid-template-columns: repeat(2, minmax(0, 1fr));
        }
      }
      .check {
        margin-block-end: 0.25rem;
        font-weight: 600;
      }
      .check-hint {
        margin: 0 0 var(--bo-space);
      }
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    /** The store's currency: a new voucher's amount is in it. */
    currency: {},
    program: { state: true },
    kind: { state: true },
    errors: { state: true },
    saving: { state: true },
    saved: { state: true },
  };

  declare storeId: number;
  declare currency: string;
  /** The programme as saved; null while there is none. */
  declare program: ReferralProgram | null;
  /** The voucher kind chosen in the form: its fields show. */
  declare kind: VoucherKind;
  declare errors: FormErrors;
  declare saving: boolean;
  declare saved: boolean;

  readonly #load = new Task(this, {
    task: async ([storeId], { signal }) => {
      try {
        return await api.call("getReferralProgram", { params: { storeId }, signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    args: () => [this.storeId] as const,
    onComplete: (program) => {
      this.program = program;
      this.kind = program?.refereeVoucher.kind ?? "percentage";
    },
  });

  constructor() {
    super();
    this.currency = "EUR";
    this.program = null;
    this.kind = "percentage";
    this.errors = NO_ERRORS;
    this.saving = false;
    this.saved = false;
  }

  protected override render() {
    return html`<section aria-labelledby="referral-heading">
      <h2 id="referral-heading">${msg("Referral programme")}</h2>
      <p class="intro">
        ${msg(
          "A customer invites a friend by email. The friend gets a discount code; the customer earns a bonus when the friend's first order is registered.",
        )}
      </p>
      ${taskView(this.#load, {
        class: "programme",
        label: msg("Loading the referral programme"),
        ready: () => this.#renderForm(),
      })}
    </section>`;
  }

  #renderForm() {
    const program = this.program;
    const voucher = program?.refereeVoucher;
    const fields = this.errors.fields;
    const same = voucher?.kind === this.kind;
    return html`${
        program === null
          ? html`<div class="alert alert--info" id="no-programme">
              <p>
                <strong>${msg("No referral programme yet.")}</strong>
                ${msg("Invitations are refused until you save one.")}
              </p>
            </div>`
          : nothing
      }
      <form novalidate @submit=${this.#save} @change=${this.#changed}>
        ${savedStatus("referral-saved", this.saved ? msg("Referral programme saved.") : undefined)}
        ${formProblem(this.errors)}
        <label class="check">
          <input
            type="checkbox"
            name="active"
            aria-describedby="active-hint"
            ?checked=${program?.active ?? true}
          />
          <span>${msg("Accept new invitations")}</span>
        </label>
        <p class="field__hint check-hint" id="active-hint">
          ${msg("Unchecked: new invitations are refused; those already sent still complete.")}
        </p>
        ${inputField({
          name: "referrerBonus",
          label: msg("Referrer's bonus (points)"),
          type: "number",
          min: 0,
          step: 1,
          required: true,
          value: program?.referrerBonus ?? "",
          hint: msg("Earned when the friend's first order is registered."),
          error: fields["referrerBonus"],
        })}
        <fieldset>
          <legend>${msg("The friend's discount code")}</legend>
          <div class="row">
            ${selectField({
              name: `${VOUCHER}.kind`,
              label: msg("Kind"),
              value: this.kind,
              options: [
                { value: "percentage", label: msg("Percentage off") },
                { value: "fixed_amount", label: msg("Amount off") },
                { value: "free_shipping", label: msg("Free shipping") },
              ],
              error: fields[`${VOUCHER}.kind`],
            })}
            ${
              this.kind === "free_shipping"
                ? nothing
                : inputField({
                    name: `${VOUCHER}.value`,
                    label: this.kind === "percentage" ? msg("Percentage off") : msg("Amount off"),
                    type: "number",
                    min: 0,
                    step: 0.01,
                    required: true,
                    value: same ? (voucher?.value ?? "") : "",
                    hint: this.kind === "percentage" ? msg("From 0.01 to 100.") : undefined,
                    error: fields[`${VOUCHER}.value`],
                  })
            }
          </div>
          <div class="row">
            ${
              this.kind === "fixed_amount"
                ? inputField({
                    name: `${VOUCHER}.currency`,
                    label: msg("Currency"),
                    required: true,
                    spellcheck: false,
                    autocomplete: "off",
                    value: (same ? voucher?.currency : null) ?? this.currency,
                    hint: msg("Its code, such as EUR."),
                    error: fields[`${VOUCHER}.currency`],
                  })
                : nothing
            }
            ${inputField({
              name: `${VOUCHER}.minimumOrderAmount`,
              label: msg("Minimum order"),
              type: "number",
              min: 0,
              step: 0.01,
              value: voucher?.minimumOrderAmount ?? "",
              hint: msg("Empty: any order."),
              error: fields[`${VOUCHER}.minimumOrderAmount`],
            })}
            ${inputField({
              name: `${VOUCHER}.validityDays`,
              label: msg("Valid for (days)"),
              type: "number",
              min: 1,
              step: 1,
              value: voucher?.validityDays ?? "",
              hint: msg("Empty: no expiry."),
              error: fields[`${VOUCHER}.validityDays`],
            })}
          </div>
        </fieldset>
        ${inputField({
          name: "landingUrl",
          label: msg("Landing page"),
          type: "url",
          spellcheck: false,
          autocomplete: "off",
          value: program?.landingUrl ?? "",
          hint: msg("The invitation links there. Empty: the store's home page."),
          error: fields["landingUrl"],
        })}
        <button class="button button--primary" aria-disabled=${this.saving ? "true" : "false"}>
          ${this.saving ? msg("Saving…") : msg("Save the referral programme")}
        </button>
      </form>`;
  }

  #changed(event: Event): void {
    const target = event.target as HTMLSelectElement;
    if (target.name === `${VOUCHER}.kind`) this.kind = target.value as VoucherKind;
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.target as HTMLFormElement;
    const body = programOf(new FormData(form));
    this.saving = true;
    this.saved = false;
    try {
      this.program = await api.call("setReferralProgram", {
        params: { storeId: this.storeId },
        body,
      });
      this.kind = this.program.refereeVoucher.kind;
      this.errors = NO_ERRORS;
      this.saved = true;
      await focusAfterUpdate(this, "#referral-saved");
    } catch (error) {
      this.errors = voucherErrors(formErrors(error, FIELDS), error, body);
      await this.updateComplete;
      focusFirstProblem(form);
    } finally {
      this.saving = false;
    }
  }
}

/** The form's values as the operation takes them (an empty optional field: null). */
function programOf(data: FormData): ReferralProgramInput {
  const text = (name: string) => formText(data, name).trim();
  // An empty required number is no number: the schema says so next to its field.
  const number = (name: string) => (text(name) === "" ? Number.NaN : Number(text(name)));
  const optionalNumber = (name: string) => (text(name) === "" ? null : Number(text(name)));
  const kind = text(`${VOUCHER}.kind`) as VoucherKind;
  return {
    active: data.has("active"),
    referrerBonus: number("referrerBonus"),
    refereeVoucher: {
      kind,
      value: kind === "free_shipping" ? null : number(`${VOUCHER}.value`),
      currency: kind === "fixed_amount" ? text(`${VOUCHER}.currency`).toUpperCase() : null,
      minimumOrderAmount: optionalNumber(`${VOUCHER}.minimumOrderAmount`),
      validityDays: optionalNumber(`${VOUCHER}.validityDays`),
    },
    landingUrl: text("landingUrl") || null,
  };
}

/**
 * The voucher's own checks (what each kind needs) speak the schema's English: the value's,
 * here, in the user's words.
 */
function voucherErrors(errors: FormErrors, error: unknown, body: ReferralProgramInput): FormErrors {
  const value = body.refereeVoucher.value;
  const custom =
    error instanceof ApiError &&
    error.issues.some((issue) => issue.field === `${VOUCHER}.value` && issue.code === "custom");
  if (!custom || typeof value !== "number") return errors;
  const message = value <= 0 ? msg("Enter more than 0.") : msg("Enter 100 or less.");
  return { ...errors, fields: { ...errors.fields, [`${VOUCHER}.value`]: message } };
}

define("bo-referral-section", ReferralSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-referral-section": ReferralSection;
  }
}
