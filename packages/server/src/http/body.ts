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

/**
 * Nesting no request body of the API comes near (an order line's categories are at depth 3).
 * The parser reads any depth; code that walks a body recursively would overflow the stack on
 * one nested many thousand times (a few hundred kilobytes of `[`), so deeper is refused here.
 */
export const MAX_BODY_DEPTH = 64;

/** What makes a parsed body unusable: a lone surrogate anywhere, or nesting too deep. Walked
 * with a stack of its own, so that no depth can overflow the call stack. */
function unusable(body: unknown): "lone-surrogate" | "too-deep" | undefined {
  const stack: [unknown, number][] = [[body, 0]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [value, depth] = entry;
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) return "lone-surrogate";
    } else if (value !== null && typeof value === "object") {
      if (depth >= MAX_BODY_DEPTH) return "too-deep";
      for (const [key, inner] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return "lone-surrogate";
        stack.push([inner, depth + 1]);
      }
    }
  }
  return undefined;
}

const refuseUnusableBodies: RequestHandler = (req, _res, next) => {
  const problem = req.body === undefined ? undefined : unusable(req.body);
  if (problem === "lone-surrogate") {
    throw new AppError(
      "validation-failed",
      "The request body contains a lone surrogate escape (such as \\ud800), which is no character.",
    );
  }
  if (problem === "too-deep") {
    throw new AppError(
      "validation-failed",
      `The request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels.`,
      [{ location: "body", pointer: "", message: "nested too deeply", code: "too_deep" }],
    );
  }
  next();
};

/**
 * The JSON parser. What it cannot read it passes on typed (entity.parse.failed...) for the
 * error handler, except a body whose Content-Encoding does not decode (gzip, deflate or br that
 * is not): that comes from zlib as a bare 400. It is the client's body all the same.
 */
function parseJson(limit: string): RequestHandler {
  const parse = express.json({ limit, verify: refuseUnstorableCharacters });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
      if (
        error &&
        type === undefined &&
        typeof status === "number" &&
        status >= 400 &&
        status < 500
      ) {
        next(
          new AppError(
            "validation-failed",
            "The request body does not decode as its Content-Encoding says.",
            [
              {
                location: "body",
                pointer: "",
                message: "undecodable body",
                code: "invalid_encoding",
              },
            ],
            { cause: error },
          ),
        );
        return;
      }
      next(error);
    });
}

/** JSON bodies up to `limit`; what fails here is rendered by the error handler. */
export function jsonBody(limit: string): RequestHandler[] {
  return [parseJson(limit), refuseUnusableBodies];
}
