import { OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { delay, HttpResponse } from "msw";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  LoyaltyApiError,
  LoyaltyConnectionError,
  LoyaltyPlatformError,
  LoyaltyRateLimitError,
  LoyaltyTimeoutError,
  LoyaltyValidationError,
} from "../src/index.js";
import { retryDelay } from "../src/request.js";
import { answer, client, CREDENTIALS, json, problem, useMockApi } from "./support/api.js";

// Node's own fetch, captured before the mock API replaces it: for a real refused connection.
const realFetch = globalThis.fetch;

useMockApi();

const order = OPERATION_EXAMPLES.registerOrder.request["2026-06-18"];
const registered = OPERATION_EXAMPLES.registerOrder.response["2026-06-18"];
const rewards = OPERATION_EXAMPLES.listRewards.response;

/** Runs fake time forward in small steps until `promise` settles. */
async function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  let result: PromiseSettledResult<T> | undefined;
  promise.then(
    (value) => (result = { status: "fulfilled", value }),
    (reason: unknown) => (result = { status: "rejected", reason }),
  );
  for (let step = 0; step < 2_000 && result === undefined; step++) {
    await vi.advanceTimersByTimeAsync(50);
  }
  if (!result) throw new Error("the call did not settle");
  return result;
}

function rejection(result: PromiseSettledResult<unknown>): unknown {
  if (result.status !== "rejected") throw new Error("the call did not fail");
  return result.reason;
}

describe("retryDelay", () => {
  it("doubles from 0.5 s up to 8 s, with jitter between half and all of it", () => {
    expect([0, 1, 2, 3, 4, 5].map((retry) => retryDelay(retry, undefined, () => 1))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(retryDelay(0, undefined, () => 0)).toBe(250);
    expect(retryDelay(3, undefined, () => 0)).toBe(2000);
  });

  it("never retries sooner than Retry-After, and gives up beyond a minute", () => {
    expect(retryDelay(0, 3, () => 1)).toBe(3000);
    expect(retryDelay(4, 1, () => 1)).toBe(8000);
    expect(retryDelay(0, 60, () => 0)).toBe(60_000);
    expect(retryDelay(0, 61, () => 0)).toBeUndefined();
  });
});

describe("retries", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    // The full delay, without jitter: 500 ms, then 1 s.
    vi.spyOn(Math, "random").mockReturnValue(1);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it.each([429, 502, 503])("retries %i with exponential backoff, then succeeds", async (status) => {
    const times: number[] = [];
    const seen = answer("post", "/api/order/register", (_, attempt) => {
      times.push(Date.now());
      return attempt < 2 ? problem("internal-server-error", status) : json(registered, 201);
    });

    const result = await settle(client().orders.register(order));

    expect(result).toEqual({ status: "fulfilled", value: registered });
    expect(seen).toHaveLength(3);
    const [first, second, third] = times as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(500);
    expect(second - first).toBeLessThan(600);
    expect(third - second).toBeGreaterThanOrEqual(1000);
    expect(third - second).toBeLessThan(1100);
  });

  it("retries connection errors", async () => {
    const seen = answer("get", "/reward/list", (_, attempt) =>
      attempt === 0 ? HttpResponse.error() : json(rewards),
    );

    const result = await settle(client().rewards.list());

    expect(result).toEqual({ status: "fulfilled", value: rewards });
    expect(seen).toHaveLength(2);
  });

  it("stops after maxRetries and throws the last error", async () => {
    const seen = answer("get", "/reward/list", () => problem("internal-server-error", 503));

    const error = rejection(await settle(client({ maxRetries: 3 }).rewards.list()));

    expect(seen).toHaveLength(4);
    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect((error as LoyaltyApiError).status).toBe(503);
  });

  it("throws the connection error once the retries are spent", async () => {
    const seen = answer("get", "/reward/list", () => HttpResponse.error());

    const error = rejection(await settle(client().rewards.list()));

    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(LoyaltyConnectionError);
    expect((error as LoyaltyConnectionError).status).toBeUndefined();
  });

  it("lets a call set its own maxRetries", async () => {
    const seen = answer("get", "/reward/list", () => problem("internal-server-error", 503));

    rejection(await settle(client().rewards.list({ maxRetries: 0 })));

    expect(seen).toHaveLength(1);
  });

  it("ends with the platform error when the platform stays unavailable (502)", async () => {
    const seen = answer("post", "/reward/claim/1001", () => problem("platform-unavailable", 502));

    const error = rejection(await settle(client().rewards.claim(1001, { rewardId: 12 })));

    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(LoyaltyPlatformError);
  });

  it.each([
    [400, "validation-failed"],
    [401, "unauthorized"],
    [404, "not-found"],
    [422, "platform-request-rejected"],
    [500, "internal-server-error"],
  ])("does not retry %i", async (status, reason) => {
    const seen = answer("post", "/api/order/register", () => problem(reason, status));

    rejection(await settle(client().orders.register(order)));

    expect(seen).toHaveLength(1);
  });

  it("retries a 500 that says when to come back (a request with its key still running)", async () => {
    const seen = answer("post", "/api/order/register", (_, attempt) =>
      attempt === 0
        ? problem("internal-server-error", 500, {}, { "retry-after": "1" })
        : json(registered, 201),
    );

    const result = await settle(client().orders.register(order));

    expect(result.status).toBe("fulfilled");
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers.get("idempotency-key")).toBe(seen[0]!.headers.get("idempotency-key"));
  });

  it("waits as long as Retry-After says", async () => {
    const times: number[] = [];
    answer("get", "/reward/list", (_, attempt) => {
      times.push(Date.now());
      return attempt === 0
        ? problem("rate-limited", 429, {}, { "retry-after": "3" })
        : json(rewards);
    });

    await settle(client().rewards.list());

    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(3000);
    expect(times[1]! - times[0]!).toBeLessThan(3100);
  });

  it("does not wait for a Retry-After over a minute: the rate limit error says how long", async () => {
    const seen = answer("get", "/reward/list", () =>
      json({ statusCode: 429, error: "Too Many Requests", message: "slow down" }, 429, {
        "retry-after": "120",
      }),
    );

    const error = rejection(await settle(client().rewards.list()));

    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(LoyaltyRateLimitError);
    expect((error as LoyaltyRateLimitError).retryAfter).toBe(120);
  });

  it("stops retrying when the caller aborts", async () => {
    const controller = new AbortController();
    const seen = answer("get", "/reward/list", () => {
      controller.abort(new Error("shutting down"));
      return problem("internal-server-error", 503);
    });

    const error = rejection(await settle(client().rewards.list({ signal: controller.signal })));

    expect(seen).toHaveLength(1);
    expect(error).toEqual(new Error("shutting down"));
  });
});

describe("idempotency keys", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends one key per POST call, the same on every retry", async () => {
    const seen = answer("post", "/api/order/register", (_, attempt) =>
      attempt === 0
        ? HttpResponse.error()
        : attempt === 1
          ? problem("x", 503)
          : json(registered, 201),
    );

    await settle(client().orders.register(order));
    await settle(client().orders.register(order));

    const keys = seen.map((r) => r.headers.get("idempotency-key"));
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it("uses the caller's key when given", async () => {
    const seen = answer("post", "/api/order/refund", () => json({}, 201));

    await settle(
      client().orders.refund(OPERATION_EXAMPLES.refundOrder.request["2026-06-18"], {
        idempotencyKey: "refund-5001-CN-2026-0042",
      }),
    );

    expect(seen[0]!.headers.get("idempotency-key")).toBe("refund-5001-CN-2026-0042");
  });

  it("sends none on GET", async () => {
    const seen = answer("get", "/reward/list", () => json(rewards));

    await settle(client().rewards.list());

    expect(seen[0]!.headers.has("idempotency-key")).toBe(false);
  });
});

describe("timeouts", () => {
  it("throws a timeout error when no answer comes within the timeout", async () => {
    const seen = answer("get", "/reward/list", async () => {
      await delay(1_000);
      return json(rewards);
    });

    const started = Date.now();
    const error = await client({ timeout: 50, maxRetries: 0 })
      .rewards.list()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyTimeoutError);
    expect(error).toBeInstanceOf(LoyaltyConnectionError);
    expect((error as Error).message).toMatch(/no answer within 50 ms/);
    expect(Date.now() - started).toBeLessThan(900);
    expect(seen).toHaveLength(1);
  });

  it("retries a timed-out attempt, and a call may set its own timeout", async () => {
    const seen = answer("get", "/reward/list", async (_, attempt) => {
      if (attempt === 0) await delay(1_000);
      return json(rewards);
    });

    const result = await client({ timeout: 10_000 }).rewards.list({ timeout: 50 });

    expect(result).toEqual(rewards);
    expect(seen).toHaveLength(2);
  });
});

describe("responses", () => {
  it("refuses a success without a JSON body", async () => {
    answer(
      "get",
      "/reward/list",
      () => new HttpResponse("<html>maintenance</html>", { status: 200 }),
    );

    const error = await client()
      .rewards.list()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect((error as LoyaltyApiError).body).toBe("<html>maintenance</html>");
  });

  it("keeps a proxy's non-JSON error page as the error's body", async () => {
    answer("get", "/reward/list", () => new HttpResponse("Bad gateway", { status: 504 }));

    const error = await client()
      .rewards.list()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect(error).not.toBeInstanceOf(LoyaltyPlatformError);
    expect((error as LoyaltyApiError).status).toBe(504);
    expect((error as LoyaltyApiError).body).toBe("Bad gateway");
  });

  it("reports a connection refused with the API's origin", async () => {
    const error = await client({ baseUrl: "http://127.0.0.1:1", maxRetries: 0, fetch: realFetch })
      .rewards.list()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyConnectionError);
    expect((error as Error).message).toMatch(
      /could not reach the Loyalty API at http:\/\/127\.0\.0\.1:1/,
    );
  });
});

describe("an injected fetch", () => {
  it("is the one every attempt goes through", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(() =>
      Promise.resolve(
        new Response(JSON.stringify(rewards), {
          status: 200,
          headers: { "content-type": "application/json" },
        }),
      ),
    );

    const result = await client({ fetch }).rewards.list();

    expect(result).toEqual(rewards);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toEqual(
      new URL(`${CREDENTIALS.baseUrl}/reward/list?domain=https%3A%2F%2Fshop.example`),
    );
    expect(init?.signal).toBeInstanceOf(AbortSignal);
  });
});

describe("deprecated revisions", () => {
  it("logs Deprecation and Sunset once per revision", async () => {
    answer("get", "/reward/list", (request) =>
      json(rewards, 200, {
        revision: request.headers.get("revision")!,
        deprecation: "Fri, 01 Jan 2027 00:00:00 GMT",
        sunset: "Sat, 01 Jan 2028 00:00:00 GMT",
      }),
    );
    const logger = vi.fn();
    const loyalty = client({ revision: "2026-01-01", logger });

    await loyalty.rewards.list();
    await loyalty.rewards.list();
    await loyalty.rewards.list({ revision: "2026-06-18" });

    expect(logger).toHaveBeenCalledTimes(2);
    expect(logger.mock.calls[0]![0]).toBe(
      "Loyalty API revision 2026-01-01 is deprecated (since Fri, 01 Jan 2027 00:00:00 GMT) " +
        "and will be retired on Sat, 01 Jan 2028 00:00:00 GMT. Migrate to a newer revision " +
        '(this SDK is written for 2026-08-26): see "Revisions" in the @loyalty/node-sdk README.',
    );
    expect(logger.mock.calls[1]![0]).toMatch(/^Loyalty API revision 2026-06-18 is deprecated/);
  });

  it("warns on the console by default", async () => {
    answer("get", "/reward/list", () => json(rewards, 200, { deprecation: "@1798761600" }));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);

    await client().rewards.list();

    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });

  it("says nothing on a current revision", async () => {
    answer("get", "/reward/list", () => json(rewards));
    const logger = vi.fn();

    await client({ logger }).rewards.list();

    expect(logger).not.toHaveBeenCalled();
  });
});

describe("request options", () => {
  it("refuses an unknown one", async () => {
    await expect(client().rewards.list({ retries: 1 } as never)).rejects.toThrow(
      'GET /reward/list: unknown option "retries". Known options: revision, timeout, maxRetries, idempotencyKey, signal.',
    );
  });

  it("refuses a revision that does not exist", async () => {
    await expect(client().rewards.list({ revision: "2025-01-01" } as never)).rejects.toThrow(
      /revision must be one of 2026-01-01, 2026-06-18, 2026-08-26/,
    );
  });

  it("sends the validation error of a bad revision header as it comes", async () => {
    answer("get", "/reward/list", () => problem("unknown-api-revision", 400));

    const error = await client()
      .rewards.list()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).reason).toBe("unknown-api-revision");
  });
});
