import { describe, expect, it } from "vitest";
import {
  ERROR_REASONS,
  ERROR_REASON_NAMES,
  errorReasonSchema,
  legacyErrorSchema,
  problemSchema,
  reasonFromProblemType,
} from "../src/index.js";

/** The spec's table of reasons and HTTP statuses. */
const SPEC_STATUSES = {
  "validation-failed": 400,
  "invalid-revision-header": 400,
  "unknown-api-revision": 400,
  "referral-customer-already-exists": 400,
  "referral-already-pending": 400,
  "referral-already-completed": 400,
  unauthorized: 401,
  "not-found": 404,
  "platform-credentials-rejected": 422,
  "platform-resource-not-found": 422,
  "platform-request-rejected": 422,
  "internal-server-error": 500,
  "platform-unavailable": 502,
} as const;

/** The back-office's own: a valid token that is not for this store or operation. */
/** The back-office's, and a client over its rate limit (added after the spec's catalogue). */
const BACK_OFFICE_STATUSES = { forbidden: 403, "rate-limited": 429 } as const;

describe("ERROR_REASONS", () => {
  it("declares exactly the spec's reasons with the spec's statuses, and the back-office's", () => {
    const statuses = Object.fromEntries(
      Object.entries(ERROR_REASONS).map(([reason, { status }]) => [reason, status]),
    );
    expect(statuses).toEqual({ ...SPEC_STATUSES, ...BACK_OFFICE_STATUSES });
  });

  it("gives every reason a title", () => {
    for (const [reason, { title }] of Object.entries(ERROR_REASONS)) {
      expect(title.trim(), reason).not.toBe("");
    }
  });

  it("validates reason names against the table", () => {
    expect([...ERROR_REASON_NAMES].sort()).toEqual(
      Object.keys({ ...SPEC_STATUSES, ...BACK_OFFICE_STATUSES }).sort(),
    );
    expect(errorReasonSchema.safeParse("platform-unavailable").success).toBe(true);
    expect(errorReasonSchema.safeParse("payment-required").success).toBe(false);
  });
});

describe("reasonFromProblemType", () => {
  it("reads the reason at the end of a problem type", () => {
    expect(reasonFromProblemType("https://api.loyalty.example/problems/validation-failed")).toBe(
      "validation-failed",
    );
    expect(reasonFromProblemType("/problems/platform-unavailable")).toBe("platform-unavailable");
  });

  it("does not mistake Object.prototype members for reasons", () => {
    for (const name of ["toString", "constructor", "hasOwnProperty", "__proto__"]) {
      expect(reasonFromProblemType(`https://x.example/problems/${name}`)).toBeUndefined();
    }
  });

  it("returns undefined for a type that names no reason", () => {
    expect(reasonFromProblemType("https://api.loyalty.example/problems/teapot")).toBeUndefined();
    expect(reasonFromProblemType("https://api.loyalty.example/problems/")).toBeUndefined();
    expect(reasonFromProblemType("about:blank")).toBeUndefined();
  });
});

describe("error bodies", () => {
  const problem = {
    type: "https://api.loyalty.example/problems/validation-failed",
    title: "Validation failed",
    status: 400,
    detail: "The body has 1 problem.",
    instance: "/api/order/register",
    requestId: "req_123",
    errors: [
      { location: "body", pointer: "/lines/0/quantity", message: "too small", code: "too_small" },
    ],
  };

  it("keeps members of a problem it does not know, as RFC 9457 asks", () => {
    const parsed = problemSchema.parse({ ...problem, retryAfter: 30 });
    expect(parsed).toMatchObject({ retryAfter: 30, status: 400 });
  });

  it("rejects a validation issue located outside body, query, path and header", () => {
    const errors = [{ ...problem.errors[0], location: "cookie" }];
    expect(problemSchema.safeParse({ ...problem, errors }).success).toBe(false);
  });

  it("describes the legacy body served before 2026-08-26", () => {
    const legacy = { statusCode: 404, error: "Not Found", message: "Unknown store" };
    expect(legacyErrorSchema.safeParse(legacy).success).toBe(true);
    expect(legacyErrorSchema.safeParse({ ...legacy, statusCode: "404" }).success).toBe(false);
  });
});
