import {
  LoyaltyApiError,
  LoyaltyConnectionError,
  LoyaltyTimeoutError,
  errorFromResponse,
  parseRetryAfter,
} from "./errors.js";
import type { CustomerId } from "./hash.js";
import { API_REVISION, API_REVISIONS, isApiRevision, type ApiRevision } from "./revision.js";

// Replaced by the build with the package's version.
declare const __SDK_VERSION__: string | undefined;
const SDK_VERSION = typeof __SDK_VERSION__ === "string" ? __SDK_VERSION__ : "dev";

/** Options every call accepts, after its own arguments. */
export interface RequestOptions<R extends ApiRevision = ApiRevision> {
  /** The revision of this call, instead of the client's. */
  revision?: R;
  /** Milliseconds each attempt may take, instead of the client's `timeout`. */
  timeout?: number;
  /** Retries of this call, instead of the client's `maxRetries`. */
  maxRetries?: number;
  /**
   * POST only: the `Idempotency-Key`, instead of a random one (which the client already keeps
   * across its own retries). Give one only for a call that is sent again with the very same
   * body, such as a webhook delivery's id: the server answers a key reused with another body
   * 400 for 24 hours. Orders need none: registration is idempotent by order id, refunds are
   * cumulative.
   */
  idempotencyKey?: string;
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
}

const REQUEST_OPTIONS = ["revision", "timeout", "maxRetries", "idempotencyKey", "signal"] as const;

export interface TransportConfig {
  baseUrl: string;
  apiKey: string;
  revision: ApiRevision;
  timeout: number;
  maxRetries: number;
  /** Undefined: the global fetch at the time of each call. */
  fetch: typeof fetch | undefined;
  logger: (message: string) => void;
}

/** What the customer operations need of the store: its domain and the customer hash. */
export interface StoreContext {
  domain: string;
  customerHash(externalId: CustomerId): string;
}

/** One operation call, as a resource describes it. */
export interface Call {
  method: "GET" | "POST";
  /** The path, its parameters already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** HTTP Basic with the API key (the order operations). */
  basicAuth?: boolean;
  /** An error status whose body is a result rather than an error (a refused claim). */
  isResult?: (status: number, body: unknown, headers: Headers) => boolean;
}

interface Received {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Statuses that say "try again": a rate limit, and a gateway or service that is unavailable. */
const RETRYABLE_STATUSES = new Set([429, 502, 503]);

/**
 * Whether an error response is worth another attempt: a retryable status, or any 5xx that
 * says when to come back (`Retry-After`), as the server does for a request whose
 * Idempotency-Key is still being processed.
 */
function isRetryable(status: number, headers: Headers): boolean {
  return RETRYABLE_STATUSES.has(status) || (status >= 500 && headers.has("retry-after"));
}
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** A longer `Retry-After` is not waited for: the error is thrown with its `retryAfter`. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Milliseconds before retry number `retry` (0 for the first): exponential backoff with jitter
 * (half to all of 0.5 s × 2^retry, at most 8 s), never sooner than the server's `Retry-After`
 * (seconds). Undefined when the server asks for more than a minute.
 */
export function retryDelay(
  retry: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | undefined {
  const backoff =
    Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS) * (0.5 + random() / 2);
  if (retryAfterSeconds === undefined) return backoff;
  const asked = retryAfterSeconds * 1000;
  return asked > MAX_RETRY_AFTER_MS ? undefined : Math.max(asked, backoff);
}

/** Throws on an option not in `known`, naming the known ones (and the likely intended one). */
export function checkOptionNames(options: object, known: readonly string[], where: string): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const near = known.find((k) => k.toLowerCase() === name.toLowerCase());
    throw new TypeError(
      `${where}: unknown option "${name}"${near ? ` (did you mean "${near}"?)` : ""}. ` +
        `Known options: ${known.join(", ")}.`,
    );
  }
}

export function checkTimeout(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${where}: timeout must be a positive number of milliseconds.`);
  }
  return value;
}

export function checkMaxRetries(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`${where}: maxRetries must be a whole number, 0 or more.`);
  }
  return value;
}

export function checkRevision(value: unknown, where: string): ApiRevision {
  if (!isApiRevision(value)) {
    throw new TypeError(
      `${where}: revision must be one of ${API_REVISIONS.join(", ")}; received ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function describe(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { message?: unknown } | undefined) : null;
  if (cause && typeof cause.message === "string" && cause.message !== "") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The one request layer: headers, revision, timeouts, retries with backoff, idempotency keys
 * and error mapping. Resources describe their calls; this sends them.
 */
export class Transport {
  readonly #config: TransportConfig;
  /** Deprecated revisions already reported: each is logged once. */
  readonly #warned = new Set<string>();

  constructor(config: TransportConfig) {
    this.#config = config;
  }

  async request<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    const where = `${call.method} ${call.path}`;
    checkOptionNames(options, REQUEST_OPTIONS, where);
    const revision =
      options.revision === undefined
        ? this.#config.revision
        : checkRevision(options.revision, where);
    const timeout =
      options.timeout === undefined ? this.#config.timeout : checkTimeout(options.timeout, where);
    const maxRetries =
      options.maxRetries === undefined
        ? this.#config.maxRetries
        : checkMaxRetries(options.maxRetries, where);

    const url = new URL(this.#config.baseUrl + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: "application/json, application/problem+json",
      revision,
      "user-agent": `loyalty-node-sdk/${SDK_VERSION} node/${process.version}`,
    };
    if (call.basicAuth) {
      headers.authorization = `Basic ${Buffer.from(`${this.#config.apiKey}:`).toString("base64")}`;
    }
    if (call.body !== undefined) headers["content-type"] = "application/json";
    // One key for every attempt: a retry of a request that did reach the server is replayed.
    if (call.method === "POST") {
      headers["idempotency-key"] = options.idempotencyKey ?? crypto.randomUUID();
    }
    const init: RequestInit = {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    };

    for (let retry = 0; ; retry++) {
      let received: Received;
      try {
        received = await this.#attempt(url, init, timeout, options.signal, where);
      } catch (error) {
        if (error instanceof LoyaltyConnectionError && retry < maxRetries) {
          await sleep(retryDelay(retry)!, options.signal);
          continue;
        }
        throw error;
      }
      const { status, headers: responseHeaders, body } = received;
      this.#noteDeprecation(responseHeaders, revision);
      if (status >= 200 && status < 300) {
        if (typeof body !== "object" || body === null) {
          throw new LoyaltyApiError(`${where} answered ${status} without a JSON body`, {
            status,
            body,
            requestId: responseHeaders.get("x-request-id") ?? undefined,
          });
        }
        return body as T;
      }
      if (call.isResult?.(status, body, responseHeaders)) return body as T;
      const error = errorFromResponse(status, body, responseHeaders);
      if (isRetryable(status, responseHeaders) && retry < maxRetries) {
        const delay = retryDelay(retry, parseRetryAfter(responseHeaders.get("retry-after")));
        if (delay !== undefined) {
          await sleep(delay, options.signal);
          continue;
        }
      }
      throw error;
    }
  }

  async #attempt(
    url: URL,
    init: RequestInit,
    timeout: number,
    signal: AbortSignal | undefined,
    where: string,
  ): Promise<Received> {
    const timer = AbortSignal.timeout(timeout);
    const fetchImpl = this.#config.fetch ?? globalThis.fetch;
    try {
      const response = await fetchImpl(url, {
        ...init,
        signal: signal ? AbortSignal.any([signal, timer]) : timer,
      });
      // The timeout covers the body too: a server may stall after the headers.
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: parseBody(text) };
    } catch (error) {
      // The caller's own cancellation is theirs, not a failure of the API: passed on as is.
      if (signal?.aborted) throw signal.reason;
      if (timer.aborted) {
        throw new LoyaltyTimeoutError(`${where}: no answer within ${timeout} ms`, {
          cause: error,
        });
      }
      throw new LoyaltyConnectionError(
        `${where}: could not reach the Loyalty API at ${url.origin} (${describe(error)})`,
        { cause: error },
      );
    }
  }

  #noteDeprecation(headers: Headers, requested: ApiRevision): void {
    const deprecation = headers.get("deprecation");
    const sunset = headers.get("sunset");
    if (deprecation === null && sunset === null) return;
    const revision = headers.get("revision") ?? requested;
    if (this.#warned.has(revision)) return;
    this.#warned.add(revision);
    this.#config.logger(
      `Loyalty API revision ${revision} is deprecated` +
        (deprecation ? ` (since ${deprecation})` : "") +
        (sunset ? ` and will be retired on ${sunset}` : "") +
        `. Migrate to a newer revision (this SDK is written for ${API_REVISION}): ` +
        `see "Revisions" in the @loyalty/node-sdk README.`,
    );
  }
}
