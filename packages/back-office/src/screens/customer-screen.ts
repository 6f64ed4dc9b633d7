import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import type { AdminCustomer, AdminCustomerSummary } from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues } from "lit";
import { api } from "../api/client.js";
import { ApiError } from "../api/errors.js";
import { storePath } from "../app/navigation.js";
import { StoreScreen } from "../app/screen.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { define } from "../ui/element.js";
import { focusFirstProblem, formErrors, NO_ERRORS, type FormErrors } from "../ui/field-errors.js";
import { formText } from "../ui/form-data.js";
import { fieldStyles, inputField } from "../ui/form-field.js";
import { formProblem } from "../ui/form-problem.js";
import {
  formatCurrency,
  formatDate,
  formatDateTime,
  formatNumber,
  formatPoints,
  languageName,
} from "../ui/format.js";
import { announce } from "../ui/live-region.js";
import { loadMoreButton, PagedList } from "../ui/paged-list.js";
import { problemMessage } from "../ui/problem-message.js";
import { taskView } from "../ui/state-view.js";
import { base, recordStyles, screenStyles } from "../ui/styles.js";
import {
  causeOf,
  customerName,
  formatSignedPoints,
  kindLabel,
  signedPoints,
  type Transaction,
} from "./customers/customer-text.js";

/** A customer id as URLs write it. */
const EXTERNAL_ID = /^\d{1,16}$/;

/** The fields of the adjustment form: the issue paths of its body. */
const ADJUSTMENT_FIELDS = ["points", "reason"];

/**
 * One customer (`customers/:externalId`): their profile, balance (a negative one explained),
 * club, the history of their points (page by page), an adjustment by hand, and their data:
 * export (a JSON file) and erasure (confirmed by typing the customer's id).
 */
export class CustomerScreen extends StoreScreen {
  static override styles = [
    base,
    screenStyles,
    fieldStyles,
    recordStyles,
    css`
      .back {
        margin-block-end: 0.5rem;
      }
      .back a {
        display: inline-block;
        min-block-size: 1.5rem;
      }
      .detail {
        --bo-state-view-min-size: 30rem;
      }
      .subtitle {
        color: var(--bo-muted);
        overflow-wrap: anywhere;
      }
      .cards {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(100%, 20rem), 1fr));
        gap: var(--bo-space);
        margin-block-end: var(--bo-space);
      }
      .card > :last-child {
        margin-block-end: 0;
      }
      .big {
        font-size: 1.5rem;
        font-weight: 700;
        margin-block-end: 0.25rem;
      }
      .note {
        border-inline-start: 4px solid var(--bo-danger);
        padding-inline-start: 0.6rem;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      .erased {
        margin-block-end: var(--bo-space);
      }
      .adjust {
        margin-block-end: calc(var(--bo-space) * 1.5);
      }
      .adjust__fields {
        display: grid;
        gap: 0 var(--bo-space);
      }
      @media (min-width: 40rem) {
        .adjust__fields {
          grid-template-columns: 16rem minmax(0, 1fr);
        }
      }
      .history {
        --bo-state-view-min-size: 12rem;
      }
      .table-scroll {
        overflow-x: auto;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
      }
      table {
        inline-size: 100%;
        border-collapse: collapse;
      }
      th,
      td {
        padding: 0.5rem 0.75rem;
        text-align: start;
        vertical-align: top;
        border-block-end: 1px solid var(--bo-border);
      }
      tbody tr:last-child td {
        border-block-end: 0;
      }
      th {
        font-size: 0.875rem;
        color: var(--bo-muted);
      }
      .number {
        text-align: end;
        white-space: nowrap;
        font-variant-numeric: tabular-nums;
      }
      .cause,
      .when {
        display: block;
        color: var(--bo-muted);
        overflow-wrap: anywhere;
      }
      .when {
        font-size: 0.875rem;
      }
      tr:focus {
        outline: 3px solid var(--bo-focus);
        outline-offset: -3px;
      }
      @media (max-width: 30rem) {
        th,
        td {
          padding: 0.5rem 0.4rem;
        }
      }
    `,
  ];

  static override properties = {
    ...StoreScreen.properties,
    detail: { state: true },
    adjustErrors: { state: true },
    adjusted: { state: true },
    saving: { state: true },
    exporting: { state: true },
    erasing: { state: true },
    dataError: { state: true },
  };

  /** The customer as last read or changed here (an adjustment, the erasure). */
  /** The customer with their club standing. */
  declare detail: AdminCustomerSummary | undefined;
  declare adjustErrors: FormErrors;
  /** The last adjustment saved: shown, with the new balance, in the "Saved" status. */
  declare adjusted: { points: number; balance: number } | undefined;
  declare saving: boolean;
  declare exporting: boolean;
  declare erasing: boolean;
  /** What the export or the erasure failed with. */
  declare dataError: unknown;

  readonly #load = new Task(this, {
    task: async ([storeId, externalId], { signal }): Promise<AdminCustomerSummary | null> => {
      if (!EXTERNAL_ID.test(externalId)) return null;
      try {
        return await api.call("getAdminCustomer", { params: { storeId, externalId }, signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    args: () => [this.store.id, this.params["externalId"] ?? ""] as const,
    onComplete: (detail) => {
      this.detail = detail ?? undefined;
    },
  });

  readonly #history = new PagedList<Transaction>(this, async (cursor, signal) => {
    const page = await api.call("listCustomerTransactions", {
      params: { storeId: this.store.id, externalId: this.#externalId },
      query: cursor ? { cursor } : {},
      signal,
    });
    return { items: page.transactions, nextCursor: page.nextCursor };
  });

  constructor() {
    super();
    this.adjustErrors = NO_ERRORS;
    this.saving = false;
    this.exporting = false;
    this.erasing = false;
  }

  get #externalId(): string {
    return this.params["externalId"] ?? "";
  }

  protected override get screenTitle(): string {
    return this.detail ? customerName(this.detail) : msg(str`Customer ${this.#externalId}`);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if (changed.has("store") || changed.has("params")) {
      // Another customer: nothing of the previous one stays on screen.
      this.detail = undefined;
      this.adjusted = undefined;
      this.adjustErrors = NO_ERRORS;
      this.dataError = undefined;
      if (EXTERNAL_ID.test(this.#externalId)) void this.#history.reload();
    }
  }

  protected override render() {
    return html`<p class="back">
        <a href=${storePath(this.store.id, "customers")}>${msg("All customers")}</a>
      </p>
      <h1>${this.screenTitle}</h1>
      ${taskView(this.#load, {
        class: "detail",
        label: msg("Loading the customer"),
        isEmpty: (detail) => detail === null,
        empty: () =>
          html`<p>${msg(str`No customer ${this.#externalId} in this store.`)}</p>
            <p><a href=${storePath(this.store.id, "customers")}>${msg("Find a customer")}</a></p>`,
        ready: () => (this.detail ? this.#renderDetail(this.detail) : nothing),
      })}`;
  }

  #renderDetail(customer: AdminCustomerSummary) {
    const erased = customer.erasedAt !== null;
    return html`<p class="subtitle">
        ${msg(str`Customer ${customer.externalId}`)}${customer.email ? ` · ${customer.email}` : ""}
      </p>
      ${
        customer.erasedAt === null
          ? nothing
          : html`<div class="alert alert--info erased" id="erased" tabindex="-1">
              <p>
                <strong
                  >${msg(str`Personal data erased on ${formatDate(customer.erasedAt)}.`)}</strong
                >
                ${msg(
                  "Their name, email and language are gone; their balance and history stay, anonymised. Points can no longer be adjusted, and there is nothing left to export or erase.",
                )}
              </p>
            </div>`
      }
      <div class="cards">
        ${this.#renderBalance(customer)} ${this.#renderClub(customer)}
        ${this.#renderProfile(customer)} ${erased ? nothing : this.#renderPersonalData(customer)}
      </div>
      ${erased ? nothing : this.#renderAdjustment()} ${this.#renderHistory()}`;
  }

  #renderBalance(customer: AdminCustomer) {
    const negative = customer.balance < 0;
    return html`<section class="card" aria-labelledby="balance-heading">
      <h2 id="balance-heading">${msg("Balance")}</h2>
      <p class="big ${negative ? "negative" : ""}">${formatPoints(customer.balance)}</p>
      ${
        negative
          ? html`<p class="note">
              ${msg(
                "The balance is negative: points of an order that was refunded had already been spent. The next points earned make up the difference first.",
              )}
            </p>`
          : nothing
      }
      ${
        customer.pendingPoints > 0
          ? html`<p class="muted" id="pending-points">
              ${msg(
                str`${formatPoints(customer.pendingPoints)} of them pending: they become spendable when the store's pending period ends.`,
              )}
            </p>`
          : nothing
      }
      ${
        customer.reservedPoints > 0
          ? html`<p class="muted">
              ${msg(
                str`${formatPoints(customer.reservedPoints)} reserved by claims waiting for the store's platform.`,
              )}
            </p>`
          : nothing
      }
    </section>`;
  }

  #renderClub(summary: AdminCustomerSummary) {
    const club = summary.club;
    return html`<section class="card" aria-labelledby="club-heading">
      <h2 id="club-heading">${msg("Club")}</h2>
      <p class="big">${club?.name ?? msg("No club")}</p>
      ${
        club && club.multiplier !== 1
          ? html`<p class="muted">
              ${msg(str`Earns ${formatNumber(club.multiplier)} times the points.`)}
            </p>`
          : nothing
      }
      <p>${this.#qualification(summary.clubQualification)}</p>
      ${
        club && summary.clubQualification.keptUntil
          ? html`<p class="muted">
              ${msg(
                str`Kept until ${formatDate(summary.clubQualification.keptUntil)}, whatever the figure; then reviewed.`,
              )}
            </p>`
          : nothing
      }
    </section>`;
  }

  /** The figure clubs are measured on, over the store's period, in words. */
  #qualification(qualification: AdminCustomerSummary["clubQualification"]) {
    if (qualification.basis === "amount-spent") {
      const spent = formatCurrency(qualification.figure, this.store.currency);
      switch (qualification.period) {
        case "rolling-12-months":
          return msg(str`${spent} spent in the last 12 months, what clubs are measured on.`);
        case "calendar-year":
          return msg(str`${spent} spent this calendar year, what clubs are measured on.`);
        case "lifetime":
          return msg(str`${spent} spent since the first order, what clubs are measured on.`);
      }
    }
    const earned = formatPoints(qualification.figure);
    switch (qualification.period) {
      case "rolling-12-months":
        return msg(str`${earned} earned in the last 12 months, what clubs are measured on.`);
      case "calendar-year":
        return msg(str`${earned} earned this calendar year, what clubs are measured on.`);
      case "lifetime":
        return msg(str`${earned} earned since the first order, what clubs are measured on.`);
    }
  }

  #renderProfile(customer: AdminCustomer) {
    const name = [customer.firstName, customer.lastName].filter(Boolean).join(" ");
    return html`<section class="card" aria-labelledby="profile-heading">
      <h2 id="profile-heading">${msg("Profile")}</h2>
      <dl class="facts">
        <div>
          <dt>${msg("Customer id")}</dt>
          <dd>${customer.externalId}</dd>
        </div>
        <div>
          <dt>${msg("Name")}</dt>
          <dd>${name || "—"}</dd>
        </div>
        <div>
          <dt>${msg("Email")}</dt>
          <dd>${customer.email ?? "—"}</dd>
        </div>
        <div>
          <dt>${msg("Language")}</dt>
          <dd>${customer.language ? languageName(customer.language) : "—"}</dd>
        </div>
        <div>
          <dt>${msg("Customer since")}</dt>
          <dd>${formatDate(customer.createdAt)}</dd>
        </div>
      </dl>
    </section>`;
  }

  #renderPersonalData(customer: AdminCustomer) {
    return html`<section class="card" aria-labelledby="data-heading">
      <h2 id="data-heading">${msg("Personal data")}</h2>
      <p>
        ${msg(
          "Export everything held about this customer as a JSON file, or erase their personal data (their right to be forgotten).",
        )}
      </p>
      ${
        this.dataError === undefined
          ? nothing
          : html`<div class="alert" role="alert" id="data-error">
              ${problemMessage(this.dataError)}
            </div>`
      }
      <div class="actions">
        <button
          class="button"
          type="button"
          aria-disabled=${this.exporting ? "true" : "false"}
          @click=${() => void this.#export(customer)}
        >
          ${this.exporting ? msg("Preparing the export…") : msg("Download the data (JSON)")}
        </button>
        <button
          class="button button--danger"
          type="button"
          aria-disabled=${this.erasing ? "true" : "false"}
          @click=${() => void this.#erase(customer)}
        >
          ${this.erasing ? msg("Erasing…") : msg("Erase personal data…")}
        </button>
      </div>
    </section>`;
  }

  #renderAdjustment() {
    const errors = this.adjustErrors;
    return html`<section class="card adjust" aria-labelledby="adjust-heading">
      <h2 id="adjust-heading">${msg("Adjust the points")}</h2>
      ${
        this.adjusted
          ? html`<p class="saved" id="adjusted" role="status" tabindex="-1">
              <span aria-hidden="true">✓</span>
              <span
                >${msg(
                  str`Saved: ${formatSignedPoints(this.adjusted.points)}. New balance: ${formatPoints(this.adjusted.balance)}.`,
                )}</span
              >
            </p>`
          : nothing
      }
      ${formProblem(errors)}
      <form novalidate @submit=${this.#adjust}>
        <div class="adjust__fields">
          ${inputField({
            name: "points",
            label: msg("Points"),
            type: "number",
            step: 1,
            required: true,
            hint: msg("150 credits, -150 debits."),
            error: errors.fields["points"],
          })}
          ${inputField({
            name: "reason",
            label: msg("Reason"),
            required: true,
            hint: msg("Shown in the customer's history."),
            error: errors.fields["reason"],
          })}
        </div>
        <button class="button button--primary" aria-disabled=${this.saving ? "true" : "false"}>
          ${this.saving ? msg("Saving…") : msg("Adjust the points")}
        </button>
      </form>
    </section>`;
  }

  #renderHistory() {
    const history = this.#history;
    // The table's scrolling region is named by the heading: the section is no landmark itself.
    return html`<section>
      <h2 id="history-heading">${msg("History")}</h2>
      <bo-state-view
        class="history"
        .state=${history.state}
        .error=${history.error}
        .label=${msg("Loading the history")}
        @retry=${() => void history.reload()}
      >
        ${
          history.state === "empty"
            ? html`<p>${msg("No points yet: nothing earned, spent or adjusted.")}</p>`
            : html`<div
                class="table-scroll"
                role="region"
                aria-labelledby="history-heading"
                tabindex="0"
              >
                <table>
                  <caption class="visually-hidden">
                    ${msg("Every movement of points, newest first")}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">${msg("Entry")}</th>
                      <th scope="col" class="number">${msg("Points")}</th>
                      <th scope="col" class="number">${msg("Balance after")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${history.items.map((transaction) => this.#renderTransaction(transaction))}
                  </tbody>
                </table>
              </div>`
        }
      </bo-state-view>
      ${loadMoreButton(history, msg("Load more history"), () => void this.#moreHistory())}
    </section>`;
  }

  #renderTransaction(transaction: Transaction) {
    return html`<tr tabindex="-1">
      <td>
        ${kindLabel(transaction.kind)}
        ${causeOf(transaction).map((cause) => html`<span class="cause">${cause}</span>`)}
        <time class="when" datetime=${transaction.createdAt}
          >${formatDateTime(transaction.createdAt)}</time
        >
      </td>
      <td class="number ${transaction.points < 0 ? "negative" : ""}">
        ${signedPoints(transaction.points)}
      </td>
      <td class="number ${transaction.balanceAfter < 0 ? "negative" : ""}">
        ${formatNumber(transaction.balanceAfter)}
      </td>
    </tr>`;
  }

  async #moreHistory(): Promise<void> {
    const first = await this.#history.loadMore();
    if (first === undefined) return;
    await this.updateComplete;
    this.renderRoot.querySelectorAll<HTMLElement>("tbody tr")[first]?.focus();
  }

  async #adjust(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving || !this.detail) return;
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const points = formText(data, "points").trim();
    this.saving = true;
    this.adjusted = undefined;
    try {
      const result = await api.call("adjustCustomerPoints", {
        params: { storeId: this.store.id, externalId: this.#externalId },
        // An empty field is no number: the schema says so next to it.
        body: {
          points: points === "" ? Number.NaN : Number(points),
          reason: formText(data, "reason"),
        },
      });
      this.adjustErrors = NO_ERRORS;
      this.detail = { ...this.detail, balance: result.balance };
      this.#history.prepend(result.transaction);
      form.reset();
      this.adjusted = { points: result.transaction.points, balance: result.balance };
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#adjusted")?.focus();
    } catch (error) {
      this.adjustErrors = adjustmentErrors(error);
      await this.updateComplete;
      focusFirstProblem(form.closest("section") ?? form);
    } finally {
      this.saving = false;
    }
  }

  async #export(customer: AdminCustomer): Promise<void> {
    if (this.exporting) return;
    this.exporting = true;
    this.dataError = undefined;
    try {
      const data = await api.call("exportCustomer", {
        params: { storeId: this.store.id, externalId: customer.externalId },
      });
      const fileName = `customer-${customer.externalId}-export.json`;
      download(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }), fileName);
      announce(msg(str`Downloaded ${fileName}.`));
    } catch (error) {
      this.dataError = error;
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#data-error")?.focus();
    } finally {
      this.exporting = false;
    }
  }

  async #erase(customer: AdminCustomer): Promise<void> {
    if (this.erasing) return;
    const id = String(customer.externalId);
    const who = [customerName(customer), customer.email].filter(Boolean).join(", ");
    const confirmed = await confirmAction({
      heading: msg("Erase this customer's personal data?"),
      body: msg(
        str`${who} (customer ${id}): their name, email and language are deleted for good. Their balance and history stay, anonymised. This cannot be undone.`,
      ),
      confirmLabel: msg("Erase personal data"),
      destructive: true,
      typeToConfirm: { label: msg(str`Type the customer id, ${id}, to confirm`), value: id },
    });
    if (!confirmed || !this.detail || this.erasing) return;
    this.dataError = undefined;
    this.erasing = true;
    try {
      const result = await api.call("eraseCustomer", {
        params: { storeId: this.store.id, externalId: id },
      });
      const erased = {
        email: null,
        firstName: null,
        lastName: null,
        language: null,
        erasedAt: result.erasedAt,
        balance: result.balance,
      };
      this.detail = { ...this.detail, ...erased };
      this.adjusted = undefined;
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#erased")?.focus();
    } catch (error) {
      this.dataError = error;
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#data-error")?.focus();
    } finally {
      this.erasing = false;
    }
  }
}

/** The form's errors, with the words of the app for the "not 0" rule of the schema. */
function adjustmentErrors(error: unknown): FormErrors {
  const errors = formErrors(error, ADJUSTMENT_FIELDS);
  const zero =
    error instanceof ApiError &&
    error.issues.some((issue) => issue.field === "points" && issue.code === "custom");
  if (!zero || errors.fields["points"] === undefined) return errors;
  return {
    ...errors,
    fields: { ...errors.fields, points: msg("Enter a number of points other than 0.") },
  };
}

/**
 * Saves `blob` as a file named `fileName`: a link to an object URL, clicked. A download is no
 * fetch, so the page's Content-Security-Policy (`connect-src 'self'`) does not stop it.
 */
function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser reads the blob after the click returns: let it go a little later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

define("bo-customer-screen", CustomerScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-customer-screen": CustomerScreen;
  }
}
