import { ERROR_REASONS, type ErrorReason, type ValidationIssue } from "@loyalty/shared-types";

/**
 * The one error type handlers and services throw. It names a reason of the spec's catalogue;
 * the error middleware renders it in the format of the request's revision.
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly reason: ErrorReason,
    /** Safe to show the client: it says what to change, never internal details. */
    readonly detail: string = ERROR_REASONS[reason].title,
    readonly issues?: ValidationIssue[],
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = "AppError";
    this.status = ERROR_REASONS[reason].status;
  }
}
