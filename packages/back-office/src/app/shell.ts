import { msg } from "@lit/localize";
import { Task, TaskStatus } from "@lit/task";
import type { AdminStore } from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { html as staticHtml, unsafeStatic } from "lit/static-html.js";
import { api } from "../api/client.js";
import { session } from "../api/session.js";
import { BoElement, define } from "../ui/element.js";
import "../ui/language-select.js";
import "../ui/state-view.js";
import { taskView } from "../ui/state-view.js";
import { base } from "../ui/styles.js";
import { BASE, leaveTo, storePath } from "./navigation.js";
import { STORE_SCREENS, type StoreScreenRoute } from "./routes.js";
import { signOut } from "./sign-out.js";

/**
 * The frame of a store's screens: a skip link, the header (the store's name and domain, the
 * store switcher of service admins, the language, sign-out), the navigation, and the main area
 * where the screen of the URL shows once the store is loaded.
 *
 * Under 48rem the navigation and the header's controls fold behind a "Menu" button.
 *
 * @summary The app's frame around a store's screens.
 */
export class Shell extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        display: block;
        min-block-size: 100vh;
      }
      .skip-link {
        position: absolute;
        inset-inline-start: 0.5rem;
        inset-block-start: -10rem;
        z-index: 20;
        padding: 0.6rem 1rem;
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
        font-weight: 600;
      }
      .skip-link:focus {
        inset-block-start: 0.5rem;
      }
      header {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        grid-template-areas: "brand toggle" "menu menu";
        align-items: center;
        gap: 0.5rem 1rem;
        padding: 0.75rem var(--bo-space);
        background: var(--bo-surface);
        border-block-end: 1px solid var(--bo-border);
      }
      .brand {
        grid-area: brand;
        min-inline-size: 0;
      }
      .store-name {
        display: block;
        font-weight: 700;
        font-size: 1.125rem;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .store-domain {
        display: block;
        font-size: 0.9375rem;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .placeholder {
        display: block;
        inline-size: 12rem;
        max-inline-size: 100%;
        block-size: 1.1rem;
        margin-block: 0.3rem;
        border-radius: 4px;
        background: var(--bo-skeleton);
      }
      .menu-toggle {
        grid-area: toggle;
      }
      .menu {
        grid-area: menu;
        display: none;
        gap: 1rem;
        padding-block: 0.5rem;
      }
      .menu--open {
        display: grid;
      }
      nav ul {
        display: grid;
        gap: 0.25rem;
        margin: 0;
        padding: 0;
        list-style: none;
      }
      nav a {
        display: block;
        padding: 0.6rem 0.75rem;
        border-radius: var(--bo-radius);
        color: var(--bo-text);
        font-weight: 600;
        text-decoration: none;
      }
      nav a:hover {
        background: var(--bo-page);
        color: var(--bo-text);
      }
      nav a[aria-current="page"] {
        background: var(--bo-accent-soft);
        color: var(--bo-accent-strong);
        box-shadow: inset 4px 0 0 var(--bo-accent);
      }
      .controls {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem;
      }
      .menu > * {
        min-inline-size: 0;
      }
      .store-switcher {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.4rem 0.6rem;
        min-inline-size: 0;
      }
      .store-switcher .button {
        min-block-size: 2.5rem;
      }
      .store-switcher select {
        min-block-size: 2.5rem;
        min-inline-size: 0;
        max-inline-size: min(16rem, 100%);
        padding: 0.4rem 0.6rem;
        border: 1px solid var(--bo-control-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
        color: var(--bo-text);
        font: inherit;
      }
      main {
        display: block;
        max-inline-size: var(--bo-content-width);
        margin-inline: auto;
        padding: 1.5rem var(--bo-space) 4rem;
      }
      main:focus {
        outline: none;
      }
      @media (min-width: 48rem) {
        header {
          grid-template-columns: minmax(0, 1fr) auto;
          grid-template-areas: "brand controls" "nav nav";
          padding-block-end: 0;
        }
        .menu-toggle {
          display: none;
        }
        .menu,
        .menu--open {
          display: contents;
        }
        nav {
          grid-area: nav;
          overflow-x: auto;
        }
        nav ul {
          display: flex;
          gap: 0.25rem;
        }
        nav a {
          border-radius: 0;
          padding: 0.6rem 0.9rem;
          white-space: nowrap;
        }
        nav a[aria-current="page"] {
          background: none;
          box-shadow: inset 0 -3px 0 var(--bo-accent);
        }
        .controls {
          grid-area: controls;
          justify-content: flex-end;
        }
      }
      @media (forced-colors: active) {
        nav a[aria-current="page"] {
          border: 2px solid Highlight;
        }
        .placeholder {
          border: 1px solid GrayText;
        }
      }
    `,
  ];

  static override properties = {
    storeId: { attribute: false },
    screen: { attribute: false },
    params: { attribute: false },
    menuOpen: { state: true },
  };

  declare storeId: number;
  declare screen: StoreScreenRoute;
  declare params: Readonly<Record<string, string | undefined>>;
  declare menuOpen: boolean;

  // The list gives both the header's store and the switcher's choices (a store token: its own).
  readonly #stores = new Task(this, {
    task: ([_token], { signal }) => api.call("listStores", { signal }),
    args: () => [session.current?.accessToken] as const,
  });

  constructor() {
    super();
    this.menuOpen = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A link followed: the folded menu closes.
    if (changed.has("screen") || changed.has("storeId")) this.menuOpen = false;
  }

  get #store(): AdminStore | undefined {
    return this.#stores.value?.find((store) => store.id === this.storeId);
  }

  protected override render() {
    return html`<header>
        <a class="skip-link" href="#main" @click=${this.#skipToMain}
          >${msg("Skip to main content")}</a
        >
        <div class="brand">${this.#renderBrand()}</div>
        <button
          class="button menu-toggle"
          type="button"
          aria-expanded=${this.menuOpen ? "true" : "false"}
          aria-controls="menu"
          @click=${() => (this.menuOpen = !this.menuOpen)}
        >
          ${msg("Menu")}
        </button>
        <div id="menu" class="menu ${this.menuOpen ? "menu--open" : ""}">
          <nav aria-label=${msg("Store sections")}>
            <ul>
              ${STORE_SCREENS.filter((screen) => screen.navLabel).map(
                (screen) =>
                  html`<li>
                    <a
                      href=${storePath(this.storeId, screen.path)}
                      aria-current=${screen.section === this.screen.section ? "page" : nothing}
                      >${screen.navLabel?.()}</a
                    >
                  </li>`,
              )}
            </ul>
          </nav>
          <div class="controls">
            ${this.#renderStoreSwitcher()}
            <bo-language-select></bo-language-select>
            <button class="button button--quiet" type="button" @click=${() => void signOut()}>
              ${msg("Sign out")}
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabindex="-1">
        ${taskView(this.#stores, {
          label: msg("Loading the store"),
          ready: () => this.#renderScreen(),
        })}
      </main>`;
  }

  #renderBrand() {
    const store = this.#store;
    if (!store) {
      return this.#stores.status === TaskStatus.COMPLETE
        ? nothing
        : html`<span class="placeholder" aria-hidden="true"></span
            ><span class="placeholder" aria-hidden="true"></span>`;
    }
    return html`<span class="store-name">${store.name || store.domain}</span>
      <a class="store-domain" href=${store.domain} target="_blank" rel="noopener noreferrer"
        >${store.domain}<span class="visually-hidden"> ${msg("(opens a new tab)")}</span></a
      >`;
  }

  #renderStoreSwitcher() {
    const stores = this.#stores.value ?? [];
    if (session.current?.storeId !== null || stores.length < 2) return nothing;
    // A form: choosing in the list goes nowhere until "Open" (arrow keys on a closed list
    // change its value, and a change of context on input would move a keyboard user on).
    return html`<form class="store-switcher" @submit=${this.#switchStore}>
      <label for="store-switcher">${msg("Store")}</label>
      <select id="store-switcher" name="store">
        ${stores.map(
          (store) =>
            html`<option value=${store.id} ?selected=${store.id === this.storeId}>
              ${store.name || store.domain}
            </option>`,
        )}
      </select>
      <button class="button" type="submit">${msg("Open")}</button>
      <a href=${BASE}>${msg("All stores")}</a>
    </form>`;
  }

  #renderScreen() {
    const store = this.#store;
    if (!store) {
      return html`<h1 tabindex="-1">${msg("Store not found")}</h1>
        <p>${msg("No store has this address, or your account may not open it.")}</p>
        <p><a href=${BASE}>${msg("See your stores")}</a></p>`;
    }
    const tag = unsafeStatic(this.screen.tag);
    // One element per store and path (one customer's page, then another's): what a screen
    // holds (a key shown once, an answer still on its way) never shows on another's.
    return keyed(
      `${store.id}${JSON.stringify(this.params)}`,
      staticHtml`<${tag} .store=${store} .params=${this.params}></${tag}>`,
    );
  }

  async #switchStore(event: SubmitEvent) {
    event.preventDefault();
    const select = (event.currentTarget as HTMLFormElement).elements.namedItem(
      "store",
    ) as HTMLSelectElement;
    if (select.value === String(this.storeId)) return;
    // The same section of the other store (a customer of one store is not in another).
    const went = await leaveTo(storePath(select.value, this.screen.section));
    // Kept on this store: the switcher says so again.
    if (!went) select.value = String(this.storeId);
  }

  #skipToMain(event: Event) {
    // The target is in this shadow root, out of the browser's reach for a fragment.
    event.preventDefault();
    this.renderRoot.querySelector<HTMLElement>("main")?.focus();
  }
}

define("bo-shell", Shell);

declare global {
  interface HTMLElementTagNameMap {
    "bo-shell": Shell;
  }
}
