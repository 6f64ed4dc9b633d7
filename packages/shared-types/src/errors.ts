import { z } from "zod";

/**
 * Every error reason of the API: the `<reason>` of a problem's `type` URI, its HTTP status and
 * its title. This table is the only place a reason is declared.
 */
export const ERROR_REASONS = {
  "validation-failed": { status: 400, title: "Validation failed" },
  "invalid-revision-header": { status: 400, title: "Invalid revision header" },
  "unknown-api-revision": { status: 400, title: "Unknown API revision" },
  "referral-customer-already-exists": {
    status: 400,
    title: "The referred address already belongs to a customer",
  },
  "referral-already-pending": { status: 400, title: "The referred address has a pending referral" },
  "referral-already-completed": { status: 400, title: "The referred address was already referred" },
  unauthorized: { status: 401, title: "Unauthorized" },
  /** Back-office only: the token is valid but not for this store or operation. */
  forbidden: { status: 403, title: "Forbidden" },
  "not-found": { status: 404, title: "Not found" },
  "platform-credentials-rejected": {
    status: 422,
    title: "The store platform rejected the store's credentials",
  },
  "platform-resource-not-found": {
    status: 422,
    title: "The store platform does not expose the needed resource",
  },
  "platform-request-rejected": { status: 422, title: "The store platform refused the operation" },
  /** Added after the spec's catalogue (a compatible change): a client over its rate limit. */
  "rate-limited": { status: 429, title: "Too many requests" },
  "internal-server-error": { status: 500, title: "Internal server error" },
  "platform-unavailable": { status: 502, title: "The store platform did not answer" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorReason = keyof typeof ERROR_REASONS;

export const ERROR_REASON_NAMES = Object.keys(ERROR_REASONS) as [ErrorReason, ...ErrorReason[]];

export const errorReasonSchema = z.enum(ERROR_REASON_NAMES);

/** Where a validation issue was found. */
export const issueLocationSchema = z.enum(["body", "query", "path", "header"]);

/** One problem found by validation, as listed in a validation-failed error. */
export const validationIssueSchema = z.object({
  location: issueLocationSchema,
  /** JSON Pointer (RFC 6901) to the offending value within its location; "" for the whole. */
  pointer: z.string(),
  message: z.string(),
  code: z.string(),
});
export type ValidationIssue = z.infer<typeof validationIssueSchema>;

/**
 * RFC 9457 problem object, served as `application/problem+json` from revision 2026-08-26.
 * Clients must ignore members they do not know.
 */
export const problemSchema = z.looseObject({
  /** `{problem_base}/<reason>`: stable, the field to branch on. */
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  /** The path of the request that failed. */
  instance: z.string(),
  /** The request id, also in the X-Request-Id response header; quote it to support. */
  requestId: z.string().optional(),
  /** Present on validation-failed: every issue found, not only the first. */
  errors: z.array(validationIssueSchema).optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** The historical error body, served before revision 2026-08-26 as `application/json`. */
export const legacyErrorSchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
});
export type LegacyError = z.infer<typeof legacyErrorSchema>;

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Extracts the reason from a problem `type` URI (`.../validation-failed` -> validation-failed). */
export function reasonFromProblemType(type: string): ErrorReason | undefined {
  const reason = type.slice(type.lastIndexOf("/") + 1);
  return Object.hasOwn(ERROR_REASONS, reason) ? (reason as ErrorReason) : undefined;
}
