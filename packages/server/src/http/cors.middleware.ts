import type { RequestHandler } from "express";
import { normalizeDomain, OPERATIONS } from "@loyalty/shared-types";

/** What the widgets send besides the CORS-safelisted headers. */
const ALLOWED_HEADERS = "content-type, revision, idempotency-key, x-request-id";
/** What a widget may read of an answer besides the safelisted headers. */
const EXPOSED_HEADERS =
  "revision, deprecation, sunset, retry-after, x-request-id, idempotent-replayed";
/** Chromium caches a preflight at most two hours; Firefox a day. */
const PREFLIGHT_MAX_AGE = "7200";

type BrowserAuth = "public" | "hmac";

/**
 * The operations a storefront page may call, by method and path, from the operations registry:
 * the public ones and those authenticated by the customer hash. Orders, refunds and the
 * back-office take keys and tokens that never belong in a browser: no CORS for them.
 */
const exact = new Map<string, BrowserAuth>();
const templated: { method: string; pattern: RegExp; auth: BrowserAuth }[] = [];
for (const { method, path, auth } of Object.values(OPERATIONS)) {
  if (auth !== "public" && auth !== "hmac") continue;
  if (path.includes("{")) {
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    templated.push({ method, pattern, auth });
  } else {
    exact.set(`${method} ${path}`, auth);
  }
}

function browserAuth(method: string, path: string): BrowserAuth | undefined {
  return (
    exact.get(`${method} ${path}`) ??
    templated.find((operation) => operation.method === method && operation.pattern.test(path))?.auth
  );
}

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
  const auth = browserAuth(requested || req.method, req.path);
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
