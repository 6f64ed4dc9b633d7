import type { RequestHandler } from "express";
import { normalizeDomain, OPERATIONS } from "@loyalty/shared-types";
import { operationFinder } from "./operation-lookup.js";

/** What the widgets send besides the CORS-safelisted headers. */
const ALLOWED_HEADERS = "content-type, revision, idempotency-key, x-request-id";
/** What a widget may read of an answer besides the safelisted headers. */
const EXPOSED_HEADERS =
  "revision, deprecation, sunset, retry-after, x-request-id, idempotent-replayed";
/** Chromium caches a preflight at most two hours; Firefox a day. */
const PREFLIGHT_MAX_AGE = "7200";

/**
 * The operations a storefront page may call: the public ones and those authenticated by the
 * customer hash. Orders, refunds and the back-office take keys and tokens that never belong in
 * a browser: no CORS for them.
 */
const browserOperation = operationFinder(
  Object.values(OPERATIONS).filter(({ auth }) => auth === "public" || auth === "hmac"),
);

/**
 * CORS for the storefront widgets.
 * - Public reads and the referee code answer every origin (`*`): their data is public and the
 *   widgets send no credential. The header is sent with or without an Origin, so that a cache in
 *   front never hands a browser an answer without it.
 * - Operations authenticated by the customer hash answer only the store's own origin: the Origin
 *   must be the request's `domain`. Another site's page gets no CORS header, so the browser
 *   neither shows it the customer's history nor sends it a claim.
 * A preflight is answered here, before the revision is read: it carries no revision header.
 */
export const corsMiddleware: RequestHandler = (req, res, next) => {
  const requested = req.method === "OPTIONS" && req.get("access-control-request-method");
  const auth = browserOperation(requested || req.method, req.path)?.auth;
  if (auth === undefined) {
    if (requested) {
      res.status(204).end();
      return;
    }
    next();
    return;
  }
  let allowed: string | undefined = "*";
  if (auth === "hmac") {
    res.vary("Origin");
    const origin = req.get("origin");
    const domain = req.query["domain"];
    allowed =
      origin && typeof domain === "string" && normalizeDomain(domain) === origin
        ? origin
        : undefined;
  }
  if (allowed) res.setHeader("Access-Control-Allow-Origin", allowed);
  if (requested) {
    if (allowed) {
      res.setHeader("Access-Control-Allow-Methods", requested);
      res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      res.setHeader("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
    }
    res.status(204).end();
    return;
  }
  if (allowed) res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  next();
};
