import express, { type RequestHandler } from "express";
import { AppError } from "../errors.js";

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

/**
 * What makes a parsed body unusable: a lone surrogate anywhere, or nesting too deep. Walked
 * with a stack of its own, so that no depth can overflow the call stack, in one pass that
 * allocates nothing per number or string: a body of half a million numbers costs about 2 ms
 * (with `Object.entries` and a tuple per value it cost 265 ms, a stalled event loop).
 */
function unusable(body: unknown): "lone-surrogate" | "too-deep" | undefined {
  const values: unknown[] = [body];
  const depths: number[] = [0];
  const visit = (inner: unknown, depth: number): boolean => {
    if (typeof inner === "string") return LONE_SURROGATE.test(inner);
    if (inner !== null && typeof inner === "object") {
      values.push(inner);
      depths.push(depth);
    }
    return false;
  };
  if (typeof body === "string") return LONE_SURROGATE.test(body) ? "lone-surrogate" : undefined;
  while (values.length > 0) {
    const value = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= MAX_BODY_DEPTH) return "too-deep";
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        if (visit(value[index], depth + 1)) return "lone-surrogate";
      }
    } else {
      for (const key in value) {
        if (LONE_SURROGATE.test(key)) return "lone-surrogate";
        if (visit((value as Record<string, unknown>)[key], depth + 1)) return "lone-surrogate";
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
function parseJson(limit: string | number): RequestHandler {
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

/**
 * JSON bodies up to `limit` (bytes, or a size such as "1mb"); what fails here is rendered by the
 * error handler. Mounted after authentication: a request whose credentials are refused is
 * answered without reading what it sent.
 */
export function jsonBody(limit: string | number): RequestHandler[] {
  return [parseJson(limit), refuseUnusableBodies];
}

/** The JSON body of an operation, up to its own limit (`maxBodyBytes`) or the server's. */
export function operationBody(
  operation: { maxBodyBytes?: number },
  serverLimit: string,
): RequestHandler[] {
  return jsonBody(operation.maxBodyBytes ?? serverLimit);
}
