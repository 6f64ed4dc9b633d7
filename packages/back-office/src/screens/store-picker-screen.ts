import { msg } from "@lit/localize";
import { Task } from "@lit/task";
import type { AdminStore } from "@loyalty/shared-types";
import { css, html } from "lit";
import { api } from "../api/client.js";
import { storePath } from "../app/navigation.js";
import { pageHeader, pageStyles } from "../app/page-header.js";
import { ScreenElement } from "../app/screen.js";
import { define } from "../ui/element.js";
import { taskView } from "../ui/state-view.js";
import { base } from "../ui/styles.js";

/** The stores a service admin may open (a store admin goes straight to theirs). */
export class StorePickerScreen extends ScreenElement {
  static override styles = [
    base,
    pageStyles,
    css`
      .stores {
        --bo-state-view-min-size: 12rem;
      }
      ul {
        display: grid;
        gap: 0.5rem;
        margin: 0;
        padding: 0;
        list-style: none;
      }
      a.store {
        display: grid;
        gap: 0.15rem;
        padding: 0.85rem 1rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
        color: var(--bo-text);
        text-decoration: none;
      }
      a.store:hover {
        border-color: var(--bo-accent);
      }
      .store__name {
        font-weight: 700;
        color: var(--bo-accent);
        text-decoration: underline;
        text-underline-offset: 0.15em;
      }
      .store__domain {
        color: var(--bo-muted);
        overflow-wrap: anywhere;
      }
    `,
  ];

  readonly #stores = new Task(this, {
    task: (_args, { signal }) => api.call("listStores", { signal }),
    args: () => [],
  });

  protected override get screenTitle(): string {
    return msg("Choose a store");
  }

  protected override render() {
    return html`${pageHeader({ signedIn: true })}
      <main>
        <h1>${this.screenTitle}</h1>
        ${taskView(this.#stores, {
          class: "stores",
          label: msg("Loading the stores"),
          isEmpty: (stores) => stores.length === 0,
          empty: () =>
            html`<p>
              ${msg(html`No store yet: create one with <code>loyalty store create</code>.`)}
            </p>`,
          ready: (stores) =>
            html`<ul>
              ${stores.map((store) => this.#renderStore(store))}
            </ul>`,
        })}
      </main>`;
  }

  #renderStore(store: AdminStore) {
    return html`<li>
      <a class="store" href=${storePath(store.id)}>
        <span class="store__name">${store.name || store.domain}</span>
        <span class="store__domain">${store.domain}</span>
      </a>
    </li>`;
  }
}

define("bo-store-picker-screen", StorePickerScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-store-picker-screen": StorePickerScreen;
  }
}
