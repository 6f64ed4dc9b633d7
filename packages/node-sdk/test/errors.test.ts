import { describe, expect, it } from "vitest";
import {
  errorFromResponse,
  LoyaltyApiError,
  LoyaltyAuthenticationError,
  LoyaltyConnectionError,
  LoyaltyError,
  LoyaltyNotFoundError,
  LoyaltyPlatformError,
  LoyaltyRateLimitError,
  LoyaltySignatureError,
  LoyaltyTimeoutError,
  LoyaltyValidationError,
  parseRetryAfter,
} from "../src/errors.js";

const BASE = "https://problems.loyalty.test";

function problem(reason: string, status: number, extra: Record<string, unknown> = {}) {
  return {
    type: `${BASE}/${reason}`,
    title: "Title",
    status,
    detail: `Detail of ${reason}.`,
    instance: "/api/order/register",
    requestId: "req-from-body",
    ...extra,
  };
}

function legacy(status: number, message = "Something was refused.") {
  return { statusCode: status, error: "Error", message };
}

const headers = (entries: Record<string, string> = {}) =>
  new Headers({ "x-request-id": "req-from-header", ...entries });

describe("errorFromResponse: problem objects (2026-08-26)", () => {
  it.each([
    ["validation-failed", 400, LoyaltyValidationError],
    ["invalid-revision-header", 400, LoyaltyValidationError],
    ["unknown-api-revision", 400, LoyaltyValidationError],
    ["referral-customer-already-exists", 400, LoyaltyValidationError],
    ["referral-already-pending", 400, LoyaltyValidationError],
    ["referral-already-completed", 400, LoyaltyValidationError],
    ["unauthorized", 401, LoyaltyAuthenticationError],
    ["not-found", 404, LoyaltyNotFoundError],
    ["platform-credentials-rejected", 422, LoyaltyPlatformError],
    ["platform-resource-not-found", 422, LoyaltyPlatformError],
    ["platform-request-rejected", 422, LoyaltyPlatformError],
    ["internal-server-error", 500, LoyaltyApiError],
    ["platform-unavailable", 502, LoyaltyPlatformError],
  ] as const)("%s (%i) is a %o", (reason, status, Class) => {
    const body = problem(reason, status);

    const error = errorFromResponse(status, body, headers());

    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect(error).toBeInstanceOf(LoyaltyError);
    expect(error.constructor).toBe(Class);
    expect(error).toMatchObject({
      name: Class.name,
      message: `Detail of ${reason}.`,
      status,
      reason,
      type: `${BASE}/${reason}`,
      requestId: "req-from-body",
      body,
    });
  });

  it("carries the validation issues", () => {
    const issues = [
      { location: "body", pointer: "/lines/0/quantity", message: "too small", code: "too_small" },
      { location: "body", pointer: "/currency", message: "invalid", code: "invalid_format" },
    ];

    const error = errorFromResponse(
      400,
      problem("validation-failed", 400, { errors: issues }),
      headers(),
    );

    expect((error as LoyaltyValidationError).issues).toEqual(issues);
  });

  it("takes the request id from the header when the body has none", () => {
    const { requestId: _, ...body } = problem("not-found", 404);

    expect(errorFromResponse(404, body, headers()).requestId).toBe("req-from-header");
  });

  it("keeps a reason this release does not know", () => {
    const error = errorFromResponse(409, problem("idempotency-key-reused", 409), headers());

    expect(error.constructor).toBe(LoyaltyApiError);
    expect(error.reason).toBe("idempotency-key-reused");
  });
});

describe("errorFromResponse: the legacy body (before 2026-08-26)", () => {
  it.each([
    [400, LoyaltyValidationError, undefined],
    [401, LoyaltyAuthenticationError, "unauthorized"],
    [404, LoyaltyNotFoundError, "not-found"],
    [422, LoyaltyPlatformError, undefined],
    [429, LoyaltyRateLimitError, "rate-limited"],
    [500, LoyaltyApiError, "internal-server-error"],
    [502, LoyaltyPlatformError, "platform-unavailable"],
  ] as const)("%i is a %o, reason %s", (status, Class, reason) => {
    const body = legacy(status);

    const error = errorFromResponse(status, body, headers());

    expect(error.constructor).toBe(Class);
    expect(error).toMatchObject({
      message: "Something was refused.",
      status,
      reason,
      type: undefined,
      requestId: "req-from-header",
      body,
    });
  });

  it("has no issues to list", () => {
    const error = errorFromResponse(400, legacy(400), headers());

    expect((error as LoyaltyValidationError).issues).toEqual([]);
  });
});

describe("errorFromResponse: anything else", () => {
  it("keeps a proxy's page as the body, with no reason", () => {
    const error = errorFromResponse(502, "<html>Bad Gateway</html>", headers());

    expect(error.constructor).toBe(LoyaltyApiError);
    expect(error).toMatchObject({
      status: 502,
      reason: undefined,
      body: "<html>Bad Gateway</html>",
    });
    expect(error.message).toBe("The Loyalty API answered HTTP 502 with an unexpected body");
  });

  it("reads Retry-After on a rate limit", () => {
    const error = errorFromResponse(429, undefined, headers({ "retry-after": "7" }));

    expect(error).toBeInstanceOf(LoyaltyRateLimitError);
    expect((error as LoyaltyRateLimitError).retryAfter).toBe(7);
  });
});

describe("the other errors", () => {
  it("connection errors and timeouts have no status, and keep their cause", () => {
    const cause = new TypeError("fetch failed");
    const timeout = new LoyaltyTimeoutError("no answer", { cause });

    expect(timeout).toBeInstanceOf(LoyaltyConnectionError);
    expect(timeout).toBeInstanceOf(LoyaltyError);
    expect(timeout).not.toBeInstanceOf(LoyaltyApiError);
    expect(timeout.name).toBe("LoyaltyTimeoutError");
    expect(timeout.status).toBeUndefined();
    expect(timeout.cause).toBe(cause);
    expect(new LoyaltyConnectionError("refused").name).toBe("LoyaltyConnectionError");
  });

  it("signature errors are Loyalty errors", () => {
    const error = new LoyaltySignatureError("bad");

    expect(error).toBeInstanceOf(LoyaltyError);
    expect(error.name).toBe("LoyaltySignatureError");
    expect(String(error)).toBe("LoyaltySignatureError: bad");
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP-dates", () => {
    const now = Date.parse("2026-09-14T09:30:00Z");

    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Mon, 14 Sep 2026 09:30:05 GMT", now)).toBe(5);
    expect(parseRetryAfter("Mon, 14 Sep 2026 09:29:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
