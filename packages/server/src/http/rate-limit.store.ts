import type { Options } from "express-rate-limit";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { RedisStore, type RedisReply } from "rate-limit-redis";
import type { RateLimits } from "../config.js";

/** Once Redis failed to answer, how long the limits are counted in memory before it is asked again. */
const REDIS_RETRY_AFTER_MS = 5_000;
/** How often, at most, a process logs that Redis is unavailable. */
const REDIS_WARNING_INTERVAL_MS = 60_000;

/** A key's count in its window once a request was counted. */
export interface WindowCount {
  used: number;
  /** The seconds left in the window, at least 1. */
  resetSeconds: number;
}

export function secondsLeft(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

export type SharedCountsOptions = NonNullable<RateLimits["redis"]> & {
  /** Tests shorten it (default REDIS_RETRY_AFTER_MS). */
  retryAfterMs?: number;
};

/**
 * The rate limits' counts in Redis (RATE_LIMIT_REDIS_URL), shared by every API process: one
 * count per policy and key, in fixed windows that start at the key's first request (the
 * `rate-limit-redis` store of express-rate-limit, which sets the window's expiry on that first
 * request).
 *
 * When Redis is unreachable or slow, requests are not refused for it, nor held: a count is
 * abandoned after RATE_LIMIT_REDIS_TIMEOUT_MS (no command waits for a connection), and for the
 * next REDIS_RETRY_AFTER_MS (or while the connection is down) the counters answer nothing, so
 * that the limits are counted in the process's memory as without Redis. A warning says so, at
 * most once per REDIS_WARNING_INTERVAL_MS, naming the host, never the URL's password.
 */
export class SharedCounts {
  private readonly client: Redis;
  private readonly prefix: string;
  /** Where Redis is, for the logs: host and port only. */
  private readonly server: string;
  private readonly retryAfterMs: number;
  private unavailableUntil = 0;
  private warnedAt = Number.NEGATIVE_INFINITY;
  /** Whether the last line logged said Redis was unavailable. */
  private warned = false;

  constructor(
    options: SharedCountsOptions,
    private readonly logger: Logger,
  ) {
    const { hostname, port } = new URL(options.url);
    this.server = `${hostname}:${port || "6379"}`;
    this.prefix = options.prefix;
    this.retryAfterMs = options.retryAfterMs ?? REDIS_RETRY_AFTER_MS;
    this.client = new Redis(options.url, {
      // Connected when a server mounts the limits: a worker or a CLI command never does.
      lazyConnect: true,
      enableOfflineQueue: false,
      commandTimeout: options.timeoutMs,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      // Closing waits this long for a socket to end, a refused one too: a process stopping
      // while Redis is down would otherwise exit 2 s late.
      disconnectTimeout: 100,
    });
    this.client.on("error", (error: Error) => this.unavailable(error, false));
  }

  /** Opens the connection, once; a failure is logged, and retried in the background. */
  connect(): void {
    if (this.client.status === "wait") this.client.connect().catch(() => undefined);
  }

  /** A policy's counter: its keys are the prefix, the policy and the client's key. */
  counter(policy: string, windowMs: number): SharedCounter {
    const store = new RedisStore({
      prefix: `${this.prefix}${policy}:`,
      sendCommand: (command: string, ...args: string[]) =>
        this.client.call(command, ...args) as Promise<RedisReply>,
    });
    return new SharedCounter(store, windowMs, this);
  }

  /** What `count` answers, or undefined when Redis is unavailable or failed to answer. */
  async attempt<T>(count: () => Promise<T>): Promise<T | undefined> {
    if (this.client.status !== "ready" || Date.now() < this.unavailableUntil) return undefined;
    let counted: T;
    try {
      counted = await count();
    } catch (error) {
      this.unavailable(error, true);
      return undefined;
    }
    if (this.warned) {
      this.warned = false;
      this.logger.info({ redis: this.server }, "Redis answers again: rate limits are shared");
    }
    return counted;
  }

  private unavailable(error: unknown, asked: boolean): void {
    const now = Date.now();
    // A connection that is down shows in its status; a slow or refusing Redis only when asked.
    if (asked) this.unavailableUntil = now + this.retryAfterMs;
    if (now - this.warnedAt < REDIS_WARNING_INTERVAL_MS) return;
    this.warnedAt = now;
    this.warned = true;
    // The message alone: ioredis attaches a failed command's arguments (AUTH's password) to it.
    this.logger.warn(
      { redis: this.server, reason: error instanceof Error ? error.message : String(error) },
      "Redis is unavailable: rate limits are counted in this process's memory until it answers",
    );
  }

  /** Closes the connection (the process may then exit). */
  async close(): Promise<void> {
    if (this.client.status === "ready") {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}

/** One policy's counts in Redis; undefined whenever Redis did not answer. */
export class SharedCounter {
  private initialized: Promise<void> | undefined;

  constructor(
    private readonly store: RedisStore,
    private readonly windowMs: number,
    private readonly counts: SharedCounts,
  ) {}

  /**
   * Loads the store's scripts, again after any failure: the store keeps a failed load's
   * rejection and would answer every later count with it, after Redis came back too.
   */
  private ready(): Promise<void> {
    // The store reads the window alone of the middleware's options.
    this.initialized ??= this.store.init({ windowMs: this.windowMs } as Options);
    return this.initialized;
  }

  private attempt<T>(count: () => Promise<T>): Promise<T | undefined> {
    return this.counts.attempt(async () => {
      try {
        await this.ready();
        return await count();
      } catch (error) {
        this.initialized = undefined;
        throw error;
      }
    });
  }

  /** Counts a request. */
  hit(key: string): Promise<WindowCount | undefined> {
    return this.attempt(async () => {
      const { totalHits, resetTime } = await this.store.increment(key);
      const now = Date.now();
      return {
        used: totalHits,
        resetSeconds: secondsLeft(resetTime?.getTime() ?? now + this.windowMs, now),
      };
    });
  }

  /** How many requests the key made in its current window, without counting one. */
  peek(key: string): Promise<number | undefined> {
    return this.attempt(async () => {
      // A key without a window reads as NaN.
      const used = (await this.store.get(key))?.totalHits ?? 0;
      return Number.isFinite(used) ? used : 0;
    });
  }
}
