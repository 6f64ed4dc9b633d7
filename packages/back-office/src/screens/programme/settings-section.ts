import { msg, str } from "@lit/localize";
import {
  BUILT_IN_ACTIVITY_KINDS,
  DEFAULT_CLUB_POLICY,
  MAX_EXPIRY_MONTHS,
  MAX_PENDING_DAYS,
  type ActivityPeriod,
  type ClubPolicy,
  type ExpiryMode,
  type ProgramSettings,
  type ProgramSettingsInput,
} from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues } from "lit";
import { repeat } from "lit/directives/repeat.js";
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
import { base, recordStyles } from "../../ui/styles.js";
import { focusAfterUpdate, savedStatus } from "../integrations/form-parts.js";

const FIELDS = [
  "pendingDays",
  "expiry.mode",
  "expiry.months",
  "expiry.warningDays",
  "clubs.basis",
  "clubs.period",
  "clubs.downgrade",
];
const ACTIVITY_FIELDS = ["kind", "label", "points", "limit.count", "limit.period"];

/** A way to earn as the form holds it: text, as typed. */
interface ActivityDraft {
  /** Which row it is, whatever its place: rows keep what was typed in them when one goes. */
  key: number;
  kind: string;
  label: string;
  points: string;
  count: string;
  period: ActivityPeriod | "";
}

let rows = 0;

function draftOf(rule: ProgramSettings["activities"][number]): ActivityDraft {
  return {
    key: ++rows,
    kind: rule.kind,
    label: rule.label,
    points: String(rule.points),
    count: rule.limit ? String(rule.limit.count) : "",
    period: rule.limit?.period ?? "",
  };
}

/** A kind in words: the built-in ones translated, a store's own as it named it. */
function kindName(kind: string): string {
  switch (kind) {
    case "signup":
      return msg("Sign-up");
    case "birthday":
      return msg("Birthday");
    case "review":
      return msg("Review");
    case "newsletter":
      return msg("Newsletter subscription");
    case "social_follow":
      return msg("Social follow");
    default:
      return kind;
  }
}

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
      ol.activities {
        display: grid;
        gap: 0.75rem;
        margin: 0 0 0.75rem;
        padding: 0;
        list-style: none;
      }
      .activity {
        padding: 0.75rem 1rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
      }
      .limit {
        display: grid;
        grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
        gap: 0 0.5rem;
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
    settings: { attribute: false },
    errors: { state: true },
    saving: { state: true },
    saved: { state: true },
    mode: { state: true },
    activities: { state: true },
  };

  declare storeId: number;
  declare settings: ProgramSettings | undefined;
  declare errors: FormErrors;
  declare saving: boolean;
  declare saved: boolean;
  /** The expiry mode chosen in the form: its period fields show unless it is off. */
  declare mode: ExpiryMode;
  /** The ways to earn in the form, as typed: rows are added and removed before saving. */
  declare activities: ActivityDraft[];

  /** The settings the screen loaded (with its rules and clubs): the form starts from them. */
  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has("settings") && this.settings) {
      this.mode = this.settings.expiry.mode;
      this.activities = this.settings.activities.map(draftOf);
    }
  }

  constructor() {
    super();
    this.settings = undefined;
    this.errors = NO_ERRORS;
    this.saving = false;
    this.saved = false;
    this.mode = "off";
    this.activities = [];
  }

  protected override render() {
    return html`<section aria-labelledby="settings-heading">
      <h2 id="settings-heading">${msg("Programme settings")}</h2>
      <p class="intro">
        ${msg(
          "Each setting starts at the behaviour described in the API reference; changes apply to the points earned from then on.",
        )}
      </p>
      ${this.settings ? this.#renderForm() : nothing}
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
      ${this.#renderExpiry()} ${this.#renderClubs()} ${this.#renderActivities()}
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

  #renderClubs() {
    const fields = this.errors.fields;
    const clubs = this.settings?.clubs ?? DEFAULT_CLUB_POLICY;
    return html`<fieldset>
      <legend>${msg("Clubs")}</legend>
      ${selectField({
        name: "clubs.basis",
        label: msg("Customers reach a club by"),
        value: clubs.basis,
        options: [
          { value: "points-earned", label: msg("Points earned") },
          { value: "amount-spent", label: msg("Amount spent") },
        ],
        hint: msg(
          "Points earned count orders, referrals and ways to earn, less refunds; spending points never counts. Amount spent counts what customers paid for their orders, less refunds: the clubs' thresholds are then amounts in your currency.",
        ),
        error: fields["clubs.basis"],
      })}
      ${selectField({
        name: "clubs.period",
        label: msg("Counted over"),
        value: clubs.period,
        options: [
          { value: "rolling-12-months", label: msg("The last 12 months") },
          { value: "calendar-year", label: msg("The calendar year") },
          { value: "lifetime", label: msg("The customer's lifetime") },
        ],
        error: fields["clubs.period"],
      })}
      ${selectField({
        name: "clubs.downgrade",
        label: msg("A customer below their club's threshold leaves it"),
        value: clubs.downgrade,
        options: [
          { value: "immediately", label: msg("Immediately") },
          { value: "end-of-period", label: msg("At the end of the period") },
        ],
        hint: msg(
          "At the end of the period: a club reached is kept until the calendar year ends, or for 12 months, then reviewed on the period that ended (not with a lifetime, which never ends). Customers are told by the CLUB_CHANGED event.",
        ),
        error: fields["clubs.downgrade"],
      })}
    </fieldset>`;
  }

  #renderActivities() {
    const fields = this.errors.fields;
    const periods: { value: ActivityPeriod | ""; label: string }[] = [
      { value: "", label: msg("No limit") },
      { value: "day", label: msg("day") },
      { value: "week", label: msg("week") },
      { value: "month", label: msg("month") },
      { value: "year", label: msg("year") },
      { value: "lifetime", label: msg("lifetime") },
    ];
    const listError = fields["activities"];
    return html`<fieldset
      aria-describedby=${listError ? "activities-hint activities-error" : "activities-hint"}
    >
      <legend>${msg("Ways to earn beyond orders")}</legend>
      ${
        listError
          ? html`<p class="field__error" id="activities-error" tabindex="-1">${listError}</p>`
          : nothing
      }
      <p class="field__hint" id="activities-hint">
        ${msg(
          "Points for what customers do besides ordering, reported by your store's server (POST /api/activity). A sign-up counts once and a birthday once a year.",
        )}
      </p>
      <datalist id="activity-kinds">
        ${BUILT_IN_ACTIVITY_KINDS.map(
          (kind) => html`<option value=${kind}>${kindName(kind)}</option>`,
        )}
      </datalist>
      ${
        this.activities.length === 0
          ? html`<p class="muted" id="no-activities">
              ${msg("No way to earn beyond orders yet.")}
            </p>`
          : nothing
      }
      <ol class="activities">
        ${repeat(
          this.activities,
          (draft) => draft.key,
          (draft, index) => {
            const field = (name: string) => `activities.${index}.${name}`;
            return html`<li class="activity">
              <fieldset>
                <legend>${msg(str`Way to earn ${index + 1}`)}</legend>
                <div class="row">
                  ${inputField({
                    name: field("kind"),
                    label: msg("Kind"),
                    required: true,
                    spellcheck: false,
                    autocomplete: "off",
                    list: "activity-kinds",
                    value: draft.kind,
                    hint: msg(
                      "signup, birthday, review, newsletter, social_follow, or your own, such as photo_review.",
                    ),
                    error: fields[field("kind")],
                  })}
                  ${inputField({
                    name: field("label"),
                    label: msg("Name shown to customers"),
                    value: draft.label,
                    hint: msg("Empty: the kind's own name."),
                    error: fields[field("label")],
                  })}
                </div>
                <div class="row">
                  ${inputField({
                    name: field("points"),
                    label: msg("Points"),
                    type: "number",
                    min: 1,
                    step: 1,
                    required: true,
                    value: draft.points,
                    error: fields[field("points")],
                  })}
                  <div class="limit">
                    ${inputField({
                      name: field("limit.count"),
                      label: msg("At most (times)"),
                      type: "number",
                      min: 1,
                      step: 1,
                      value: draft.count,
                      error: fields[field("limit.count")],
                    })}
                    ${selectField({
                      name: field("limit.period"),
                      label: msg("Per"),
                      value: draft.period,
                      options: periods,
                      error: fields[field("limit.period")],
                    })}
                  </div>
                </div>
                <button type="button" class="button" @click=${() => this.#removeActivity(index)}>
                  ${msg(str`Remove ${kindName(draft.kind) || msg("this way to earn")}`)}
                </button>
              </fieldset>
            </li>`;
          },
        )}
      </ol>
      <button type="button" class="button" id="add-activity" @click=${this.#addActivity}>
        ${msg("Add a way to earn")}
      </button>
    </fieldset>`;
  }

  /** The rows as typed, so that adding or removing one keeps what the others hold. */
  #keepTyped(): void {
    const form = this.renderRoot.querySelector("form");
    if (form) this.activities = activitiesOf(new FormData(form), this.activities);
  }

  async #addActivity(): Promise<void> {
    this.#keepTyped();
    this.activities = [
      ...this.activities,
      { key: ++rows, kind: "", label: "", points: "", count: "", period: "" },
    ];
    await this.updateComplete;
    const inputs = this.renderRoot.querySelectorAll<HTMLInputElement>(
      `input[name="activities.${this.activities.length - 1}.kind"]`,
    );
    inputs[0]?.focus();
  }

  async #removeActivity(index: number): Promise<void> {
    this.#keepTyped();
    this.activities = this.activities.filter((_, position) => position !== index);
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>("#add-activity")?.focus();
  }

  #changed(event: Event): void {
    const target = event.target as HTMLSelectElement;
    if (target.name === "expiry.mode") this.mode = target.value as ExpiryMode;
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.target as HTMLFormElement;
    const body = settingsOf(new FormData(form), this.activities);
    this.saving = true;
    this.saved = false;
    try {
      this.settings = await api.call("setProgramSettings", {
        params: { storeId: this.storeId },
        body,
      });
      this.errors = NO_ERRORS;
      // The screen describes its clubs by the saved policy.
      this.dispatchEvent(new CustomEvent("settings-saved", { detail: this.settings }));
      this.saved = true;
      await focusAfterUpdate(this, "#settings-saved");
    } catch (error) {
      this.#keepTyped();
      this.errors = formErrors(error, [
        ...FIELDS,
        ...this.activities.flatMap((_, index) =>
          ACTIVITY_FIELDS.map((name) => `activities.${index}.${name}`),
        ),
        "activities",
      ]);
      await this.updateComplete;
      const listError = this.renderRoot.querySelector<HTMLElement>("#activities-error");
      if (listError && !form.querySelector('[aria-invalid="true"]')) listError.focus();
      else focusFirstProblem(form);
    } finally {
      this.saving = false;
    }
  }
}

/** The form's values as the operation takes them (an empty number: no number, refused). */
/** The ways to earn the form holds, as typed. */
function activitiesOf(data: FormData, drafts: readonly ActivityDraft[]): ActivityDraft[] {
  return drafts.map(({ key }, index) => {
    const text = (name: string) => formText(data, `activities.${index}.${name}`).trim();
    return {
      key,
      kind: text("kind"),
      label: text("label"),
      points: text("points"),
      count: text("limit.count"),
      period: text("limit.period") as ActivityPeriod | "",
    };
  });
}

function settingsOf(data: FormData, drafts: readonly ActivityDraft[]): ProgramSettingsInput {
  const number = (name: string) => {
    const text = formText(data, name).trim();
    return text === "" ? Number.NaN : Number(text);
  };
  const mode = formText(data, "expiry.mode") as ExpiryMode;
  return {
    pendingDays: number("pendingDays"),
    clubs: {
      basis: formText(data, "clubs.basis") as ClubPolicy["basis"],
      period: formText(data, "clubs.period") as ClubPolicy["period"],
      downgrade: formText(data, "clubs.downgrade") as ClubPolicy["downgrade"],
    },
    expiry:
      mode === "off"
        ? { mode }
        : { mode, months: number("expiry.months"), warningDays: number("expiry.warningDays") },
    activities: activitiesOf(data, drafts).map((draft) => ({
      kind: draft.kind,
      label: draft.label,
      points: draft.points === "" ? Number.NaN : Number(draft.points),
      // A count without a period (or the reverse) is sent as typed: the schema says what is
      // missing next to the field.
      limit:
        draft.count === "" && draft.period === ""
          ? null
          : {
              count: draft.count === "" ? Number.NaN : Number(draft.count),
              period: draft.period as ActivityPeriod,
            },
    })),
  };
}

define("bo-program-settings-section", ProgramSettingsSection);

declare global {
  interface HTMLElementTagNameMap {
    "bo-program-settings-section": ProgramSettingsSection;
  }
}
