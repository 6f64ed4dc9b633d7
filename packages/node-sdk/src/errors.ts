import {
  REASON_BY_STATUS,
  type ErrorReason,
  type LegacyError,
  type Problem,
  type ValidationIssue,
} from "./generated/contracts.js";

/** A reason of the API; a newer server may answer one this release does not list yet. */
// `string & {}` keeps editors suggesting the known reasons.
export type LoyaltyErrorReason = ErrorReason | (string & {});

export interface LoyaltyErrorDetails {
  status?: number | undefined;
  reason?: LoyaltyErrorReason | undefined;
  type?: string | undefined;
  requestId?: string | undefined;
  body?: unknown;
  cause?: unknown;
}

/** Every error this SDK throws. */
export class LoyaltyError extends Error {
  override readonly name: string = "LoyaltyError";
  /** The HTTP status; undefined when no response came back. */
  readonly status: number | undefined;
  /**
   * The error's reason (`validation-failed`, `unauthorized`...). Problem objects (revision
   * 2026-08-26) always carry it; the legacy body of earlier revisions does not, so it is set
   * only where the status implies a single reason (401, 404, 500, 502).
   */
  readonly reason: LoyaltyErrorReason | undefined;
  /** The problem's `type` URI (revision 2026-08-26). */
  readonly type: string | undefined;
  /** The request id the server logged: quote it to support. */
  readonly requestId: string | undefined;
  /** The response body as received: a problem object, a legacy body, or text. */
  readonly body: unknown;

  constructor(message: string, details: LoyaltyErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.reason = details.reason;
    this.type = details.type;
    this.requestId = details.requestId;
    this.body = details.body;
  }
}

/** The API answered with an error status. Its subclasses name the families. */
export class LoyaltyApiError extends LoyaltyError {
  override readonly name: string = "LoyaltyApiError";
}

/**
 * 400: the request was refused as invalid: `validation-failed` (see `issues`), a refused
 * revision header, or a refused referral (`referral-already-pending`...).
 */
export class LoyaltyValidationError extends LoyaltyApiError {
  override readonly name: string = "LoyaltyValidationError";
  /** Every issue found (problem objects only). */
  readonly issues: ValidationIssue[];

  constructor(message: string, details: LoyaltyErrorDetails & { issues?: ValidationIssue[] }) {
    super(message, details);
    this.issues = details.issues ?? [];
  }
}

/** 401: the API key or the customer hash was refused. */
export class LoyaltyAuthenticationError extends LoyaltyApiError {
  override readonly name: string = "LoyaltyAuthenticationError";
}

/** 404: the store (its domain), the customer, or the referral hash is unknown. */
export class LoyaltyNotFoundError extends LoyaltyApiError {
  override readonly name: string = "LoyaltyNotFoundError";
}

/**
 * 422 or 502: the store's e-commerce platform refused (`platform-credentials-rejected`,
 * `platform-resource-not-found`, `platform-request-rejected`) or did not answer
 * (`platform-unavailable`). The points were given back.
 */
export class LoyaltyPlatformError extends LoyaltyApiError {
  override readonly name: string = "LoyaltyPlatformError";
}

/** 429: too many requests. */
export class LoyaltyRateLimitError extends LoyaltyApiError {
  override readonly name: string = "LoyaltyRateLimitError";
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;

  constructor(message: string, details: LoyaltyErrorDetails & { retryAfter?: number | undefined }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}

/** No response: the connection failed (the cause says how). */
export class LoyaltyConnectionError extends LoyaltyError {
  override readonly name: string = "LoyaltyConnectionError";
}

/** No response within the timeout. */
export class LoyaltyTimeoutError extends LoyaltyConnectionError {
  override readonly name: string = "LoyaltyTimeoutError";
}

/** A webhook delivery whose signature does not verify: do not trust its body. */
export class LoyaltySignatureError extends LoyaltyError {
  override readonly name: string = "LoyaltySignatureError";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isProblem(body: unknown): body is Problem {
  return isObject(body) && typeof body.type === "string" && typeof body.status === "number";
}

function isLegacyError(body: unknown): body is LegacyError {
  return isObject(body) && typeof body.statusCode === "number" && typeof body.message === "string";
}

/** `Retry-After` in seconds: a number of seconds or an HTTP-date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The one place an error response becomes an error, whatever its format: a problem object
 * (revision 2026-08-26), the legacy `{statusCode, error, message}` (earlier revisions), or
 * anything else a proxy in between may answer.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
): LoyaltyApiError {
  let requestId = headers.get("x-request-id") ?? undefined;
  let reason: LoyaltyErrorReason | undefined;
  let type: string | undefined;
  let message: string;
  let issues: ValidationIssue[] | undefined;
  if (isProblem(body)) {
    type = body.type;
    reason = type.slice(type.lastIndexOf("/") + 1) || undefined;
    message = body.detail || body.title || `HTTP ${status}`;
    requestId = body.requestId ?? requestId;
    issues = body.errors;
  } else if (isLegacyError(body)) {
    reason = REASON_BY_STATUS[status];
    message = body.message;
  } else {
    message = `The Loyalty API answered HTTP ${status} with an unexpected body`;
  }
  const details = { status, reason, type, requestId, body };

  if (reason?.startsWith("platform-")) return new LoyaltyPlatformError(message, details);
  switch (status) {
    case 400:
      return new LoyaltyValidationError(message, { ...details, issues });
    case 401:
    case 403:
      return new LoyaltyAuthenticationError(message, details);
    case 404:
      return new LoyaltyNotFoundError(message, details);
    case 422:
      return new LoyaltyPlatformError(message, details);
    case 429:
      return new LoyaltyRateLimitError(message, {
        ...details,
        retryAfter: parseRetryAfter(headers.get("retry-after")),
      });
    default:
      return new LoyaltyApiError(message, details);
  }
}
