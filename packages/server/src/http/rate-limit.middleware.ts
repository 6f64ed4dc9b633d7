import { createHash } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import { ADMIN_OPERATIONS, normalizeDomain } from "@loyalty/shared-types";
import type { RateLimits } from "../config.js";
import { AppError } from "./app-error.js";
import { findOperation } from "./operation-lookup.js";

type Policy = "storefront" | "customer" | "api-key" | "admin" | "admin-login";

const SUBJECT: Record<Policy, string> = {
  storefront: "address",
  customer: "customer",
  "api-key": "API key",
  admin: "access token",
  "admin-login": "address",
};

/** The `rate-limited` problem's detail, as the server and the OpenAPI examples word it. */
export function rateLimitedDetail(subject: string, limit: number, windowSeconds: number): string {
  return `Too many requests for this ${subject}: at most ${limit} every ${windowSeconds} seconds. Retry after the seconds Retry-After gives.`;
}

function policyOf(method: string, path: string): Policy | undefined {
  const operation = findOperation(method, path);
  if (!operation) return undefined;
  if (operation.path === ADMIN_OPERATIONS.createAdminToken.path) return "admin-login";
  return ({ public: "storefront", hmac: "customer", basic: "api-key", bearer: "admin" } as const)[
    operation.auth
  ];
}

const clientAddress = (req: Request) => ipKeyGenerator(req.ip ?? "unknown");

/** A credential counted by its digest: the limiter's memory never holds a key or a token. */
const credential = (req: Request) =>
  createHash("sha256")
    .update(req.get("authorization") ?? clientAddress(req))
    .digest("base64url");

/** A customer of a store: the path's id (history, claim) or the query's (referral). */
function customer(req: Request): string {
  const { domain, externalId } = req.query;
  const last = req.path.slice(req.path.lastIndexOf("/") + 1);
  const id = /^\d+$/.test(last) ? last : typeof externalId === "string" ? externalId : "";
  return `${typeof domain === "string" ? normalizeDomain(domain) : ""} ${id}`;
}

const KEYS: Record<Policy, (req: Request) => string> = {
  storefront: clientAddress,
  customer,
  "api-key": credential,
  admin: credential,
  "admin-login": clientAddress,
};

/**
 * Rate limits per client, by the operation's kind: public storefront reads per address, the
 * customer-hash operations per customer (whoever asks), orders and refunds per API key, the
 * back-office per token, and its sign-in per address. Every answer carries the IETF
 * `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers-07); a request over its limit is refused with a
 * `rate-limited` problem (429) and `Retry-After`, in the request's revision format. Counted in
 * each process's memory: with N API processes a client may get up to N times the limit.
 */
export function rateLimitMiddleware(limits: RateLimits): RequestHandler {
  const windowSeconds = limits.windowSeconds;
  const limiters = new Map<Policy, RequestHandler>();
  const configured: Record<Policy, number> = {
    storefront: limits.storefront,
    customer: limits.customer,
    "api-key": limits.apiKey,
    admin: limits.admin,
    "admin-login": limits.adminLogin,
  };
  for (const [policy, limit] of Object.entries(configured) as [Policy, number][]) {
    if (limit === 0) continue;
    limiters.set(
      policy,
      rateLimit({
        windowMs: windowSeconds * 1000,
        limit,
        identifier: policy,
        // draft-7's two headers cost the hot path less than draft-8's (a SHA-256 per answer);
        // the library's self-checks are start-up advice, not per-request work.
        standardHeaders: "draft-7",
        legacyHeaders: false,
        validate: false,
        keyGenerator: KEYS[policy],
        handler: (_req, _res, next) =>
          next(
            new AppError("rate-limited", rateLimitedDetail(SUBJECT[policy], limit, windowSeconds)),
          ),
      }),
    );
  }
  return (req, res, next) => {
    const policy = policyOf(req.method, req.path);
    const limiter = policy && limiters.get(policy);
    if (limiter) return limiter(req, res, next);
    next();
  };
}
