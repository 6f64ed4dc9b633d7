import { afterEach, beforeEach } from "vitest";
import { page } from "vitest/browser";
import { BoApp } from "../../src/app/app.js";
import { SESSION_STORAGE_KEY, session } from "../../src/api/session.js";
import { changeLocale, LOCALE_STORAGE_KEY } from "../../src/i18n/locale.js";
import { define } from "../../src/ui/element.js";
import { tokenResponse } from "./fixtures.js";

define("bo-app", BoApp);

// The page of the test runner: each test's URL changes are undone.
const runnerUrl = location.href;

export interface StartOptions {
  /**
   * A session kept by the tab (as after a reload): a store token (a store id), a service token
   * (null), for `seconds` (900 by default).
   */
  signedIn?: { storeId: number | null; seconds?: number };
}

/** Starts the app at `path` (a reload of that URL): `<bo-app>` in the page. */
export async function startApp(path = "/back-office/", options: StartOptions = {}): Promise<BoApp> {
  history.replaceState(null, "", path);
  if (options.signedIn) {
    const { accessToken, expiresAt, storeId } = tokenResponse(options.signedIn);
    sessionStorage.setItem(
      SESSION_STORAGE_KEY,
      JSON.stringify({ accessToken, expiresAt, storeId }),
    );
  }
  const app = document.createElement("bo-app");
  document.body.append(app);
  await app.updateComplete;
  return app;
}

/** A desktop's window: the navigation unfolded (tests of small screens set their own). */
export const DESKTOP = { width: 1280, height: 800 } as const;

/**
 * Gives each test of the file a desktop-sized page, and removes the app, its session, its
 * language and its URL after it.
 */
export function useApp(): void {
  beforeEach(async () => {
    await page.viewport(DESKTOP.width, DESKTOP.height);
  });
  afterEach(async () => {
    document.body.replaceChildren();
    session.end("signed-out");
    sessionStorage.removeItem(SESSION_STORAGE_KEY);
    localStorage.removeItem(LOCALE_STORAGE_KEY);
    await changeLocale("en", { persist: false });
    history.replaceState(null, "", runnerUrl);
    document.title = "";
  });
}
