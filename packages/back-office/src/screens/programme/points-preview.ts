import { msg, str } from "@lit/localize";
import type { AdminStore, PointsPreview, PointsPreviewQuery } from "@loyalty/shared-types";
import { css, html, nothing } from "lit";
import { api } from "../../api/client.js";
import { BoElement, define } from "../../ui/element.js";
import { NO_ERRORS, focusFirstProblem, type FormErrors } from "../../ui/field-errors.js";
import { formText } from "../../ui/form-data.js";
import { fieldStyles, inputField } from "../../ui/form-field.js";
import { formProblem } from "../../ui/form-problem.js";
import { formatCurrency, formatNumber, formatPoints } from "../../ui/format.js";
import { base } from "../../ui/styles.js";
import { kindLabel, multiplierText } from "./describe.js";
import { fieldErrors } from "../../ui/field-errors.js";

/**
 * "What would this product earn?": the points of one unit and of an order line under the
 * store's active rules, and for a member of each club, as the server computes them for the
 * storefront and for orders (`previewProductPoints`). When the programme changes, the screen
 * calls `refresh()`: the last product is computed again, and the panel says so.
 *
 * @summary The points preview of the programme screen.
 */
export class PointsPreviewPanel extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    css`
      :host {
        display: block;
      }
      .status {
        min-block-size: 1.5rem;
        margin-block: 0.75rem;
        color: var(--bo-muted);
      }
      .facts {
        display: grid;
        gap: 0.5rem;
        margin: 0 0 1rem;
      }
      .facts div {
        display: grid;
        gap: 0.1rem;
      }
      .facts dt {
        color: var(--bo-muted);
        font-weight: 600;
        font-size: 0.9375rem;
      }
      .facts dd {
        margin: 0;
        font-weight: 600;
      }
      .facts .big {
        font-size: 1.375rem;
      }
      .facts .detail {
        color: var(--bo-muted);
        font-weight: 400;
        font-size: 0.9375rem;
      }
      table {
        inline-size: 100%;
        border-collapse: collapse;
        font-variant-numeric: tabular-nums;
      }
      caption {
        text-align: start;
        font-weight: 600;
        padding-block-end: 0.4rem;
      }
      th,
      td {
        padding: 0.4rem 0.5rem;
        border-block-end: 1px solid var(--bo-border);
        text-align: end;
      }
      th:first-child {
        text-align: start;
        overflow-wrap: anywhere;
      }
      tbody th {
        font-weight: 400;
      }
      .stale {
        border-inline-start: 4px solid var(--bo-accent);
        padding-inline-start: 0.75rem;
      }
    `,
  ];

  static override properties = {
    store: { attribute: false },
    result: { state: true },
    errors: { state: true },
    busy: { state: true },
    note: { state: true },
    stale: { state: true },
  };

  declare store: AdminStore;
  declare result: PointsPreview | undefined;
  declare errors: FormErrors;
  declare busy: boolean;
  /** What the status line says after a computation. */
  declare note: string;
  /** The programme changed and computing again failed: the result may be out of date. */
  declare stale: boolean;
  /** The query of the result shown: `refresh()` asks it again. */
  #query: PointsPreviewQuery | undefined;

  constructor() {
    super();
    this.result = undefined;
    this.errors = NO_ERRORS;
    this.busy = false;
    this.note = "";
    this.stale = false;
  }

  /** The rules or clubs changed: the product shown is computed again. */
  async refresh(): Promise<void> {
    if (!this.#query) return;
    await this.#compute(this.#query, { refreshing: true });
  }

  async #submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.busy) return;
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => formText(data, name).trim();
    const query: PointsPreviewQuery = {
      price: text("price"),
      quantity: text("quantity") || "1",
      ...(text("product") ? { product: text("product") } : {}),
      ...(text("categories") ? { categories: text("categories") } : {}),
    };
    await this.#compute(query, { refreshing: false });
  }

  async #compute(query: PointsPreviewQuery, { refreshing }: { refreshing: boolean }) {
    this.busy = true;
    try {
      this.result = await api.call("previewProductPoints", {
        params: { storeId: this.store.id },
        query,
      });
      this.#query = query;
      this.errors = NO_ERRORS;
      this.stale = false;
      this.note = refreshing ? msg("Updated after your change to the programme.") : "";
    } catch (error) {
      this.errors = fieldErrors(
        error,
        {
          product: msg("Enter a product id: a whole number."),
          categories: msg("Enter category ids: whole numbers separated by commas."),
          price: query.price === "" ? msg("This field is required.") : msg("Enter a number."),
          quantity: msg("Enter a whole number."),
        },
        "query",
      );
      this.stale = refreshing;
      this.note = "";
      if (!refreshing) {
        await this.updateComplete;
        focusFirstProblem(this.renderRoot);
      }
    } finally {
      this.busy = false;
    }
  }

  protected override render() {
    const { errors } = this;
    const currency = this.store.currency;
    return html`<form novalidate @submit=${this.#submit}>
        ${formProblem(errors, {
          lead: this.stale
            ? html`<p>
                ${msg(
                  "The programme changed but the product could not be computed again: the figures below may be out of date.",
                )}
              </p>`
            : undefined,
        })}
        ${inputField({
          name: "product",
          id: "preview-product",
          label: msg("Product id"),
          inputmode: "numeric",
          autocomplete: "off",
          error: errors.fields["product"],
        })}
        ${inputField({
          name: "categories",
          id: "preview-categories",
          label: msg("Category ids"),
          hint: msg("Separated by commas, such as 12, 40."),
          autocomplete: "off",
          error: errors.fields["categories"],
        })}
        ${inputField({
          name: "price",
          id: "preview-price",
          label: msg(str`Unit price (${currency})`),
          type: "number",
          inputmode: "decimal",
          min: 1,
          step: "any",
          required: true,
          error: errors.fields["price"],
        })}
        ${inputField({
          name: "quantity",
          id: "preview-quantity",
          label: msg("Quantity"),
          type: "number",
          inputmode: "numeric",
          min: 1,
          step: 1,
          value: 1,
          error: errors.fields["quantity"],
        })}
        <button class="button button--primary" aria-disabled=${this.busy ? "true" : "false"}>
          ${msg("Compute the points")}
        </button>
      </form>
      <p class="status" role="status">${this.busy ? msg("Computing…") : this.note}</p>
      ${this.result ? this.#renderResult(this.result, currency) : nothing}`;
  }

  #renderResult(result: PointsPreview, currency: string) {
    const query = this.#query;
    const quantity = Number(query?.quantity ?? 1);
    const price = Number(query?.price ?? 0);
    return html`<div class="result ${this.stale ? "stale" : ""}">
      <dl class="facts">
        <div>
          <dt>${msg("Points per unit")}</dt>
          <dd class="big">${formatPoints(result.points)}</dd>
        </div>
        <div>
          <dt>${msg("Rule applied")}</dt>
          <dd>
            ${
              result.type === null
                ? msg("No active rule matches: this product earns no points.")
                : result.ruleName
                  ? msg(str`${kindLabel(result.type)}: “${result.ruleName}”`)
                  : kindLabel(result.type)
            }
          </dd>
        </div>
        <div>
          <dt>${msg("Points for the order line")}</dt>
          <dd class="big">${formatPoints(result.linePoints)}</dd>
          <dd class="detail">
            ${msg(str`${formatNumber(quantity)} × ${formatCurrency(price, currency)}`)}
          </dd>
        </div>
      </dl>
      ${
        result.clubs.length === 0
          ? html`<p class="muted">${msg("No club: every customer earns the line's points.")}</p>`
          : html`<table>
              <caption>
                ${msg("The same line for a member of each club")}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${msg("Club")}</th>
                  <th scope="col">${msg("Multiplier")}</th>
                  <th scope="col">${msg("Points")}</th>
                </tr>
              </thead>
              <tbody>
                ${result.clubs.map(
                  (club) =>
                    html`<tr>
                      <th scope="row">${club.name}</th>
                      <td>${multiplierText(club.multiplier)}</td>
                      <td>${formatPoints(club.linePoints)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </div>`;
  }
}

define("bo-points-preview", PointsPreviewPanel);

declare global {
  interface HTMLElementTagNameMap {
    "bo-points-preview": PointsPreviewPanel;
  }
}
