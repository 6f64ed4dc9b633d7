import { LATEST_REVISION, OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { afterEach, describe, expect, test } from "vitest";
import {
  HttpResponse,
  http,
  problemResponse,
  requestsTo,
  serve,
  useApiMock,
} from "../../test/support/api-mock.js";
import { example, tokenResponse } from "../../test/support/fixtures.js";
import { api, operationUrl } from "./client.js";
import { ApiError, RequestValidationError } from "./errors.js";
import { session } from "./session.js";

useApiMock();

afterEach(() => session.end("signed-out"));

function signIn(): void {
  session.start(tokenResponse({ storeId: 42 }));
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("api.call", () => {
  test("sends the token and the latest revision, and parses the answer with the operation's schema", async () => {
    signIn();
    serve(http.get("/admin/stores/:storeId/rules", () => HttpResponse.json(example("listRules"))));
    const rules = await api.call("listRules", { params: { storeId: 42 } });
    expect(rules).toEqual(example("listRules"));
    const [request] = requestsTo("/admin/stores/42/rules");
    expect(request?.headers.get("authorization")).toBe("Bearer test-token-42");
    expect(request?.headers.get("revision")).toBe(LATEST_REVISION);
    expect(request?.method).toBe("GET");
  });

  test("sends the body as JSON", async () => {
    signIn();
    serve(
      http.post("/admin/stores/:storeId/clubs", () =>
        HttpResponse.json(example("createClub"), { status: 201 }),
      ),
    );
    const club = await api.call("createClub", {
      params: { storeId: 42 },
      body: { name: "Gold", threshold: 2000 },
    });
    expect(club).toEqual(example("createClub"));
    const [request] = requestsTo("/admin/stores/42/clubs");
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(await request?.json()).toEqual({ name: "Gold", threshold: 2000 });
  });

  test("refuses a body that breaks the schema, by field, without sending it", async () => {
    signIn();
    const error = await rejection(
      api.call("createClub", {
        params: { storeId: 42 },
        body: { name: "", threshold: -1, multiplier: 1.0001 },
      }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.status).toBeUndefined();
    expect(error.issues.map((issue) => [issue.field, issue.code])).toEqual([
      ["name", "too_small"],
      ["threshold", "too_small"],
      ["multiplier", "not_multiple_of"],
    ]);
    expect(requestsTo("/admin/stores/42/clubs")).toHaveLength(0);
  });

  test("turns a problem into an ApiError with its issues by field path", async () => {
    signIn();
    serve(
      http.post("/admin/stores/:storeId/rewards", () =>
        problemResponse("validation-failed", "The request body is invalid.", [
          {
            location: "body",
            pointer: "/voucher/value",
            message: "must be positive",
            code: "too_small",
          },
          { location: "body", pointer: "", message: "too many rewards", code: "custom" },
        ]),
      ),
    );
    const error = await rejection(
      api.call("createReward", {
        params: { storeId: 42 },
        body: OPERATION_EXAMPLES.createReward.request,
      }),
    );
    expect(error).not.toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({
      status: 400,
      reason: "validation-failed",
      title: "Validation failed",
      detail: "The request body is invalid.",
      requestId: "req_test_1",
    });
    expect(error.issues).toEqual([
      { location: "body", field: "voucher.value", message: "must be positive", code: "too_small" },
      { location: "body", field: "", message: "too many rewards", code: "custom" },
    ]);
  });

  test("a 401 ends the session as expired", async () => {
    signIn();
    serve(http.get("/admin/stores", () => problemResponse("unauthorized", "Token expired.")));
    const error = await rejection(api.call("listStores"));
    expect(error).toMatchObject({ status: 401, reason: "unauthorized" });
    expect(session.current).toBeUndefined();
    expect(session.endReason).toBe("expired");
  });

  test("a late 401 to the previous session's request leaves the new session alone", async () => {
    signIn();
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    serve(
      http.get("/admin/stores", async () => {
        await answered;
        return problemResponse("unauthorized", "Token revoked.");
      }),
    );
    const late = rejection(api.call("listStores"));
    await expect.poll(() => requestsTo("/admin/stores").length).toBe(1);
    // Signed out and in again (another token) while the request was on its way.
    session.end("signed-out");
    session.start({ ...tokenResponse({ storeId: 42 }), accessToken: "the-new-token" });
    answer();
    expect(await late).toMatchObject({ status: 401 });
    expect(session.current?.accessToken).toBe("the-new-token");
  });

  test("sends nothing once the token has expired", async () => {
    session.start(tokenResponse({ storeId: 42, seconds: -1 }));
    const error = await rejection(api.call("listStores"));
    expect(error.reason).toBe("unauthorized");
    expect(requestsTo("/admin/stores")).toHaveLength(0);
    expect(session.endReason).toBe("expired");
  });

  test("the sign-in's 401 is a refusal, not an expiry", async () => {
    signIn();
    const error = await rejection(
      api.call("createAdminToken", { body: { email: "admin@shop.example", password: "nope" } }),
    );
    expect(error.detail).toBe("The email or the password is wrong.");
    expect(session.current).toBeDefined();
  });

  test("an answer that is not a problem object keeps its status", async () => {
    signIn();
    serve(
      http.get(
        "/admin/stores",
        () =>
          new HttpResponse("<html>Bad gateway</html>", {
            status: 502,
            statusText: "Bad Gateway",
            headers: { "content-type": "text/html" },
          }),
      ),
    );
    const error = await rejection(api.call("listStores"));
    expect(error).toMatchObject({
      status: 502,
      reason: "unexpected-response",
      title: "Bad Gateway",
    });
  });

  test("no answer at all is a network error", async () => {
    signIn();
    serve(http.get("/admin/stores", () => HttpResponse.error()));
    const error = await rejection(api.call("listStores"));
    expect(error).toMatchObject({ status: undefined, reason: "network-error" });
  });

  test("an answer that breaks the contract is refused", async () => {
    signIn();
    serve(http.get("/admin/stores", () => HttpResponse.json([{ id: "forty-two" }])));
    const error = await rejection(api.call("listStores"));
    expect(error.reason).toBe("unexpected-response");
    expect(error.issues.length).toBeGreaterThan(0);
  });

  test("204 resolves to undefined", async () => {
    signIn();
    serve(
      http.delete(
        "/admin/stores/:storeId/rules/:ruleId",
        () => new HttpResponse(null, { status: 204 }),
      ),
    );
    await expect(
      api.call("deleteRule", { params: { storeId: 42, ruleId: 7 } }),
    ).resolves.toBeUndefined();
  });
});

describe("operationUrl", () => {
  test("fills the path and writes the query (arrays as repeated keys, no empty values)", () => {
    expect(
      operationUrl(
        "/admin/stores/{storeId}/customers/{externalId}",
        { storeId: 42, externalId: "a/b" },
        { q: "ann lee", limit: "25", cursor: undefined, categories: ["1", "2"], none: null },
      ),
    ).toBe("/admin/stores/42/customers/a%2Fb?q=ann+lee&limit=25&categories=1&categories=2");
    expect(operationUrl("/admin/stores", undefined, undefined)).toBe("/admin/stores");
  });

  test("refuses a missing path parameter", () => {
    expect(() => operationUrl("/admin/stores/{storeId}", {}, undefined)).toThrow(/storeId/);
  });
});
