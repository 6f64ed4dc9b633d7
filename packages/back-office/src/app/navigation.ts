/** Where the server serves the app; every URL of the app starts with it. */
export const BASE = "/back-office/";

/** The URL of a store's screen: `storePath(42, "rewards")` → `/back-office/stores/42/rewards`. */
export function storePath(storeId: number | string, screen = "overview"): string {
  return `${BASE}stores/${encodeURIComponent(String(storeId))}/${screen}`;
}

/**
 * Something on screen that leaving would lose: the widgets' unpublished draft. While one is
 * registered and pending, every way out of the screen asks first: the app's links, the store
 * switcher, sign-out, the browser's Back and Forward, and closing or reloading the tab.
 */
export interface LeaveGuard {
  /** Whether leaving now would lose something. */
  pending(): boolean;
  /**
   * Asks the admin; resolves true when they chose to leave, once the guard has let go of what
   * it held (a later `pending()` is false).
   */
  confirmLeave(): Promise<boolean>;
}

const guards = new Set<LeaveGuard>();

/** Registers a guard for as long as its screen is shown; returns its removal. */
export function guardLeaving(guard: LeaveGuard): () => void {
  guards.add(guard);
  return () => guards.delete(guard);
}

function pendingGuards(): LeaveGuard[] {
  return [...guards].filter((guard) => guard.pending());
}

/** Asks each guard with something pending, in turn: true when the admin may leave. */
export async function confirmLeaving(): Promise<boolean> {
  for (const guard of pendingGuards()) {
    if (!(await guard.confirmLeave())) return false;
  }
  return true;
}

/**
 * The index of the current entry of the tab's history among the app's entries, kept in each
 * entry's state: Back and Forward say how far they went, so that a refused one can be undone.
 */
let position = 0;

function positionOf(state: unknown): number | undefined {
  const value = (state as { position?: unknown } | null)?.position;
  return typeof value === "number" ? value : undefined;
}

/** True while navigate() hands its own popstate to the router. */
let routing = false;

/**
 * Goes to `url` inside the app without reloading, asking no one: after an action (saved, go back
 * to the list) or to redirect (`replace`: the current entry of the history is replaced). What the
 * admin starts (a link, the store switcher) goes through `leaveTo`.
 */
export function navigate(url: string, { replace = false } = {}): void {
  if (replace) {
    history.replaceState({ position }, "", url);
  } else {
    position += 1;
    history.pushState({ position }, "", url);
  }
  // The router follows popstate: the same path as the browser's back button.
  routing = true;
  try {
    window.dispatchEvent(new PopStateEvent("popstate", { state: history.state as unknown }));
  } finally {
    routing = false;
  }
}

/** Goes to `url` once every guard agrees; resolves whether it went. */
export async function leaveTo(url: string): Promise<boolean> {
  if (!(await confirmLeaving())) return false;
  navigate(url);
  return true;
}

/** The entry Back or Forward went to is being undone: its popstate is not the router's. */
let restoring = false;

function onPopState(event: PopStateEvent): void {
  if (routing) return;
  if (restoring) {
    restoring = false;
    event.stopImmediatePropagation();
    return;
  }
  const target = positionOf(event.state) ?? 0;
  const delta = position - target;
  if (delta === 0 || pendingGuards().length === 0) {
    position = target;
    return;
  }
  // Back or Forward with something pending: back to this screen's entry, then ask. The router
  // never hears of the first move; on "leave", the same move again finds nothing pending.
  event.stopImmediatePropagation();
  restoring = true;
  history.go(delta);
  void confirmLeaving().then((leave) => {
    if (leave) history.go(-delta);
  });
}

/**
 * A click on a link of the app: the router's own handling (the same rules: main button, no
 * modifier, no target or download, same origin), but through `leaveTo`, and with the entry's
 * position kept. It must be registered before the router's listener, which then finds the click
 * handled. A click a screen handled itself (the widgets' preview keeps its links) is left alone.
 */
function onClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey) return;
  const anchor = event
    .composedPath()
    .find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement);
  if (!anchor || anchor.target !== "" || anchor.hasAttribute("download")) return;
  if (anchor.getAttribute("rel") === "external") return;
  if (anchor.href === "" || anchor.protocol === "mailto:" || anchor.origin !== location.origin) {
    return;
  }
  event.preventDefault();
  if (anchor.href === location.href) return;
  const target = anchor.pathname + anchor.search + anchor.hash;
  // The same screen (its own entry of the navigation) loses nothing: it stays.
  if (anchor.pathname === location.pathname) navigate(target);
  else void leaveTo(target);
}

/** Closing or reloading the tab with something pending: the browser asks. */
function onBeforeUnload(event: BeforeUnloadEvent): void {
  if (pendingGuards().length === 0) return;
  event.preventDefault();
  // Older browsers ask only when returnValue is set.
  event.returnValue = "";
}

/**
 * Starts the app's side of navigation: called by the app before its router connects, so that
 * these listeners run before the router's. Returns their removal.
 */
export function startNavigation(): () => void {
  position = positionOf(history.state) ?? 0;
  if (positionOf(history.state) === undefined) history.replaceState({ position }, "");
  window.addEventListener("popstate", onPopState, { capture: true });
  window.addEventListener("click", onClick);
  window.addEventListener("beforeunload", onBeforeUnload);
  return () => {
    window.removeEventListener("popstate", onPopState, { capture: true });
    window.removeEventListener("click", onClick);
    window.removeEventListener("beforeunload", onBeforeUnload);
  };
}
