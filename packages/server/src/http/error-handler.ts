import { STATUS_CODES } from "node:http";
import {
  ERROR_REASONS,
  PROBLEM_CONTENT_TYPE,
  usesProblemDetails,
  type LegacyError,
  type Problem,
} from "@loyalty/shared-types";
import type { ErrorRequestHandler, Request } from "express";
import type { Logger } from "pino";
import { AppError } from "../errors.js";
import { requestLog } from "./logger.js";
import { malformedReason } from "./mount-operation.js";

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/**
 * A path parameter the router cannot decode, answered as the operation answers any malformed
 * one, within its catalogue (see `malformedReason`).
 */
function malformedPath(req: Request): AppError {
  return new AppError(
    malformedReason(req.operation, "path"),
    "The request path is not valid percent-encoding.",
  );
}

/** Turns what the body parser throws into the spec's reasons (413 is not in the contract). */
function fromBodyParser(error: BodyParserError, req: Request): AppError | undefined {
  switch (error.type) {
    case "entity.parse.failed":
      return new AppError("validation-failed", "The request body is not valid JSON.", [
        { location: "body", pointer: "", message: "malformed JSON", code: "invalid_json" },
      ]);
    case "entity.too.large":
      return new AppError(
        "validation-failed",
        `The request body exceeds the limit of ${error.limit ?? "?"} bytes.`,
        [{ location: "body", pointer: "", message: "body too large", code: "too_big" }],
      );
    case "entity.verify.failed":
      return new AppError("validation-failed", error.message, [
        { location: "body", pointer: "", message: error.message, code: "invalid_string" },
      ]);
    case "charset.unsupported":
    case "encoding.unsupported":
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new AppError("validation-failed", error.message);
    default:
      // The router cannot decode a path parameter whose percent-encoding is broken.
      if (error instanceof URIError && error.status === 400) return malformedPath(req);
      return undefined;
  }
}

/**
 * The one place errors become responses: RFC 9457 problem+json from 2026-08-26, the legacy
 * `{statusCode, error, message}` before. A request whose revision header was refused is
 * answered with a problem object, the format of the reasons that refuse it.
 */
export function errorHandler(problemBaseUri: string, logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const appError =
      error instanceof AppError
        ? error
        : (fromBodyParser(error as BodyParserError, req) ??
          new AppError("internal-server-error", "The request could not be completed.", undefined, {
            cause: error,
          }));

    const log = requestLog(req, logger);
    if (appError.reason === "internal-server-error") {
      log.error({ err: error }, "request failed");
    } else {
      log.info({ reason: appError.reason, detail: appError.detail }, "request refused");
    }

    const { status, reason, detail } = appError;
    // No error may be kept by a browser or a shared cache: a 404 for an unknown domain, or a
    // 400 for one request's bad revision header, would otherwise be served to every visitor.
    res.setHeader("Cache-Control", "no-store");
    const problemFormat = req.revision === undefined || usesProblemDetails(req.revision);
    if (problemFormat) {
      const body: Problem = {
        type: `${problemBaseUri}/${reason}`,
        title: ERROR_REASONS[reason].title,
        status,
        detail,
        instance: req.originalUrl.split("?")[0] ?? "/",
        requestId: req.requestId,
        ...(appError.issues ? { errors: appError.issues } : {}),
      };
      res.status(status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
      return;
    }
    const body: LegacyError = {
      statusCode: status,
      error: STATUS_CODES[status] ?? "Error",
      message: detail,
    };
    res.status(status).json(body);
  };
}
