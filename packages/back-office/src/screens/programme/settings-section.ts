import { msg } from "@lit/localize";
import { Task } from "@lit/task";
import {
  MAX_EXPIRY_MONTHS,
  MAX_PENDING_DAYS,
  type ExpiryMode,
  type ProgramSettings,
  type ProgramSettingsInput,
} from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../../api/client.js";
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
import { base, recordStyles } from "../../ui/styles.js";
import { focusAfterUpdate, savedStatus } from "../integrations/form-parts.js";

const FIELDS = ["pendingDays", "expiry.mode", "expiry.months", "expiry.warningDays"];

/**
 * How the store's programme runs beyond the defaults (`getProgramSettings`): the pending period
 * that holds an order's points through the return window, and when points expire.
 *
 * @summary The programme settings section of the programme screen.
 */
export class ProgramSettingsSection extends BoElement {
  static override styles = [
    base,
    recordStyles,
    fieldStyles,
    css`
      :host {
        display: block;
        margin-block-start: calc(var(--bo-space) * 2);
        padding-block-start: calc(var(--bo-space) * 1.5);
        border-block-start: 1px solid var(--bo-border);
      }
      .intro {
        max-inline-size: 42rem;
        color: var(--bo-muted);
      }
      .settings {
        --bo-state-view-min-size: 14rem;
      }
      form {
        max-inline-size: 44rem;
      }
      fieldset {
        margin-block-end: var(--bo-space);
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
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    settings: { state: true },
    errors: { state: true },
    saving: { state: true },
    saved: { state: true },
    mode: { state: true },
  };

  declare storeId: number;
  declare settings: ProgramSettings | undefined;
  declare errors: FormErrors;
  declare saving: boolean;
  declare saved: boolean;
  /** The expiry mode chosen in the form: its period fields show unless it is off. */
  declare mode: ExpiryMode;

  readonly #load = new Task(this, {
    task: ([storeId], { signal }) =>
      api.call("getProgramSettings", { params: { storeId }, signal }),
    args: () => [this.storeId] as const,
    onComplete: (settings) => {
      this.settings = settings;
      this.mode = settings.expiry.mode;
    },
  });

  constructor() {
    super();
    this.settings = undefined;
    this.errors = NO_ERRORS;
    this.saving = false;
    this.saved = false;
    this.mode = "off";
  }

  protected override render() {
    return html`<section aria-labelledby="settings-heading">
      <h2 id="settings-heading">${msg("Programme settings")}</h2>
      <p class="intro">
        ${msg(
          "Each setting starts at the behaviour described in the API reference; changes apply to the points earned from then on.",
        )}
      </p>
      ${taskView(this.#load, {
        class: "settings",
        label: msg("Loading the programme settings"),
        ready: () => this.#renderForm(),
      })}
    </section>`;
  }

  #renderForm() {
    const fields = this.errors.fields;
    return html`<form novalidate @submit=${this.#save} @change=${this.#changed}>
      ${savedStatus("settings-saved", this.saved ? msg("Programme settings saved.") : undefined)}
      ${formProblem(this.errors)}
      <fieldset>
        <legend>${msg("Pending period")}</legend>
        ${inputField({
          name: "pendingDays",
          label: msg("Days an order's points stay pending"),
          type: "number",
          min: 0,
          max: MAX_PENDING_DAYS,
          step: 1,
          required: true,
          value: this.settings?.pendingDays ?? 0,
          hint: msg(
            "Counted from the order's date: set your return window. Pending points show in the customer's balance but cannot be spent, and a refund within the period takes them back first, so a customer cannot spend points of an order they then return. 0: points can be spent at once.",
          ),
          error: fields["pendingDays"],
        })}
      </fieldset>
      ${this.#renderExpiry()}
      <button class="button button--primary" aria-disabled=${this.saving ? "true" : "false"}>
        ${this.saving ? msg("Saving…") : msg("Save the programme settings")}
      </button>
    </form>`;
  }

  #renderExpiry() {
    const fields = this.errors.fields;
    const expiry = this.settings?.expiry;
    const period = expiry && expiry.mode !== "off" ? expiry : undefined;
    return html`<fieldset>
      <legend>${msg("Expiry")}</legend>
      ${selectField({
        name: "expiry.mode",
        label: msg("Points expire"),
        value: this.mode,
        options: [
          { value: "off", label: msg("Never") },
          { value: "lifetime", label: msg("A number of months after they were earned") },
          { value: "inactivity", label: msg("After months without earning or spending") },
        ],
        hint:
          this.mode === "lifetime"
            ? msg(
                "The oldest points are spent first, so the points that expire are the ones not spent in time.",
              )
            : this.mode === "inactivity"
              ? msg(
                  "Every point the customer can spend expires once they have neither earned nor spent for that long.",
                )
              : msg("Points are kept for as long as the customer does not spend them."),
        error: fields["expiry.mode"],
      })}
      ${
        this.mode === "off"
          ? nothing
          : html`<div class="row">
              ${inputField({
                name: "expiry.months",
                label: msg("Months"),
                type: "number",
                min: 1,
                max: MAX_EXPIRY_MONTHS,
                step: 1,
                required: true,
                value: period?.months ?? 12,
                error: fields["expiry.months"],
              })}
              ${inputField({
                name: "expiry.warningDays",
                label: msg("Warn the customer (days before)"),
                type: "number",
                min: 0,
                max: 365,
                step: 1,
                required: true,
                value: period?.warningDays ?? 30,
                hint: msg(
                  "An email when you know their address, and the POINTS_EXPIRING event. Points never expire sooner than this after their warning. 0: no warning.",
                ),
                error: fields["expiry.warningDays"],
              })}
            </div>`
      }
    </fieldset>`;
  }

  #changed(event: Event): void {
    const target = event.target as HTMLSelectElement;
    if (target.name === "expiry.mode") this.mode = target.value as ExpiryMode;
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.target as HTMLFormElement;
    const body = settingsOf(new FormData(form));
    this.saving = true;
    this.saved = false;
    try {
      this.settings = await api.call("setProgramSettings", {
        params: { storeId: this.storeId },
        body,
      });
      this.mode = this.settings.expiry.mode;
      this.errors = NO_ERRORS;
      this.saved = true;
      await focusAfterUpdate(this, "#settings-saved");
    } catch (error) {
      this.errors = formErrors(error, FIELDS);
      await this.updateComplete;
      focusFirstProblem(form);
    } finally {
      this.saving = false;
    }
  }
}

/** The form's values as the operation takes them (an empty number: no number, refused). */
function settingsOf(data: FormData): ProgramSettingsInput {
  const number = (name: string) => {
    const text = formText(data, name).trim();
    return text === "" ? Number.NaN : Number(text);
  };
  const mode = formText(data, "expiry.mode") as ExpiryMode;
  return {
    pendingDays: number("pendingDays"),
    expiry:
      mode === "off"
        ? { mode }
        : { mode, months: number("expiry.months"), warningDays: number("expiry.warningDays") },
  };
}

define("bo-program-settings-section", ProgramSettingsSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-program-settings-section": ProgramSettingsSection;
  }
}
