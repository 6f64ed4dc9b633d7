import type { Request, RequestHandler, Response } from "express";
import { pino, type DestinationStream, type Logger } from "pino";
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

/**
 * Query parameters whose values authenticate or may: never written, whatever they look like,
 * however their names are spelled in capitals.
 */
const SECRET_PARAMETERS = new Set(["hash", "token", "access_token", "password", "secret"]);

/** A query parameter's value as log lines and trace spans may show it. */
export function redactedQueryValue(name: string, value: string): string {
  return SECRET_PARAMETERS.has(name.toLowerCase()) ? "[redacted]" : redactSecrets(value);
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

/** The request as every line about it shows it: never a credential. */
function requestFields(req: Request) {
  const url = req.originalUrl ?? req.url ?? "/";
  return {
    id: req.requestId,
    method: req.method,
    path: redactSecrets(url.split("?")[0] ?? "/"),
    query: safeQuery(url),
    revision: req.headers["revision"],
    userAgent: req.headers["user-agent"],
  };
}

/** What the access log keeps of a request while it is answered (see `httpLogger`). */
export interface AccessLog {
  readonly logger: Logger;
  /** When the request reached the access log, in milliseconds since the epoch. */
  readonly start: number;
  /** The request's own logger, once a line about it asked for one. */
  bound?: Logger;
  /** What failed writing the response, if anything did. */
  error?: Error;
  /** Whether the access line is written. */
  written?: boolean;
}

/**
 * The logger for lines about a request (a refusal, a failure): its fields are on each line, as
 * on its access line. Made when first asked for: most requests write only their access line.
 */
export function requestLog(req: Request, fallback: Logger): Logger {
  const access = req.accessLog;
  if (!access) return fallback.child({ reqId: req.requestId });
  return (access.bound ??= access.logger.child({ req: requestFields(req) }));
}

/** The request's access line, once its answer is sent or its connection closed. */
function writeAccessLine(
  req: Request,
  res: Response,
  access: AccessLog,
  accessLogger: Logger,
): void {
  access.written = true;
  const { bound, start, error } = access;
  const failed = error !== undefined || res.statusCode >= 500;
  // A request that had lines written about it has its fields on its logger already.
  const log = bound ?? accessLogger;
  if (!log.isLevelEnabled(failed ? "error" : "info")) return;
  const fields = {
    ...(bound === undefined && { req: requestFields(req) }),
    res: { statusCode: res.statusCode },
    responseTime: Date.now() - start,
    // The store, once authentication named it: an operator filters a store's requests by it.
    ...(req.store && { storeId: req.store.id }),
  };
  if (failed) {
    log.error(
      { ...fields, err: error ?? new Error(`failed with status code ${res.statusCode}`) },
      "request errored",
    );
    return;
  }
  const completed = !req.readableAborted && res.writableEnded;
  log.info(fields, completed ? "request completed" : "request aborted");
}

/**
 * One log line per request, with its id, revision, store and outcome; never a credential. The
 * line is made once, when the response is done: pino-http made a child logger per request
 * first, its request serialised and redacted, then the line (about a seventh of a history's
 * or a registration's CPU in the server, `pnpm bench`, 2026-11-29). Lines written while the
 * request is answered get its fields from `requestLog`.
 */
export function httpLogger(logger: Logger): RequestHandler {
  // The access line is made of the fields above only, each redacted where it is built: the
  // logger's redaction by path, which clones every object of a line that may hold a secret
  // somewhere inside, would find nothing there and cost half of the line (a profile of the
  // line alone). The last net, `redactSecrets` on the written line, still applies.
  const accessLogger = logger.child({}, { redact: [] });
  return (req, res, next) => {
    if (req.accessLog) {
      next();
      return;
    }
    const access: AccessLog = { logger, start: Date.now() };
    req.accessLog = access;
    // 'close' follows 'finish', or comes alone when the connection ends first. A failed write
    // is the line's error; one after the line (a write after the end) is a line of its own.
    res.on("error", (error) => {
      if (!access.written) access.error = error;
      else requestLog(req, logger).error({ err: error }, "the response failed after it was sent");
    });
    res.on("close", () => writeAccessLine(req, res, access, accessLogger));
    next();
  };
}
