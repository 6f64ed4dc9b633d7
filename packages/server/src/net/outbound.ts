import { lookup as dnsLookup } from "node:dns";
import { createRequire } from "node:module";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from "undici";
import { isPrivateAddress } from "./private-hosts.js";

const majorOf = (version: string | undefined) => Number(version?.split(".")[0]);
const AGENT_MAJOR = majorOf(
  (createRequire(import.meta.url)("undici/package.json") as { version: string }).version,
);

/**
 * Node's own fetch where it is the undici major of our Agent (Node 20 and 22 bundle undici 6):
 * test doubles such as msw intercept it. Elsewhere undici's own fetch, which always speaks its
 * Agent's protocol (Node 26's undici 8 refuses a dispatcher of undici 6). Looked up at each call:
 * a test double replaces the global after this module is loaded.
 */
const fetchWithAgent = (url: string, init: RequestInit & { dispatcher: Dispatcher }) =>
  majorOf(process.versions.undici) === AGENT_MAJOR
    ? globalThis.fetch(url, init)
    : (undiciFetch(url, init) as unknown as Promise<Response>);

/**
 * The most the service reads of an answer (1 MiB, decoded): a platform's answer is a coupon,
 * a customer or a short error, a few kilobytes. Reading whatever comes would let one platform
 * URL that streams without end fill the API process's memory.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Why a request got no usable answer: `private-address` is a connection refused before it was
 * made (ALLOW_PRIVATE_URLS off), `too-large` an answer cut at the cap, `interrupted` one that
 * broke off while it was read.
 */
export type OutboundFailure =
  "timeout" | "private-address" | "unreachable" | "interrupted" | "too-large";

/** A request that got no answer, or none that could be read. Never mentions the headers. */
export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OutboundError";
  }
}

export interface OutboundRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Bounds the whole exchange: connecting, the answer's head and reading its body. */
  timeoutMs: number;
  /** False: only the status matters, and the body is not read at all (webhook receivers). */
  readBody?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The body as text, at most the cap; empty when it was not read. */
  text: string;
}

/**
 * Resolves a name as the system does, and refuses it when any of its addresses is of the
 * service's own network: the connection is then never opened, and the host never learns of it.
 * Every connection resolves again, so a name that changes what it resolves to is caught too.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, "", 0);
      return;
    }
    const internal = addresses.find(({ address }) => isPrivateAddress(address));
    if (internal) {
      callback(privateAddressError(hostname, internal.address), "", 0);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]?.address ?? "", addresses[0]?.family);
  });
};

function privateAddressError(hostname: string, address: string): OutboundError {
  const named = hostname === address ? address : `${hostname} (${address})`;
  return new OutboundError(
    "private-address",
    `refused to connect to ${named}: an address of the service's own network, which ALLOW_PRIVATE_URLS does not allow`,
  );
}

/**
 * Connects as undici does, except to the service's own network: an address written in the URL
 * is checked here (Node connects to it without a lookup), a name by the lookup.
 */
function publicOnlyConnector(): buildConnector.connector {
  const connect = buildConnector({ lookup: publicOnlyLookup });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(host) !== 0 && isPrivateAddress(host)) {
      callback(privateAddressError(host, host), null);
      return;
    }
    connect(options, callback);
  };
}

/**
 * The one way the service makes HTTP requests to hosts that stores name (their platform, their
 * webhook endpoints): it checks the address it actually connects to (unless ALLOW_PRIVATE_URLS),
 * reads at most MAX_RESPONSE_BYTES of an answer, and never follows a redirect. One per process,
 * built from the configuration; it keeps connections alive between requests.
 */
export class Outbound {
  readonly #dispatcher: Dispatcher;

  constructor({ allowPrivateUrls = false }: { allowPrivateUrls?: boolean } = {}) {
    this.#dispatcher = new Agent(allowPrivateUrls ? {} : { connect: publicOnlyConnector() });
  }

  /**
   * Resolves with whatever status the host answered, redirects included (not followed: a
   * redirect would carry credentials or a signed event to a URL the store never declared).
   * Throws OutboundError when there is no answer to give.
   */
  async request(url: string, init: OutboundRequest): Promise<OutboundResponse> {
    const { timeoutMs, readBody = true, ...request } = init;
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetchWithAgent(url, {
        ...request,
        redirect: "manual",
        signal,
        dispatcher: this.#dispatcher,
      });
    } catch (error) {
      throw failure(error, timeoutMs, "unreachable");
    }
    if (!readBody) {
      // Cancelling closes the connection: nothing more of the answer is received.
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status, headers: response.headers, text: "" };
    }
    const text = await this.#read(response, timeoutMs);
    return { status: response.status, headers: response.headers, text };
  }

  /** Closes the kept-alive connections (at shutdown). */
  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  /** The body as text, or OutboundError once more than the cap arrived. */
  async #read(response: Response, timeoutMs: number): Promise<string> {
    const limit = MAX_RESPONSE_BYTES;
    const declared = Number(response.headers.get("content-length") ?? 0);
    const tooLarge = () =>
      new OutboundError(
        "too-large",
        `an answer larger than the ${limit} bytes read of one${declared > limit ? ` (Content-Length ${declared})` : ""}`,
      );
    if (declared > limit) {
      // Refused before a byte of it is read; cancelling closes the connection.
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (!response.body) return "";
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          // Stops the transfer and closes the connection, whatever the host still sends.
          await reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        chunks.push(value);
      }
    } catch (error) {
      throw failure(error, timeoutMs, "interrupted");
    }
    // As Response.text() decodes: UTF-8, a leading byte order mark dropped (PHP sites send one).
    return new TextDecoder().decode(Buffer.concat(chunks));
  }
}

/** The OutboundError a failed fetch or read means. */
function failure(error: unknown, timeoutMs: number, otherwise: OutboundFailure): OutboundError {
  if (error instanceof OutboundError) return error;
  if ((error as { name?: unknown }).name === "TimeoutError") {
    return new OutboundError("timeout", `no response within ${timeoutMs} ms`, { cause: error });
  }
  // fetch says only "fetch failed"; the cause says why (refused, DNS, TLS, a private address).
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  if (cause instanceof OutboundError) return cause;
  const why = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new OutboundError(
    otherwise,
    otherwise === "unreachable" ? `no answer: ${why}` : `the answer broke off: ${why}`,
    { cause: error },
  );
}
