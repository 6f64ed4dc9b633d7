import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type DestinationStream, type Logger } from "pino";
import { pinoHttp } from "pino-http";

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "loyalty-server" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** The query string without the values that authenticate (hash) or could identify keys. */
function safeQuery(url: string): Record<string, string> {
  // Not `new URL()`: a request target such as `//x:99999/p` is no URL and must still be logged.
  const at = url.indexOf("?");
  const query = new URLSearchParams(at === -1 ? "" : url.slice(at + 1));
  const out: Record<string, string> = {};
  for (const [name, value] of query) {
    out[name] = name === "hash" ? "[redacted]" : value.slice(0, 200);
  }
  return out;
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
          path: url.split("?")[0],
          query: safeQuery(url),
          revision: raw.headers["revision"],
          userAgent: raw.headers["user-agent"],
        };
      },
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customProps: (req) => {
      const request = req as IncomingMessage & { store?: { id: number } };
      return request.store ? { storeId: request.store.id } : {};
    },
  });
}
