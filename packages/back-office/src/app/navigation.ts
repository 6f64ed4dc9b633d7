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

/**
 * Registers a guard for as long as its screen is shown; returns its removal. Closing the tab
 * is listened to only meanwhile (a page with a "beforeunload" listener may be kept out of the
 * browser's back-forward cache).
 */
export function guardLeaving(guard: LeaveGuard): () => void {
  if (guards.size === 0) window.addEventListener("beforeunload", onBeforeUnload);
  guards.add(guard);
  return () => {
    guards.delete(guard);
    if (guards.size === 0) window.removeEventListener("beforeunload", onBeforeUnload);
  };
}

function pendingGuards(): LeaveGuard[] {
  return [...guards].filter((guard) => guard.pending());
}

/** The question under way: a second way out while it is asked gets the same answer. */
let asking: Promise<boolean> | undefined;

/** Asks each guard with something pending, in turn: true when the admin may leave. */
export function confirmLeaving(): Promise<boolean> {
  asking ??= (async () => {
    for (const guard of pendingGuards()) {
      if (!(await guard.confirmLeave())) return false;
    }
    return true;
  })().finally(() => (asking = undefined));
  return asking;
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

/**
 * Goes to `url` once every guard agrees; resolves whether it went. A second way out taken while
 * the admin is asked does not go anywhere of its own: the first one's answer decides.
 */
export async function leaveTo(url: string): Promise<boolean> {
  if (asking) {
    await asking;
    return false;
  }
  if (!(await confirmLeaving())) return false;
  navigate(url);
  return true;
}

/** The position Back or Forward is being undone to: its popstate is not the router's. */
let restoringTo: number | undefined;

function onPopState(event: PopStateEvent): void {
  if (routing) return;
  const target = positionOf(event.state);
  if (restoringTo !== undefined && target === restoringTo) {
    restoringTo = undefined;
    event.stopImmediatePropagation();
    return;
  }
  if (target === undefined) {
    // An entry the app did not make (a fragment typed in the address bar): it takes the next
    // position, and nothing is held back, since how far it went is unknown.
    position += 1;
    history.replaceState({ ...(event.state as object | null), position }, "");
    return;
  }
  const delta = position - target;
  if (delta === 0 || (pendingGuards().length === 0 && !asking)) {
    position = target;
    return;
  }
  // Back or Forward with something pending: back to this screen's entry, then ask. The router
  // never hears of the first move; on "leave", the same move again finds nothing pending. A move
  // while the question is already asked is undone too, and waits for that answer.
  event.stopImmediatePropagation();
  restoringTo = position;
  history.go(delta);
  if (asking) return;
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
  return () => {
    window.removeEventListener("popstate", onPopState, { capture: true });
    window.removeEventListener("click", onClick);
  };
}
