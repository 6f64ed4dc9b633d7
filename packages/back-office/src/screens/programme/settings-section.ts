import { msg } from "@lit/localize";
import { Task } from "@lit/task";
import {
  MAX_PENDING_DAYS,
  type ProgramSettings,
  type ProgramSettingsInput,
} from "@loyalty/shared-types";
import { css, html } from "lit";
import { api } from "../../api/client.js";
import { BoElement, define } from "../../ui/element.js";
import {
  focusFirstProblem,
  formErrors,
  NO_ERRORS,
  type FormErrors,
} from "../../ui/field-errors.js";
import { formText } from "../../ui/form-data.js";
import { fieldStyles, inputField } from "../../ui/form-field.js";
import { formProblem } from "../../ui/form-problem.js";
import { taskView } from "../../ui/state-view.js";
import { base, recordStyles } from "../../ui/styles.js";
import { focusAfterUpdate, savedStatus } from "../integrations/form-parts.js";

const FIELDS = ["pendingDays"];

/**
 * How the store's programme runs beyond the defaults (`getProgramSettings`): the pending period
 * that holds an order's points through the return window.
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
    `,
  ];

  static override properties = {
    storeId: { type: Number },
    settings: { state: true },
    errors: { state: true },
    saving: { state: true },
    saved: { state: true },
  };

  declare storeId: number;
  declare settings: ProgramSettings | undefined;
  declare errors: FormErrors;
  declare saving: boolean;
  declare saved: boolean;

  readonly #load = new Task(this, {
    task: ([storeId], { signal }) =>
      api.call("getProgramSettings", { params: { storeId }, signal }),
    args: () => [this.storeId] as const,
    onComplete: (settings) => {
      this.settings = settings;
    },
  });

  constructor() {
    super();
    this.settings = undefined;
    this.errors = NO_ERRORS;
    this.saving = false;
    this.saved = false;
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
    return html`<form novalidate @submit=${this.#save}>
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
      <button class="button button--primary" aria-disabled=${this.saving ? "true" : "false"}>
        ${this.saving ? msg("Saving…") : msg("Save the programme settings")}
      </button>
    </form>`;
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
  const days = formText(data, "pendingDays").trim();
  return { pendingDays: days === "" ? Number.NaN : Number(days) };
}

define("bo-program-settings-section", ProgramSettingsSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-program-settings-section": ProgramSettingsSection;
  }
}
