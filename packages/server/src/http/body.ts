import express, { type RequestHandler } from "express";
import { AppError } from "./app-error.js";

const ESCAPED_NUL = /(^|[^\\])(\\\\)*\\u0000/;

/**
 * PostgreSQL text and jsonb cannot hold U+0000 or half of a surrogate pair (`"\\ud800"` alone is
 * valid JSON, but no character), so a body that escapes one is refused up front
 * (validation-failed) rather than failing deep in a transaction, or being stored as U+FFFD
 * where two different identifiers would then collide.
 */
function refuseUnstorableCharacters(_req: unknown, _res: unknown, body: Buffer): void {
  if (body.includes("\\u0000") && ESCAPED_NUL.test(body.toString("utf8"))) {
    throw new Error("The request body contains a NUL character (\\u0000), which is not accepted.");
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).every(([key, inner]) => wellFormed(key) && wellFormed(inner));
  }
  return true;
}

const refuseLoneSurrogates: RequestHandler = (req, _res, next) => {
  if (req.body !== undefined && !wellFormed(req.body)) {
    throw new AppError(
      "validation-failed",
      "The request body contains a lone surrogate escape (such as \\ud800), which is no character.",
    );
  }
  next();
};

/** JSON bodies up to `limit`; what fails here is rendered by the error handler. */
export function jsonBody(limit: string): RequestHandler[] {
  return [express.json({ limit, verify: refuseUnstorableCharacters }), refuseLoneSurrogates];
}
