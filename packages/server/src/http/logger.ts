import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type DestinationStream, type Logger } from "pino";
import { pinoHttp } from "pino-http";
import { traceLogMixin } from "../tracing/tracing.js";

/**
 * Paths of secrets that must never reach a log line, whatever logs them: credentials in
 * headers, customer hashes, API keys, passwords and platform credentials.
 */
const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "*.apiKey",
  "*.key",
  "*.secret",
  "*.password",
  "*.hash",
  "*.credentials",
  "apiKey",
  "key",
  "secret",
  "password",
  "hash",
  "credentials",
];

/**
 * An API key (`lk_<public prefix>_<secret>`, api-keys.service.ts), the separator possibly
 * percent-encoded: the prefix, which lists show and revocation takes, stays; the rest goes.
 */
const API_KEY = /(lk_[a-z0-9]{10})(?:_|%5[Ff])(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2})+/g;
/** A customer hash: hex HMAC-SHA512, 128 digits (no other value logged is that long). */
const CUSTOMER_HASH = /[0-9A-Fa-f]{128,}/g;
/**
 * A run of URL characters, percent signs included: one holding escapes may hide either of them.
 * One character class, so matching stays linear whatever a client sends (a pattern of escape
 * groups backtracked over a 15 KB path with a stray `%`: 506 ms of a blocked event loop).
 */
const URL_RUN = /[\w.~%-]+/g;

const redactPlain = (text: string) =>
  text.replace(API_KEY, "$1_[redacted]").replace(CUSTOMER_HASH, "[redacted]");

function decoded(run: string): string | undefined {
  try {
    return decodeURIComponent(run);
  } catch {
    return undefined;
  }
}

/**
 * The text with every API key and customer hash redacted, wherever they are: a path, a query,
 * an error message that echoes them. A percent-encoded one is redacted in its decoded form,
 * whose other characters are encoded again, so that a JSON line stays JSON.
 */
export function redactSecrets(text: string): string {
  const plain = redactPlain(text);
  if (!plain.includes("%")) return plain;
  return plain.replace(URL_RUN, (run) => {
    if (!run.includes("%")) return run;
    const unescaped = decoded(run);
    if (unescaped === undefined) return run;
    const redacted = redactPlain(unescaped);
    return redacted === unescaped
      ? run
      : redacted.replace(/[^\w.~[\]-]/gu, (char) => encodeURIComponent(char));
  });
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  // The active span's trace and span ids, only in a process that traces (docs/operators.md).
  const mixin = traceLogMixin();
  return pino(
    {
      level,
      ...(mixin && { mixin }),
      base: { service: "loyalty-server" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
      // The last net, on the written line: keys in messages, errors and whatever else echoes
      // a request (an operator revoking by the whole key, a key pasted in a query string).
      hooks: { streamWrite: redactSecrets },
    },
    destination,
  );
}

/** Query parameters whose values authenticate: never written, whatever they look like. */
const SECRET_PARAMETERS = new Set(["hash", "token", "access_token"]);

/** A query parameter's value as log lines and trace spans may show it. */
export function redactedQueryValue(name: string, value: string): string {
  return SECRET_PARAMETERS.has(name) ? "[redacted]" : redactSecrets(value);
}

/** The query string without the values that authenticate (hash) or are keys or hashes. */
function safeQuery(url: string): Record<string, string> {
  // Not `new URL()`: a request target such as `//x:99999/p` is no URL and must still be logged.
  const at = url.indexOf("?");
  const query = new URLSearchParams(at === -1 ? "" : url.slice(at + 1));
  const out: Record<string, string> = {};
  for (const [name, value] of query) {
    // Redacted before it is cut: a hash cut short would no longer look like one.
    out[redactSecrets(name).slice(0, 200)] = redactedQueryValue(name, value).slice(0, 200);
  }
  return out;
}

/** The line's fields, with the store authentication named, if any. */
function withStore(req: IncomingMessage, _res: ServerResponse, fields: object): object {
  const store = (req as IncomingMessage & { store?: { id: number } }).store;
  return store ? { ...fields, storeId: store.id } : fields;
}

/** One log line per request, with its id, revision, store and outcome; never a credential. */
export function httpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as IncomingMessage & { requestId?: string }).requestId ?? "",
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : "info"),
    serializers: {
      req: (req: IncomingMessage & { id?: string; raw?: IncomingMessage }) => {
        const raw = req.raw ?? req;
        const url = raw.url ?? "/";
        return {
          id: req.id,
          method: raw.method,
          path: redactSecrets(url.split("?")[0] ?? "/"),
          query: safeQuery(url),
          revision: raw.headers["revision"],
          userAgent: raw.headers["user-agent"],
        };
      },
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    // The store, once authentication named it, on the line itself: pino-http's customProps
    // would make a second child logger per request (a tenth of a history's CPU with the first).
    customSuccessObject: withStore,
    customErrorObject: withStore,
  });
}
