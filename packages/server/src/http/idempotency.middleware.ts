import { createHash } from "node:crypto";
import { ADMIN_OPERATIONS, type OperationDefinition } from "@loyalty/shared-types";
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import type {
  IdempotencyService,
  KeptResponse,
} from "../modules/idempotency/idempotency.service.js";
import { AppError } from "../errors.js";
import { requestLog } from "./logger.js";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** 1 to 255 printable ASCII characters (a UUID, say). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/** What a replay sets besides the status and body; the revision is part of the fingerprint. */
const KEPT_HEADERS = ["content-type", "cache-control"] as const;

/**
 * The operations that honour Idempotency-Key: every POST, which all change something, except
 * the back-office sign-in, which changes nothing and whose token is not to be kept.
 */
export function honoursIdempotencyKey(operation: OperationDefinition): boolean {
  return operation.method === "POST" && operation !== ADMIN_OPERATIONS.createAdminToken;
}

/** JSON with the members of every object in one order: the same value, the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    const members = Object.keys(object)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(object[name])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The request as the operation reads it: method, path, revision, and the parsed query and
 * body, canonicalised (so that the same JSON sent with other spacing or member order is the
 * same request, and a key reused on another operation is not).
 */
function fingerprintOf(req: Request): Buffer {
  const path = req.originalUrl.split("?")[0];
  return createHash("sha256")
    .update(`${req.method} ${path}\n${req.revision ?? ""}\n`)
    .update(`${canonicalJson(req.query)}\n${canonicalJson(req.body)}`)
    .digest();
}

/**
 * Who sent the key, as authentication established it: no two stores, customers or admins
 * can ever see each other's responses. The public referee code keys by the key alone.
 */
function scopeOf(req: Request): string {
  if (req.admin) return `admin ${req.admin.userId}`;
  if (!req.store) return "public";
  return req.customerExternalId === undefined
    ? `store ${req.store.id}`
    : `customer ${req.store.id} ${req.customerExternalId}`;
}

/**
 * Keeps the response as it is sent, without holding it back: the key stays in progress until
 * the response is kept (a statement shared with other requests' keys, a few milliseconds), and
 * a retry that arrives meanwhile waits for it (IdempotencyService.start) and is answered the
 * kept response all the same. Every operation answers with one `end` (res.json, res.send).
 */
function keepResponse(
  req: Request,
  res: Response,
  finish: (response: KeptResponse) => Promise<void>,
  logger: Logger,
): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    const body =
      typeof chunk === "string"
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString("utf8")
          : "";
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    // A response that could not be kept leaves its key in progress: retries wait, and never
    // run the operation again, until the key is abandoned.
    finish({ status: res.statusCode, headers, body }).catch((error: unknown) =>
      requestLog(req, logger).error(
        { err: error },
        "the response of an Idempotency-Key was not kept",
      ),
    );
    return end(...args);
  }) as Response["end"];
}

/**
 * `Idempotency-Key` on a POST: its first request runs and its response is kept for 24 hours;
 * the same key with the same request is answered that response again (`Idempotent-Replayed:
 * true`), with another request 400 validation-failed. A 5xx is not kept, so a retry runs again.
 * A request whose key is held by the same request still running waits for its answer a few
 * seconds, then is answered 500 with Retry-After: the spec's catalogue has no 409, every
 * operation may answer 500, and clients retry a 5xx. Placed after authentication, which says
 * who sent the key; a request without the header costs nothing more.
 */
export function idempotentRequests(
  idempotency: IdempotencyService,
  logger: Logger,
): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) {
      next();
      return;
    }
    if (!VALID_KEY.test(key)) {
      throw new AppError(
        "validation-failed",
        "The Idempotency-Key header must be 1 to 255 printable ASCII characters.",
        [
          {
            location: "header",
            pointer: "/idempotency-key",
            message: "must be 1 to 255 printable ASCII characters",
            code: "invalid_format",
          },
        ],
      );
    }
    const start = await idempotency.start({
      scope: scopeOf(req),
      key,
      fingerprint: fingerprintOf(req),
    });
    switch (start.outcome) {
      case "replay": {
        const { status, headers, body } = start.response;
        res.status(status).set(headers).set(IDEMPOTENT_REPLAYED_HEADER, "true").send(body);
        return;
      }
      case "in-progress":
        res.set("Retry-After", "1");
        throw new AppError(
          "internal-server-error",
          "A request with this Idempotency-Key is still in progress: retry it in a moment.",
        );
      case "run":
        keepResponse(req, res, start.finish, logger);
        next();
    }
  };
}
