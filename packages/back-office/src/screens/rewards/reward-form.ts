import { msg, str } from "@lit/localize";
import type { AdminReward, AdminStore, VoucherInput, VoucherKind } from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues } from "lit";
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
import { fieldStyles, inputField, selectField, textareaField } from "../../ui/form-field.js";
import { formProblem } from "../../ui/form-problem.js";
import { announce } from "../../ui/live-region.js";
import { base } from "../../ui/styles.js";
import { checkboxField, extraFieldStyles } from "../widgets/fields.js";

const FIELDS = [
  "name",
  "description",
  "imageUrl",
  "triggerValue",
  "active",
  "voucher.kind",
  "voucher.value",
  "voucher.currency",
  "voucher.minimumOrderAmount",
  "voucher.validityDays",
  "voucher.usageLimit",
] as const;

/** The voucher's terms that make a new version when they change. */
const VOUCHER_TERMS = [
  "kind",
  "value",
  "currency",
  "minimumOrderAmount",
  "validityDays",
  "usageLimit",
] as const;

type VoucherValues = { [K in (typeof VOUCHER_TERMS)[number]]: VoucherInput[K] };

/**
 * Creates a reward (`reward` unset) or edits one: its name, description, image, cost in points
 * and voucher. The form shows the voucher fields its kind uses; editing a voucher term makes a
 * new voucher version, which the form says before saving.
 *
 * @summary The create and edit form of a reward.
 * @event saved - The reward was saved: `detail` is the AdminReward the server answered.
 * @event cancel - The user closed the form without saving.
 */
export class RewardForm extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    extraFieldStyles,
    css`
      :host {
        display: block;
      }
      form {
        display: grid;
        gap: 0 1rem;
      }
      fieldset {
        margin: 0 0 var(--bo-space);
        padding: 0.75rem var(--bo-space) 0;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        min-inline-size: 0;
      }
      legend {
        padding-inline: 0.25rem;
        font-weight: 700;
      }
      .columns {
        display: grid;
        gap: 0 1rem;
      }
      @media (min-width: 40rem) {
        .columns {
          grid-template-columns: repeat(2, minmax(0, 1fr));
        }
      }
      .image-preview {
        display: block;
        max-inline-size: 12rem;
        max-block-size: 8rem;
        margin: -0.5rem 0 var(--bo-space);
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        object-fit: contain;
        background: var(--bo-page);
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      .new-version {
        margin: 0 0 var(--bo-space);
      }
    `,
  ];

  static override properties = {
    store: { attribute: false },
    reward: { attribute: false },
    kind: { state: true },
    imageUrl: { state: true },
    imageLoaded: { state: true },
    voucherChanged: { state: true },
    errors: { state: true },
    busy: { state: true },
  };

  declare store: AdminStore;
  /** The reward to edit; unset to create one. */
  declare reward: AdminReward | undefined;
  declare kind: VoucherKind;
  declare imageUrl: string;
  declare imageLoaded: boolean;
  declare voucherChanged: boolean;
  declare errors: FormErrors;
  declare busy: boolean;

  constructor() {
    super();
    this.kind = "fixed_amount";
    this.imageUrl = "";
    this.imageLoaded = false;
    this.voucherChanged = false;
    this.errors = NO_ERRORS;
    this.busy = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has("reward")) {
      this.kind = this.reward?.voucher.kind ?? "fixed_amount";
      this.imageUrl = this.reward?.imageUrl ?? "";
      this.imageLoaded = false;
    }
  }

  protected override firstUpdated(): void {
    this.renderRoot.querySelector<HTMLInputElement>("input[name=name]")?.focus();
  }

  /** The currency of an amount of this voucher: the current one's, else the store's. */
  get #currency(): string {
    return this.reward?.voucher.currency ?? this.store.currency;
  }

  protected override render() {
    const { fields } = this.errors;
    const reward = this.reward;
    const voucher = reward?.voucher;
    const currency = this.#currency;
    const editing = reward !== undefined;
    return html`${formProblem(this.errors)}
      <form
        novalidate
        @submit=${this.#submit}
        @input=${this.#onInput}
        @change=${this.#onInput}
        @keydown=${this.#onKeydown}
      >
        ${inputField({
          name: "name",
          label: msg("Name"),
          hint: msg("As customers see it in the catalogue."),
          required: true,
          value: reward?.name,
          error: fields["name"],
        })}
        ${textareaField({
          name: "description",
          label: msg("Description"),
          hint: msg("Optional."),
          rows: 2,
          value: reward?.description ?? "",
          error: fields["description"],
        })}
        ${inputField({
          name: "imageUrl",
          label: msg("Image address"),
          hint: msg("Optional: an https address, such as https://shop.example/images/voucher.png."),
          type: "url",
          inputmode: "url",
          spellcheck: false,
          value: reward?.imageUrl ?? "",
          error: fields["imageUrl"],
        })}
        ${
          this.imageUrl.startsWith("https://")
            ? html`<img
                class="image-preview"
                src=${this.imageUrl}
                alt=${msg("Preview of the image")}
                ?hidden=${!this.imageLoaded}
                @load=${() => (this.imageLoaded = true)}
                @error=${() => (this.imageLoaded = false)}
              />`
            : nothing
        }
        ${inputField({
          name: "triggerValue",
          label: msg("Cost in points"),
          hint: msg("What a customer spends to get the voucher."),
          type: "number",
          inputmode: "numeric",
          min: 1,
          step: 1,
          required: true,
          value: reward?.triggerValue,
          error: fields["triggerValue"],
        })}
        <fieldset>
          <legend>${msg("Voucher")}</legend>
          ${selectField({
            name: "voucher.kind",
            label: msg("Discount"),
            value: this.kind,
            options: [
              { value: "fixed_amount", label: msg(str`Amount off (${currency})`) },
              { value: "percentage", label: msg("Percentage off") },
              { value: "free_shipping", label: msg("Free shipping") },
            ],
            error: fields["voucher.kind"],
          })}
          <div class="columns">
            ${
              this.kind === "free_shipping"
                ? nothing
                : inputField({
                    name: "voucher.value",
                    label:
                      this.kind === "percentage"
                        ? msg("Percentage off")
                        : msg(str`Amount off (${currency})`),
                    hint:
                      this.kind === "percentage"
                        ? msg("From 0.01 to 100.")
                        : msg("Taken off the order's total."),
                    type: "number",
                    inputmode: "decimal",
                    min: 0,
                    step: 0.01,
                    required: true,
                    value: voucher && voucher.kind === this.kind ? (voucher.value ?? "") : "",
                    error: fields["voucher.value"] ?? fields["voucher.currency"],
                  })
            }
            ${inputField({
              name: "voucher.minimumOrderAmount",
              label: msg(str`Minimum order (${currency})`),
              hint: msg("Leave empty for any order."),
              type: "number",
              inputmode: "decimal",
              min: 0,
              step: 0.01,
              value: voucher?.minimumOrderAmount ?? "",
              error: fields["voucher.minimumOrderAmount"],
            })}
            ${inputField({
              name: "voucher.validityDays",
              label: msg("Valid for (days)"),
              hint: msg("Counted from the day the code is issued. Leave empty for no expiry."),
              type: "number",
              inputmode: "numeric",
              min: 1,
              step: 1,
              value: voucher?.validityDays ?? "",
              error: fields["voucher.validityDays"],
            })}
            ${inputField({
              name: "voucher.usageLimit",
              label: msg("Usage limit"),
              hint: msg("The most codes this voucher may issue. Leave empty for no limit."),
              type: "number",
              inputmode: "numeric",
              min: 1,
              step: 1,
              value: voucher?.usageLimit ?? "",
              error: fields["voucher.usageLimit"],
            })}
          </div>
        </fieldset>
        ${
          editing
            ? nothing
            : checkboxField({
                name: "active",
                label: msg("Active"),
                hint: msg("Customers see it and can claim it as soon as it is created."),
                checked: true,
                error: fields["active"],
              })
        }
        ${
          editing && this.voucherChanged
            ? html`<div class="alert alert--info new-version" id="new-version">
                <p>
                  ${msg(
                    str`Saving makes version ${(voucher?.version ?? 0) + 1} of the voucher. Codes already issued keep their terms.`,
                  )}
                </p>
              </div>`
            : nothing
        }
        <div class="actions">
          <button
            class="button button--primary"
            type="submit"
            aria-disabled=${this.busy ? "true" : "false"}
            aria-describedby=${editing && this.voucherChanged ? "new-version" : nothing}
          >
            ${
              this.busy
                ? msg("Saving…")
                : editing
                  ? msg("Save the reward")
                  : msg("Create the reward")
            }
          </button>
          <button class="button" type="button" @click=${this.#cancel}>${msg("Cancel")}</button>
        </div>
      </form>`;
  }

  #form(): HTMLFormElement {
    return this.renderRoot.querySelector("form") as HTMLFormElement;
  }

  /** The voucher as the form says it, in the API's terms. */
  #voucher(data: FormData): VoucherValues {
    const kind = this.kind;
    return {
      kind,
      value: kind === "free_shipping" ? null : optionalNumber(data, "voucher.value"),
      currency: kind === "fixed_amount" ? this.#currency : null,
      minimumOrderAmount: optionalNumber(data, "voucher.minimumOrderAmount"),
      validityDays: optionalNumber(data, "voucher.validityDays"),
      usageLimit: optionalNumber(data, "voucher.usageLimit"),
    };
  }

  #onInput(event: Event): void {
    const target = event.target as HTMLInputElement | HTMLSelectElement;
    if (target.name === "voucher.kind") this.kind = target.value as VoucherKind;
    if (target.name === "imageUrl" && target.value.trim() !== this.imageUrl) {
      this.imageUrl = target.value.trim();
      this.imageLoaded = false;
    }
    const current = this.reward?.voucher;
    if (current) {
      const voucher = this.#voucher(new FormData(this.#form()));
      this.voucherChanged = VOUCHER_TERMS.some((term) => voucher[term] !== current[term]);
    }
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key === "Escape" && !event.defaultPrevented) {
      event.preventDefault();
      this.#cancel();
    }
  }

  #cancel(): void {
    this.dispatchEvent(new Event("cancel"));
  }

  async #submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.busy) return;
    const data = new FormData(this.#form());
    const text = (name: string) => formText(data, name).trim();
    const triggerText = text("triggerValue");
    const fields = {
      name: text("name"),
      description: text("description") || null,
      imageUrl: text("imageUrl") || null,
      // Empty is not 0: the schema then asks for a number.
      triggerValue: triggerText === "" ? Number.NaN : Number(triggerText),
    };
    const voucher = this.#voucher(data);
    const storeId = this.store.id;
    this.busy = true;
    try {
      let saved: AdminReward;
      const reward = this.reward;
      if (reward) {
        saved = await api.call("updateReward", {
          params: { storeId, rewardId: reward.id },
          body: { ...fields, ...(this.voucherChanged ? { voucher } : {}) },
        });
      } else {
        const active = this.renderRoot.querySelector<HTMLInputElement>("input[name=active]");
        saved = await api.call("createReward", {
          params: { storeId },
          body: { ...fields, active: active?.checked ?? true, voucher },
        });
      }
      this.errors = NO_ERRORS;
      announce(reward ? msg("Reward saved") : msg("Reward created"));
      this.dispatchEvent(new CustomEvent<AdminReward>("saved", { detail: saved }));
    } catch (error) {
      this.errors = withVoucherMessages(formErrors(error, FIELDS), error, voucher);
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
    } finally {
      this.busy = false;
    }
  }
}

function optionalNumber(data: FormData, name: string): number | null {
  const text = formText(data, name).trim();
  return text === "" ? null : Number(text);
}

/**
 * The voucher's own checks (a value each kind needs) speak the schema's English: say them in
 * the user's language, from the values the form sent.
 */
function withVoucherMessages(
  errors: FormErrors,
  error: unknown,
  voucher: VoucherValues,
): FormErrors {
  if (!(error instanceof ApiError)) return errors;
  const fields = { ...errors.fields };
  for (const issue of error.issues) {
    if (issue.code !== "custom") continue;
    if (issue.field === "voucher.value") {
      const value = voucher.value;
      if (value === null || value === undefined) {
        fields["voucher.value"] =
          voucher.kind === "percentage"
            ? msg("Enter the percentage off.")
            : msg("Enter the amount off.");
      } else if (value <= 0) {
        fields["voucher.value"] = msg("Enter more than 0.");
      } else if (voucher.kind === "percentage" && value > 100) {
        fields["voucher.value"] = msg("Enter 100 or less.");
      }
    }
  }
  return { ...errors, fields };
}

define("bo-reward-form", RewardForm);

declare global {
  interface HTMLElementTagNameMap {
    "bo-reward-form": RewardForm;
  }
}
