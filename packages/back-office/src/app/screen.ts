import { msg, str } from "@lit/localize";
import type { AdminStore } from "@loyalty/shared-types";
import type { PropertyValues } from "lit";
import { BoElement } from "../ui/element.js";

// The first screen of a page load keeps the focus where the browser put it (the top).
let firstScreenShown = false;

/** The app (re)starts: its first screen is a page load's, not a navigation's. */
export function resetScreenFocus(): void {
  firstScreenShown = false;
}

/**
 * A screen: what fills the page under the shell (or alone, for sign-in and the store picker).
 * It names itself (`screenTitle`, for its h1 and the document's title) and, when the user
 * navigates to it, takes the focus on its h1, so that a screen reader announces the new page
 * and the next Tab starts from its top.
 */
export abstract class ScreenElement extends BoElement {
  /** The screen's name: its h1 should say the same. */
  protected abstract get screenTitle(): string;

  /** The document's title: the screen's, the app's. */
  protected get documentTitle(): string {
    return msg(str`${this.screenTitle} – Loyalty back-office`);
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    document.title = this.documentTitle;
  }

  protected override firstUpdated(changed: PropertyValues): void {
    super.firstUpdated(changed);
    if (firstScreenShown) this.focusHeading();
    firstScreenShown = true;
  }

  /** Moves the focus to the screen's h1. */
  focusHeading(): void {
    const heading = this.renderRoot.querySelector<HTMLElement>("h1");
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus();
  }
}

/**
 * A screen of one store (a route of STORE_SCREENS). The shell renders it once the store is
 * known: `store` is always set, and `params` holds the path's parameters
 * (`params.externalId` for `customers/:externalId`).
 */
export abstract class StoreScreen extends ScreenElement {
  static override properties = {
    store: { attribute: false },
    params: { attribute: false },
  };

  declare store: AdminStore;
  declare params: Readonly<Record<string, string | undefined>>;

  protected override get documentTitle(): string {
    const store = this.store.name || this.store.domain;
    return msg(str`${this.screenTitle} – ${store} – Loyalty back-office`);
  }

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    // Another customer's page, say: the same element, a new screen for the user.
    if (changed.has("params") && changed.get("params") !== undefined) this.focusHeading();
  }
}
