import { msg, str } from "@lit/localize";
import type { AdminCustomerSummary } from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues } from "lit";
import { api } from "../api/client.js";
import { ApiError } from "../api/errors.js";
import { storePath } from "../app/navigation.js";
import { StoreScreen } from "../app/screen.js";
import { issueMessage } from "../ui/field-errors.js";
import { define } from "../ui/element.js";
import { formText } from "../ui/form-data.js";
import { fieldStyles, inputField } from "../ui/form-field.js";
import { formatNumber, formatPoints } from "../ui/format.js";
import { loadMoreButton, PagedList } from "../ui/paged-list.js";
import "../ui/state-view.js";
import { base, recordStyles, screenStyles } from "../ui/styles.js";
import { customerName } from "./customers/customer-text.js";

/** How long the search waits after the last keystroke. */
const SEARCH_DELAY_MS = 300;
/** The search's parameter in the page's URL (`customers?q=jane`). */
const QUERY_PARAMETER = "q";

/**
 * Customers: a search by customer id or by the start of an email (digits find both; as the user types, or at
 * once with Enter or the Search button), kept in the URL so that a reload or the back button
 * finds it again. Without a search, the newest customers. Each opens the customer's page.
 */
export class CustomersScreen extends StoreScreen {
  static override styles = [
    base,
    screenStyles,
    fieldStyles,
    recordStyles,
    css`
      .search {
        display: flex;
        flex-wrap: wrap;
        align-items: flex-end;
        gap: 0 0.75rem;
        max-inline-size: 40rem;
      }
      .search .field {
        flex: 1 1 16rem;
      }
      .search .button {
        margin-block-end: var(--bo-space);
        min-block-size: 2.75rem;
      }
      .results {
        --bo-state-view-min-size: 24rem;
      }
      ol {
        display: grid;
        gap: 0.5rem;
        margin: 0;
        padding: 0;
        list-style: none;
      }
      .customer {
        display: grid;
        gap: 0.5rem;
        padding: 0.75rem 1rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
      }
      .customer__head {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 0.75rem;
        align-items: center;
      }
      .customer__name {
        display: inline-block;
        min-block-size: 1.5rem;
        font-weight: 700;
        font-size: 1.0625rem;
        overflow-wrap: anywhere;
      }
      @media (min-width: 48rem) {
        .customer .facts {
          grid-template-columns: 8rem minmax(0, 2fr) 10rem minmax(0, 1fr);
        }
      }
    `,
  ];

  static override properties = {
    ...StoreScreen.properties,
    query: { state: true },
  };

  /** The search under way ("" for the newest customers), as the URL has it. */
  declare query: string;

  readonly #list = new PagedList<AdminCustomerSummary>(this, async (cursor, signal) => {
    const page = await api.call("searchCustomers", {
      params: { storeId: this.store.id },
      query: {
        ...(this.query ? { query: this.query } : {}),
        ...(cursor ? { cursor } : {}),
      },
      signal,
    });
    return { items: page.customers, nextCursor: page.nextCursor };
  });

  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.query = (new URLSearchParams(location.search).get(QUERY_PARAMETER) ?? "").trim();
  }

  protected override get screenTitle(): string {
    return msg("Customers");
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#timer);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if (changed.has("store") || changed.has("query")) void this.#list.reload();
  }

  protected override render() {
    const list = this.#list;
    const queryError = searchIssue(list.error);
    return html`<h1>${this.screenTitle}</h1>
      <p class="intro">
        ${msg("Find a customer by id or email to see their balance and history.")}
      </p>
      <form class="search" role="search" novalidate @submit=${this.#submit}>
        ${inputField({
          name: "query",
          id: "search",
          label: msg("Customer id or email"),
          hint: msg("An id finds that customer; an email finds those that start with it."),
          type: "search",
          autocomplete: "off",
          spellcheck: false,
          maxlength: 254,
          value: this.query,
          error: queryError,
          onInput: this.#typed,
        })}
        <button class="button button--primary">${msg("Search")}</button>
      </form>
      <p class="visually-hidden" role="status">${this.#summary()}</p>
      <bo-state-view
        class="results"
        aria-busy=${list.refreshing ? "true" : "false"}
        .state=${queryError ? "empty" : list.state}
        .error=${list.error}
        .label=${msg("Loading the customers")}
        @retry=${() => void list.reload()}
      >
        ${
          queryError
            ? html`<p>${msg("Correct the search to see customers.")}</p>`
            : list.state === "empty"
              ? html`<p>${this.#emptyMessage()}</p>`
              : html`<ol>
                  ${list.items.map((customer) => this.#renderCustomer(customer))}
                </ol>`
        }
      </bo-state-view>
      ${loadMoreButton(list, msg("Load more customers"), () => void this.#more())}`;
  }

  #emptyMessage() {
    return this.query
      ? msg(str`No customer matches “${this.query}”.`)
      : msg("No customer yet: customers appear with their first order or referral.");
  }

  /** What screen readers hear once a search has answered. */
  #summary(): string {
    const list = this.#list;
    if (list.state === "empty") return this.#emptyMessage();
    if (list.state !== "ready" || list.refreshing) return "";
    const count = formatNumber(list.items.length);
    const shown =
      list.items.length === 1 ? msg("1 customer shown.") : msg(str`${count} customers shown.`);
    return list.nextCursor === null ? shown : `${shown} ${msg("More with “Load more”.")}`;
  }

  #renderCustomer(customer: AdminCustomerSummary) {
    const href = storePath(this.store.id, `customers/${customer.externalId}`);
    return html`<li class="customer">
      <div class="customer__head">
        <a class="customer__name" href=${href}>${customerName(customer)}</a>
        ${
          customer.erasedAt
            ? html`<span class="badge badge--muted">${msg("Personal data erased")}</span>`
            : nothing
        }
      </div>
      <dl class="facts">
        <div>
          <dt>${msg("Customer id")}</dt>
          <dd>${customer.externalId}</dd>
        </div>
        <div>
          <dt>${msg("Email")}</dt>
          <dd>${customer.email ?? "—"}</dd>
        </div>
        <div>
          <dt>${msg("Balance")}</dt>
          <dd class=${customer.balance < 0 ? "negative" : ""}>${formatPoints(customer.balance)}</dd>
        </div>
        <div>
          <dt>${msg("Club")}</dt>
          <dd>${customer.club?.name ?? msg("None")}</dd>
        </div>
      </dl>
    </li>`;
  }

  #typed(event: InputEvent): void {
    const value = (event.target as HTMLInputElement).value;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#search(value), SEARCH_DELAY_MS);
  }

  #submit(event: SubmitEvent): void {
    event.preventDefault();
    clearTimeout(this.#timer);
    const query = formText(new FormData(event.target as HTMLFormElement), "query").trim();
    // The same search asked again: read it again (a customer may have just arrived).
    if (query === this.query) void this.#list.reload();
    else this.#search(query);
  }

  #search(value: string): void {
    this.query = value.trim();
    const url = new URL(location.href);
    if (this.query) url.searchParams.set(QUERY_PARAMETER, this.query);
    else url.searchParams.delete(QUERY_PARAMETER);
    history.replaceState(history.state, "", url);
  }

  async #more(): Promise<void> {
    const first = await this.#list.loadMore();
    if (first === undefined) return;
    await this.updateComplete;
    this.renderRoot.querySelectorAll<HTMLElement>(".customer__name")[first]?.focus();
  }
}

/** The problem of the search's own value (the server's or the client's), for its field. */
function searchIssue(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const issue = error.issues.find(
    (candidate) => candidate.location === "query" && candidate.field === "query",
  );
  return issue ? issueMessage(issue) : undefined;
}

define("bo-customers-screen", CustomersScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-customers-screen": CustomersScreen;
  }
}
