import type { AdminTokenResponse } from "@loyalty/shared-types";

/** What the app keeps of a sign-in: the token, when it ends, and its store (null: service). */
export interface Session {
  accessToken: string;
  /** ISO date-time. */
  expiresAt: string;
  /** The one store a store token may act on; null for a service token (every store). */
  storeId: number | null;
}

/** Why the last session ended: the admin's choice, or the token's end (time or a 401). */
export type SessionEndReason = "signed-out" | "expired";

const STORAGE_KEY = "loyalty.back-office.session";
// setTimeout's largest delay; a longer wait is done in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

function parseSession(text: string | null): Session | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Session>;
    if (
      typeof value.accessToken === "string" &&
      typeof value.expiresAt === "string" &&
      !Number.isNaN(Date.parse(value.expiresAt)) &&
      (value.storeId === null || typeof value.storeId === "number")
    ) {
      return { accessToken: value.accessToken, expiresAt: value.expiresAt, storeId: value.storeId };
    }
  } catch {
    // A damaged entry is no session.
  }
  return undefined;
}

/**
 * The signed-in admin's session, kept in sessionStorage: it survives a reload, not the tab.
 * It ends when its token expires (a timer, and a check before each request), on any 401 from
 * the API, or on sign-out; listeners of "change" learn each start and end.
 */
export class SessionStore extends EventTarget {
  #current: Session | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #endReason: SessionEndReason | undefined;

  get current(): Session | undefined {
    return this.#current;
  }

  /** Why the previous session ended, until the next one starts. */
  get endReason(): SessionEndReason | undefined {
    return this.#endReason;
  }

  /** The token to send, or undefined (and the session ends) when it has expired. */
  accessToken(): string | undefined {
    if (this.#current && Date.parse(this.#current.expiresAt) <= Date.now()) this.end("expired");
    return this.#current?.accessToken;
  }

  /**
   * Takes up what this tab kept (the app calls it as it starts, after a reload say): the stored
   * session, or none; a stored session that has expired meanwhile ends as expired.
   */
  restore(): void {
    clearTimeout(this.#timer);
    this.#current = undefined;
    this.#endReason = undefined;
    let stored: Session | undefined;
    try {
      stored = parseSession(sessionStorage.getItem(STORAGE_KEY));
    } catch {
      stored = undefined;
    }
    if (!stored) return;
    if (Date.parse(stored.expiresAt) <= Date.now()) {
      this.#current = stored;
      this.end("expired");
      return;
    }
    this.#set(stored);
  }

  start(token: Pick<AdminTokenResponse, "accessToken" | "expiresAt" | "storeId">): void {
    this.#endReason = undefined;
    this.#set({
      accessToken: token.accessToken,
      expiresAt: token.expiresAt,
      storeId: token.storeId,
    });
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.#current));
    } catch {
      // Without storage the session lasts as long as the page.
    }
  }

  /**
   * The API refused `token` (a 401): the session ends as expired if that token is still its own.
   * A late answer to a request of a previous session (signed out, then in again meanwhile)
   * leaves the new one alone.
   */
  refused(token: string): void {
    if (this.#current?.accessToken === token) this.end("expired");
  }

  /** Ends the session (a second call changes nothing). */
  end(reason: SessionEndReason): void {
    clearTimeout(this.#timer);
    try {
      sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // Nothing was stored.
    }
    if (!this.#current) return;
    this.#current = undefined;
    this.#endReason = reason;
    this.dispatchEvent(new Event("change"));
  }

  #set(session: Session): void {
    this.#current = session;
    this.#schedule();
    this.dispatchEvent(new Event("change"));
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (!this.#current) return;
    const remaining = Date.parse(this.#current.expiresAt) - Date.now();
    if (remaining <= 0) {
      this.end("expired");
      return;
    }
    this.#timer = setTimeout(() => this.#schedule(), Math.min(remaining, MAX_TIMER_MS));
  }
}

/** The app's one session. */
export const session = new SessionStore();

export const SESSION_STORAGE_KEY = STORAGE_KEY;
