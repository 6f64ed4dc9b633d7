import type { ErrorReason, ValidationIssue } from "@loyalty/shared-types";
import type { z } from "zod";

/** One problem with one value of a request, found by the app before sending or by the server. */
export interface FieldIssue {
  location: ValidationIssue["location"];
  /**
   * The value's path, dot-joined: `email`, `voucher.value`, `items.0.name`; "" for the whole
   * body. Forms name their inputs with the same path, so issues land next to their field.
   */
  field: string;
  message: string;
  /** zod's code (`too_small`, `invalid_format`, `custom`…), the server's too. */
  code: string;
  /** zod's details (minimum, maximum, format, origin…): only on issues found by the app. */
  details?: Readonly<Record<string, unknown>>;
}

/** A reason of the API, or one of the app's own when no problem object came back. */
export type ApiErrorReason = ErrorReason | "network-error" | "unexpected-response" | (string & {});

export interface ApiErrorInit {
  status: number | undefined;
  reason: ApiErrorReason;
  title: string;
  detail?: string | undefined;
  issues?: FieldIssue[] | undefined;
  requestId?: string | undefined;
  cause?: unknown;
}

/**
 * A call of the API that did not succeed: the server's problem object (RFC 9457, revision
 * 2026-08-26) turned into fields, or what went wrong before an answer came.
 */
export class ApiError extends Error {
  override readonly name: string = "ApiError";
  /** The HTTP status; undefined when no answer came (network, or refused before sending). */
  readonly status: number | undefined;
  readonly reason: ApiErrorReason;
  /** The server's title (English), or the app's. Show `problemMessage(error)` to users. */
  readonly title: string;
  /** The server's explanation of this occurrence (English), when it gave one. */
  readonly detail: string | undefined;
  /** Every issue found, by field path (validation-failed). */
  readonly issues: FieldIssue[];
  /** Quote it to support: the server logged the request under it. */
  readonly requestId: string | undefined;

  constructor(init: ApiErrorInit) {
    super(init.detail ? `${init.title}: ${init.detail}` : init.title, { cause: init.cause });
    this.status = init.status;
    this.reason = init.reason;
    this.title = init.title;
    this.detail = init.detail;
    this.issues = init.issues ?? [];
    this.requestId = init.requestId;
  }
}

/** The request broke the operation's schema: it was not sent. */
export class RequestValidationError extends ApiError {
  override readonly name: string = "RequestValidationError";

  constructor(issues: FieldIssue[]) {
    super({ status: undefined, reason: "validation-failed", title: "Validation failed", issues });
  }
}

/** `/voucher/value` (a JSON Pointer, as the server writes it) → `voucher.value`. */
export function fieldFromPointer(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** zod's issues as the server would list them, with zod's details kept for the messages. */
export function issuesFromZod(error: z.ZodError, location: FieldIssue["location"]): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        location,
        field: [...path, key].join("."),
        message: "is not a field of this object",
        code: issue.code,
      }));
    }
    const { code, message, path: _path, input: _input, ...details } = issue;
    return [{ location, field: path.join("."), message, code, details }];
  });
}
