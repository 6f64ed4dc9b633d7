import { msg } from "@lit/localize";
import { html, nothing, type ReactiveController, type ReactiveControllerHost } from "lit";
import { problemMessage } from "./problem-message.js";
import type { ViewState } from "./state-view.js";

/** One page of a list the API reads with `limit` and `cursor` (`nextCursor`: null on the last). */
export interface Page<T> {
  items: readonly T[];
  nextCursor: string | null;
}

/**
 * A list read page by page ("Load more"): the first page with the states of a
 * `<bo-state-view>`, then further pages appended below, each with its own loading and error.
 *
 * A new first page (another search, a filter) aborts what is still loading. While it loads
 * again, the previous items stay on screen (`refreshing`): the list does not flash to a
 * placeholder at each keystroke of a search.
 *
 * ```ts
 * readonly #list = new PagedList(this, (cursor, signal) => api.call(…).then(…));
 * // willUpdate: when what the list shows changes, `void this.#list.reload()`
 * html`<bo-state-view .state=${this.#list.state} .error=${this.#list.error}
 *   @retry=${() => void this.#list.reload()}>…</bo-state-view>
 *   ${loadMoreButton(this.#list, msg("Load more customers"), () => this.#more())}`
 * ```
 */
export class PagedList<T> implements ReactiveController {
  items: T[] = [];
  nextCursor: string | null = null;
  /** The first page's state: loading, error, empty or ready. */
  state: ViewState = "loading";
  /** What the first page failed with. */
  error: unknown;
  /** A new first page is loading while the previous items stay shown. */
  refreshing = false;
  /** A further page is loading. */
  loadingMore = false;
  /** What the last further page failed with. */
  moreError: unknown;

  readonly #host: ReactiveControllerHost;
  readonly #fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<T>>;
  #abort: AbortController | undefined;

  constructor(
    host: ReactiveControllerHost,
    fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<T>>,
  ) {
    this.#host = host;
    this.#fetchPage = fetchPage;
    host.addController(this);
  }

  hostDisconnected(): void {
    this.#abort?.abort();
  }

  /** Reads the first page again (and forgets the others). */
  async reload(): Promise<void> {
    const signal = this.#start();
    this.refreshing = this.state === "ready" || this.state === "empty";
    if (!this.refreshing) this.state = "loading";
    this.moreError = undefined;
    this.loadingMore = false;
    this.#host.requestUpdate();
    try {
      const page = await this.#fetchPage(undefined, signal);
      if (signal.aborted) return;
      this.items = [...page.items];
      this.nextCursor = page.nextCursor;
      this.state = this.items.length === 0 ? "empty" : "ready";
      this.error = undefined;
    } catch (error) {
      if (signal.aborted) return;
      this.error = error;
      this.state = "error";
    }
    this.refreshing = false;
    this.#host.requestUpdate();
  }

  /**
   * Appends the next page. Resolves with the index of its first item (where to move the focus),
   * or undefined when it brought nothing.
   */
  async loadMore(): Promise<number | undefined> {
    if (this.nextCursor === null || this.loadingMore) return undefined;
    const cursor = this.nextCursor;
    const signal = this.#start();
    this.loadingMore = true;
    this.moreError = undefined;
    this.#host.requestUpdate();
    try {
      const page = await this.#fetchPage(cursor, signal);
      if (signal.aborted) return undefined;
      const first = this.items.length;
      this.items = [...this.items, ...page.items];
      this.nextCursor = page.nextCursor;
      return page.items.length > 0 ? first : undefined;
    } catch (error) {
      if (signal.aborted) return undefined;
      this.moreError = error;
      return undefined;
    } finally {
      if (!signal.aborted) {
        this.loadingMore = false;
        this.#host.requestUpdate();
      }
    }
  }

  /** Adds an item at the top (a new entry of a newest-first list). */
  prepend(item: T): void {
    this.items = [item, ...this.items];
    this.state = "ready";
    this.#host.requestUpdate();
  }

  /** Puts `item` in place of the items `matches` picks (a row updated by an action). */
  replace(matches: (item: T) => boolean, item: T): void {
    this.items = this.items.map((current) => (matches(current) ? item : current));
    this.#host.requestUpdate();
  }

  #start(): AbortSignal {
    this.#abort?.abort();
    this.#abort = new AbortController();
    return this.#abort.signal;
  }
}

/**
 * The "Load more" button under a paged list (nothing on the last page), and the problem of a
 * page that failed to load, with the button to try again.
 */
export function loadMoreButton(list: PagedList<unknown>, label: string, onClick: () => void) {
  if (list.nextCursor === null || list.state !== "ready") return nothing;
  return html`<div class="load-more">
    ${
      list.moreError === undefined
        ? nothing
        : html`<div class="alert" role="alert">${problemMessage(list.moreError)}</div>`
    }
    <button
      class="button"
      type="button"
      aria-disabled=${list.loadingMore ? "true" : "false"}
      @click=${() => {
        if (!list.loadingMore) onClick();
      }}
    >
      ${list.loadingMore ? msg("Loading…") : label}
    </button>
  </div>`;
}
