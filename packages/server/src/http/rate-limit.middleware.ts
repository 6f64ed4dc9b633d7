import type { Request, RequestHandler, Response } from "express";
import { ipKeyGenerator } from "express-rate-limit";
import type { Logger } from "pino";
import { ADMIN_OPERATIONS, normalizeDomain, type OperationDefinition } from "@loyalty/shared-types";
import type { RateLimits } from "../config.js";
import { AppError } from "../errors.js";
import {
  secondsLeft,
  SharedCounts,
  type SharedCounter,
  type WindowCount,
} from "./rate-limit.store.js";

/** Limits counted before authentication, from what the request says. */
type AddressPolicy = "storefront" | "customer" | "admin-login";
/** Limits counted once authentication established who is asking. */
export type IdentityPolicy = "api-key" | "admin";
type Policy = AddressPolicy | IdentityPolicy;

const SUBJECT: Record<Policy, string> = {
  storefront: "address",
  customer: "customer",
  "api-key": "API key",
  admin: "admin",
  "admin-login": "address",
};

/** The `rate-limited` problem's detail, as the server and the OpenAPI examples word it. */
export function rateLimitedDetail(subject: string, limit: number, windowSeconds: number): string {
  return `Too many requests for this ${subject}: at most ${limit} every ${windowSeconds} seconds. Retry after the seconds Retry-After gives.`;
}

function failedAuthDetail(limit: number, windowSeconds: number): string {
  return `Too many failed authentications from this address: at most ${limit} every ${windowSeconds} seconds. Retry after the seconds Retry-After gives.`;
}

function addressPolicyOf(operation: OperationDefinition): AddressPolicy | undefined {
  if (operation === ADMIN_OPERATIONS.createAdminToken) return "admin-login";
  if (operation.auth === "public") return "storefront";
  if (operation.auth === "hmac") return "customer";
  return undefined;
}

/** How many client addresses' keys are remembered; past it, the memory starts again. */
const MAX_ADDRESS_KEYS = 10_000;
const addressKeys = new Map<string, string>();

/**
 * The key of a client's address: express-rate-limit's, which groups an IPv6 network (/56) and
 * reads an IPv4-mapped address (`::ffff:203.0.113.9`, what a server listening on every
 * interface sees of IPv4 clients) as its IPv4 one. It parses IPv6 addresses with `ip-address`
 * on every call, a visible share of a storefront read's time: each address's key is
 * remembered.
 */
function clientAddress(req: Request): string {
  const ip = req.ip ?? "unknown";
  let key = addressKeys.get(ip);
  if (key === undefined) {
    key = ipKeyGenerator(ip);
    if (addressKeys.size >= MAX_ADDRESS_KEYS) addressKeys.clear();
    addressKeys.set(ip, key);
  }
  return key;
}

/**
 * A customer of a store (the path's id for history and claim, the query's for a referral), as
 * asked from one address. Counted before the hash is checked: keyed by the customer alone,
 * anyone sending wrong hashes for a guessable id would lock that customer out of their own
 * widgets. The key is bounded whatever the client sends: an id of the contract's form, a domain
 * of its length.
 */
function customer(req: Request): string {
  const { domain, externalId } = req.query;
  const last = req.path.slice(req.path.lastIndexOf("/") + 1);
  const candidate = /^\d+$/.test(last) ? last : typeof externalId === "string" ? externalId : "";
  const id = /^\d{1,16}$/.test(candidate) ? candidate : "";
  const store = typeof domain === "string" ? normalizeDomain(domain.slice(0, 255)) : "";
  return `${store} ${id} ${clientAddress(req)}`;
}

const ADDRESS_KEYS: Record<AddressPolicy, (req: Request) => string> = {
  storefront: clientAddress,
  customer,
  "admin-login": clientAddress,
};

/** How many keys a counter holds at most, whatever the clients send. */
export const MAX_COUNTED_KEYS = 100_000;

/**
 * Requests per key in fixed windows that start at a key's first request, counted synchronously.
 * express-rate-limit's middleware awaits its store, its key and its limit on every request,
 * which the storefront reads, served synchronously from memory, paid for visibly in `pnpm
 * bench`. Its IPv6-aware address keys (`ipKeyGenerator`) are still the library's.
 *
 * Memory is bounded: expired windows are dropped once per window, and a counter full of live
 * ones forgets the one closest to its end, in constant time, so that clients inventing keys cost
 * at most MAX_COUNTED_KEYS entries and no scan of them.
 */
class FixedWindowCounter {
  private readonly windows = new Map<string, { used: number; resetAt: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = MAX_COUNTED_KEYS,
  ) {
    setInterval(() => this.dropExpired(Date.now()), windowMs).unref();
  }

  private dropExpired(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }

  /** Counts a request; how many the key made in its window, and the seconds left in it. */
  hit(key: string): WindowCount {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (window) this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { used: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.used += 1;
    return { used: window.used, resetSeconds: secondsLeft(window.resetAt, now) };
  }

  /** How many requests the key made in its current window, without counting one. */
  peek(key: string): number {
    const window = this.windows.get(key);
    return window && window.resetAt > Date.now() ? window.used : 0;
  }

  /**
   * Frees one entry. A key's entry is inserted when its window starts, and every window is as
   * long, so the Map's order is the order windows end: expired entries are at its front, and
   * when none is, the front is the window closest to its end.
   */
  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) {
      this.windows.delete(key);
      if (window.resetAt > now) return;
      if (this.windows.size < this.maxKeys) return;
    }
  }
}

/** What an authentication step sets when it accepts the request. */
export interface AuthOutcome {
  /** Who is asking, for the identity limits: the API key's id, the admin. */
  identity?: { policy: IdentityPolicy; key: string };
}

export interface AuthOptions {
  /**
   * False for an address past its failed authentications: only credentials the process holds
   * in memory (used recently) may pass, and nothing is looked up in the database, so that
   * invented keys or domains cost no query.
   */
  lookups: boolean;
}

/**
 * Checks a request's credentials and sets what they establish on it (`req.store`, `req.admin`),
 * or throws unauthorized (401).
 */
export type Authenticator = (
  req: Request,
  res: Response,
  options: AuthOptions,
) => Promise<AuthOutcome>;

/** A policy's limit and where its requests are counted. */
interface Limited {
  limit: number;
  /** This process's count: the only one, or the stand-in while Redis is unavailable. */
  local: FixedWindowCounter;
  /** Every process's count, when RATE_LIMIT_REDIS_URL names a Redis. */
  shared: SharedCounter | undefined;
}

/** A request counted where its policy counts: in Redis, else (or while it fails) in memory. */
async function hitShared(local: FixedWindowCounter, shared: SharedCounter, key: string) {
  return (await shared.hit(key)) ?? local.hit(key);
}

/**
 * Rate limits per client, by the operation's kind: public storefront reads per address, the
 * customer-hash operations per customer and address, and the back-office sign-in per address,
 * all counted before authentication; orders and refunds per API key and the back-office per admin,
 * counted once authentication said who is asking (however the header was spelled), and failed
 * authentications per address. Every answer carries the IETF `RateLimit-Policy` and `RateLimit`
 * headers (draft-ietf-httpapi-ratelimit-headers-07); a request over its limit is refused with a
 * `rate-limited` problem (429) and `Retry-After`, in the request's revision format, before
 * anything runs.
 *
 * Counted in each process's memory, synchronously (with N API processes a client may get up to
 * N times the limit), or, with RATE_LIMIT_REDIS_URL, in Redis for every process: there the
 * count is awaited, and while Redis is unavailable each process counts in its memory again
 * (rate-limit.store.ts).
 */
export class RateLimiter {
  private readonly counters = new Map<Policy, Limited>();
  private readonly failures: Limited | undefined;
  private readonly windowSeconds: number;
  private readonly shared: SharedCounts | undefined;

  constructor(limits: RateLimits, logger: Logger) {
    this.windowSeconds = limits.windowSeconds;
    const windowMs = limits.windowSeconds * 1000;
    const shared = limits.redis && new SharedCounts(limits.redis, logger);
    this.shared = shared;
    const limited = (limit: number, policy: string): Limited => ({
      limit,
      local: new FixedWindowCounter(windowMs),
      shared: shared?.counter(policy, windowMs),
    });
    const configured: Record<Policy, number> = {
      storefront: limits.storefront,
      customer: limits.customer,
      "api-key": limits.apiKey,
      admin: limits.admin,
      "admin-login": limits.adminLogin,
    };
    for (const [policy, limit] of Object.entries(configured) as [Policy, number][]) {
      if (limit > 0) this.counters.set(policy, limited(limit, policy));
    }
    if (limits.failedAuth > 0) this.failures = limited(limits.failedAuth, "failed-auth");
  }

  /** Sets a count's headers; refuses the request (429) past the limit. */
  private enforce(policy: Policy, limit: number, count: WindowCount, res: Response): void {
    const { used, resetSeconds } = count;
    res.setHeader("RateLimit-Policy", `${limit};w=${this.windowSeconds}`);
    res.setHeader(
      "RateLimit",
      `limit=${limit}, remaining=${Math.max(limit - used, 0)}, reset=${resetSeconds}`,
    );
    if (used <= limit) return;
    res.setHeader("Retry-After", String(resetSeconds));
    throw new AppError(
      "rate-limited",
      rateLimitedDetail(SUBJECT[policy], limit, this.windowSeconds),
    );
  }

  /**
   * Counts a request against a policy's limit; refuses it (429) past the limit. Synchronous
   * when counted in memory; a promise when counted in Redis.
   */
  private count(policy: Policy, key: string, res: Response): void | Promise<void> {
    const limited = this.counters.get(policy);
    if (!limited) return;
    const { limit, local, shared } = limited;
    if (!shared) {
      this.enforce(policy, limit, local.hit(key), res);
      return;
    }
    return hitShared(local, shared, key).then((count) => this.enforce(policy, limit, count, res));
  }

  /**
   * The limit an operation counts per address before anything else runs (storefront reads,
   * customers, the sign-in), or undefined when it counts its callers once authenticated. What it
   * returns counts synchronously (and throws the refusal) with the limits in memory, and
   * returns a promise (rejected with the refusal) with the limits in Redis.
   */
  addressLimit(
    operation: OperationDefinition,
  ): ((req: Request, res: Response) => void | Promise<void>) | undefined {
    const policy = addressPolicyOf(operation);
    if (!policy || !this.counters.has(policy)) return undefined;
    this.shared?.connect();
    const key = ADDRESS_KEYS[policy];
    return (req, res) => this.count(policy, key(req), res);
  }

  /**
   * An authentication step under the limits. A refusal (401) counts as a failure of the
   * client's address; past its limit of failures, the address's refusals are 429 with
   * Retry-After until its window ends, and its credentials are checked against memory only
   * (no database look-up): right ones used recently still pass (a shop's server may share an
   * address with someone guessing). An accepted request is counted against its identity's
   * limit, whatever the spelling of its header.
   */
  guard(authenticate: Authenticator): RequestHandler {
    this.shared?.connect();
    return async (req, res, next) => {
      const address = clientAddress(req);
      const failures = this.failures;
      let lookups = true;
      if (failures) {
        const { limit, local, shared } = failures;
        const used = shared
          ? ((await shared.peek(address)) ?? local.peek(address))
          : local.peek(address);
        lookups = used < limit;
      }
      let outcome: AuthOutcome;
      try {
        outcome = await authenticate(req, res, { lookups });
      } catch (error) {
        if (!failures || !(error instanceof AppError) || error.reason !== "unauthorized") {
          throw error;
        }
        const { limit, local, shared } = failures;
        const { used, resetSeconds } = shared
          ? await hitShared(local, shared, address)
          : local.hit(address);
        if (used <= limit) throw error;
        res.removeHeader("WWW-Authenticate");
        res.setHeader("Retry-After", String(resetSeconds));
        throw new AppError("rate-limited", failedAuthDetail(limit, this.windowSeconds), undefined, {
          cause: error,
        });
      }
      if (outcome.identity) {
        const counting = this.count(outcome.identity.policy, outcome.identity.key, res);
        if (counting) await counting;
      }
      next();
    };
  }

  /** Keys held by the counters in memory (tests check that they stay bounded). */
  get countedKeys(): number {
    let total = this.failures?.local.size ?? 0;
    for (const { local } of this.counters.values()) total += local.size;
    return total;
  }

  /** Closes the connection to Redis, if any. */
  async close(): Promise<void> {
    await this.shared?.close();
  }
}
