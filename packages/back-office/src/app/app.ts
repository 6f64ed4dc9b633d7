import { Router } from "@lit-labs/router";
import { css, html, type TemplateResult } from "lit";
import { session } from "../api/session.js";
import { BoElement } from "../ui/element.js";
import "../ui/live-region.js";
import { BASE, navigate, startNavigation, storePath } from "./navigation.js";
import { STORE_SCREENS, type StoreScreenRoute } from "./routes.js";
import { resetScreenFocus } from "./screen.js";

type Params = Record<string, string | undefined>;

const loadSignIn = () => import("../screens/sign-in-screen.js");
const loadStorePicker = () => import("../screens/store-picker-screen.js");
const loadShell = () => import("./shell.js");
const loadNotFound = () => import("../screens/not-found-screen.js");

/**
 * Runs `load` (a screen's module) for the navigation under way, and says whether that
 * navigation is still the current one when it is done: a slow chunk must not replace the
 * screen of a later click.
 */
async function loadFor(...loads: (() => Promise<unknown>)[]): Promise<boolean> {
  const target = location.pathname;
  await Promise.all(loads.map((load) => load()));
  return location.pathname === target;
}

/**
 * The app: picks what the URL and the session call for. Signed out, every URL shows the sign-in
 * (a deep link is where the admin lands after signing in); signed in, `/back-office/` is the
 * store picker (a service token) or a redirect to the token's store, and a store's URLs are the
 * shell around the screen of STORE_SCREENS.
 *
 * main.ts defines it (as `bo-app`) once the language and, where needed, the URLPattern
 * polyfill are in place.
 */
export class BoApp extends BoElement {
  static override styles = css`
    :host {
      display: block;
    }
  `;

  readonly #router = new Router(
    this,
    [
      {
        path: `${BASE.slice(0, -1)}{/}?`,
        enter: () => this.#enterHome(),
        render: () => this.#renderHome(),
      },
      {
        path: `${BASE}stores/:storeId(\\d+){/}?`,
        enter: ({ storeId }) => {
          navigate(storePath(storeId ?? ""), { replace: true });
          return false;
        },
      },
      ...STORE_SCREENS.map((screen) => ({
        path: `${BASE}stores/:storeId(\\d+)/${screen.path}{/}?`,
        enter: (params: Params) => this.#enterStoreScreen(screen, params),
        render: (params: Params) => this.#renderStoreScreen(screen, params),
      })),
    ],
    {
      fallback: {
        enter: () => this.#enterUnknown(),
        render: () => html`<bo-not-found-screen></bo-not-found-screen>`,
      },
    },
  );

  readonly #onSessionChange = () => {
    // The same URL, another story: signed in, signed out, expired.
    void this.#router.goto(location.pathname);
  };

  #stopNavigation?: () => void;

  override connectedCallback(): void {
    resetScreenFocus();
    session.restore();
    session.addEventListener("change", this.#onSessionChange);
    // Before the router connects: the app's listeners run before its own.
    this.#stopNavigation = startNavigation();
    super.connectedCallback();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopNavigation?.();
    session.removeEventListener("change", this.#onSessionChange);
  }

  protected override render(): TemplateResult {
    return html`${this.#router.outlet()}<bo-live-region></bo-live-region>`;
  }

  #enterHome(): Promise<boolean> | boolean {
    const current = session.current;
    if (!current) return loadFor(loadSignIn);
    if (current.storeId !== null) {
      navigate(storePath(current.storeId), { replace: true });
      return false;
    }
    return loadFor(loadStorePicker);
  }

  #renderHome(): TemplateResult {
    return session.current
      ? html`<bo-store-picker-screen></bo-store-picker-screen>`
      : this.#signIn();
  }

  #enterStoreScreen(screen: StoreScreenRoute, params: Params): Promise<boolean> | boolean {
    const current = session.current;
    if (!current) return loadFor(loadSignIn);
    // A store token reaches one store: another store's URL leads to the same screen of its own.
    if (current.storeId !== null && String(current.storeId) !== params["storeId"]) {
      const tail = location.pathname.slice(storePath(params["storeId"] ?? "", "").length);
      navigate(storePath(current.storeId, tail), { replace: true });
      return false;
    }
    return loadFor(loadShell, screen.load);
  }

  #renderStoreScreen(screen: StoreScreenRoute, params: Params): TemplateResult {
    if (!session.current) return this.#signIn();
    return html`<bo-shell
      .storeId=${Number(params["storeId"])}
      .screen=${screen}
      .params=${params}
    ></bo-shell>`;
  }

  #enterUnknown(): Promise<boolean> | boolean {
    // The router follows every link of the origin; those outside the app load as pages.
    if (!location.pathname.startsWith(BASE) && `${location.pathname}/` !== BASE) {
      location.assign(location.href);
      return false;
    }
    return loadFor(loadNotFound);
  }

  #signIn(): TemplateResult {
    return html`<bo-sign-in-screen
      ?expired=${session.endReason === "expired"}
    ></bo-sign-in-screen>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    "bo-app": BoApp;
  }
}
