import express, { type RequestHandler } from "express";

const ESCAPED_NUL = /(^|[^\\])(\\\\)*\\u0000/;

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a JSON body that escapes one is refused up
 * front (validation-failed) rather than failing deep in a transaction.
 */
function refuseNulCharacters(_req: unknown, _res: unknown, body: Buffer): void {
  if (body.includes("\\u0000") && ESCAPED_NUL.test(body.toString("utf8"))) {
    throw new Error("The request body contains a NUL character (\\u0000), which is not accepted.");
  }
}

/** JSON bodies up to `limit`; what fails here is rendered by the error handler. */
export function jsonBody(limit: string): RequestHandler {
  return express.json({ limit, verify: refuseNulCharacters });
}
