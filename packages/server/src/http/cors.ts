import type { OperationDefinition } from "@loyalty/shared-types";
import { normalizeDomain } from "@loyalty/shared-types";
import type { Request, RequestHandler, Response } from "express";

/** What the widgets send besides the CORS-safelisted headers. */
const ALLOWED_HEADERS = "content-type, revision, idempotency-key, x-request-id";
/** What a widget may read of an answer besides the safelisted headers. */
const EXPOSED_HEADERS =
  "revision, deprecation, sunset, retry-after, x-request-id, idempotent-replayed";
/** Chromium caches a preflight at most two hours; Firefox a day. */
const PREFLIGHT_MAX_AGE = "7200";

/**
 * The origin a storefront page may read an operation's answers from, or undefined for none.
 * - Public reads and the referee code answer every origin (`*`): their data is public and the
 *   widgets send no credential. The header is sent with or without an Origin, so that a cache
 *   in front never hands a browser an answer without it.
 * - Operations authenticated by the customer hash answer only the store's own origin: the
 *   Origin must be the request's `domain`. Another site's page gets no CORS header, so the
 *   browser neither shows it the customer's history nor sends it a claim.
 */
function allowedOrigin(auth: OperationDefinition["auth"], req: Request, res: Response) {
  if (auth !== "hmac") return "*";
  res.vary("Origin");
  const origin = req.get("origin");
  const domain = req.query["domain"];
  return origin && typeof domain === "string" && normalizeDomain(domain) === origin
    ? origin
    : undefined;
}

/**
 * CORS for an operation of the API: only those a storefront page calls (public, or
 * authenticated by the customer hash) get any. Orders, refunds and the back-office take keys
 * and tokens that never belong in a browser.
 */
export function corsFor(
  operation: OperationDefinition,
): ((req: Request, res: Response) => void) | undefined {
  const { auth } = operation;
  if (auth !== "public" && auth !== "hmac") return undefined;
  return (req, res) => {
    const allowed = allowedOrigin(auth, req, res);
    if (allowed) {
      res.setHeader("Access-Control-Allow-Origin", allowed);
      res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
  };
}

/**
 * The preflight of a path's operations that a storefront page may call, answered before the
 * revision is read (a preflight carries no revision header). A method no such operation has
 * gets an empty 204: the browser then refuses the call.
 */
export function preflightFor(
  operations: readonly OperationDefinition[],
): RequestHandler | undefined {
  const browser = operations.filter(({ auth }) => auth === "public" || auth === "hmac");
  if (browser.length === 0) return undefined;
  return (req, res, next) => {
    const requested = req.get("access-control-request-method");
    if (!requested) {
      next();
      return;
    }
    const method = requested === "HEAD" ? "GET" : requested;
    const operation = browser.find((candidate) => candidate.method === method);
    const allowed = operation && allowedOrigin(operation.auth, req, res);
    if (allowed) {
      res.setHeader("Access-Control-Allow-Origin", allowed);
      res.setHeader("Access-Control-Allow-Methods", requested);
      res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      res.setHeader("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
    }
    res.status(204).end();
  };
}
