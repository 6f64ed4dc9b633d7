/** Where the server serves the app; every URL of the app starts with it. */
export const BASE = "/back-office/";

/** The URL of a store's screen: `storePath(42, "rewards")` → `/back-office/stores/42/rewards`. */
export function storePath(storeId: number | string, screen = "overview"): string {
  return `${BASE}stores/${encodeURIComponent(String(storeId))}/${screen}`;
}

/**
 * Goes to `url` inside the app without reloading. Links (`<a href>`) need none of this: the
 * router follows them. Use it after an action (saved, go back to the list) or to redirect
 * (`replace`: the current entry of the history is replaced).
 */
export function navigate(url: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  // The router follows popstate: the same path as the browser's back button.
  window.dispatchEvent(new PopStateEvent("popstate"));
}
