import { Outbound } from "../../src/net/outbound.js";
import { createHmac } from "node:crypto";
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type DiscountCodeRequest,
  type PlatformFailureReason,
  PlatformError,
} from "../../src/modules/platforms/platform.types.js";
import { WooCommercePlatform } from "../../src/modules/platforms/woocommerce.platform.js";

/** As the server builds it: private addresses refused (msw answers before any connection). */
const outbound = new Outbound();

const KEY = "ck_4f2a9c0d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f";
const SECRET = "cs_9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d";
const BASIC = `Basic ${Buffer.from(`${KEY}:${SECRET}`).toString("base64")}`;
const SECURE = "https://woo.example";
// Plain HTTP, and WordPress installed in a folder: the signed URL keeps the folder.
const PLAIN = "http://shop.example/store";

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function woo(url = SECURE, options: { timeoutMs?: number; secret?: string } = {}) {
  return new WooCommercePlatform(
    { platform: "woocommerce", url, consumerKey: KEY, consumerSecret: options.secret ?? SECRET },
    { timeoutMs: options.timeoutMs ?? 2_000, outbound },
  );
}

interface Received {
  method: string;
  url: URL;
  /** The query string as sent, before any decoding. */
  rawSearch: string;
  headers: Headers;
  body: unknown;
}

/** Answers `method url` with `answer`, recording every request the platform receives. */
function platform(
  method: "get" | "post",
  url: string,
  answer: (received: Received) => Response | Promise<Response>,
): Received[] {
  const received: Received[] = [];
  server.use(
    http[method](url, async ({ request }) => {
      const text = await request.text();
      const entry: Received = {
        method: request.method,
        url: new URL(request.url),
        rawSearch: request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "",
        headers: request.headers,
        body: text === "" ? undefined : JSON.parse(text),
      };
      received.push(entry);
      return answer(entry);
    }),
  );
  return received;
}

const created = () => HttpResponse.json({ id: 719, code: "k7qx-m3rt-9whz" }, { status: 201 });

function claim(overrides: Partial<DiscountCodeRequest> = {}): DiscountCodeRequest {
  return {
    code: "K7QX-M3RT-9WHZ",
    title: "Loyalty reward: 10% off",
    terms: {
      kind: "percentage",
      value: 10,
      currency: null,
      minimumOrderAmount: null,
      validityDays: 30,
    },
    customer: { externalId: 42, email: "ann@example.com" },
    startsAt: new Date("2026-11-22T10:00:00.000Z"),
    expiresAt: new Date("2026-12-22T10:00:00.750Z"),
    ...overrides,
  };
}

/** The PlatformError a call rejects with, after checking it gives no credential away. */
async function failure(call: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PlatformError);
  const platformError = error as PlatformError;
  const said = `${platformError.message} ${String((platformError.cause as Error | undefined)?.message)}`;
  expect(said).not.toContain(SECRET);
  expect(said).not.toContain(BASIC.slice("Basic ".length));
  return platformError;
}

/** PHP's rawurlencode, which WooCommerce encodes the signed parameters with. */
const rawurlencode = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * The signature WooCommerce expects, computed the way WC_REST_Authentication does: parameters
 * sorted by name, each "name=value" of rawurlencoded parts encoded again, joined with %26.
 */
function wooSignature(method: string, url: URL, secret: string): string {
  const parameters = [...url.searchParams.entries()]
    .filter(([name]) => name !== "oauth_signature")
    .sort(([a], [b]) => (a === b ? 0 : a < b ? -1 : 1));
  const query = parameters
    .map(([name, value]) => rawurlencode(`${rawurlencode(name)}=${rawurlencode(value)}`))
    .join("%26");
  const baseString = `${method}&${rawurlencode(`${url.origin}${url.pathname}`)}&${query}`;
  return createHmac("sha256", `${secret}&`).update(baseString).digest("base64");
}

/** Answers as WooCommerce does: 401 unless the OAuth signature is the one the secret makes. */
const verifyingOAuth = (ok: () => Response) => (received: Received) =>
  received.url.searchParams.get("oauth_signature") ===
  wooSignature(received.method, received.url, SECRET)
    ? ok()
    : HttpResponse.json(
        {
          code: "woocommerce_rest_authentication_error",
          message: "Invalid signature - provided signature does not match.",
          data: { status: 401 },
        },
        { status: 401 },
      );

describe("creating a discount code", () => {
  it("posts a percentage coupon for the customer's email, with Basic auth over HTTPS", async () => {
    const received = platform("post", `${SECURE}/wp-json/wc/v3/coupons`, created);

    await woo().createDiscountCode(claim());

    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.method).toBe("POST");
    expect(request?.url.pathname).toBe("/wp-json/wc/v3/coupons");
    expect(request?.rawSearch).toBe("");
    expect(request?.headers.get("authorization")).toBe(BASIC);
    expect(request?.headers.get("accept")).toBe("application/json");
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(request?.body).toEqual({
      code: "K7QX-M3RT-9WHZ",
      description: "Loyalty reward: 10% off",
      discount_type: "percent",
      amount: "10",
      individual_use: true,
      usage_limit: 1,
      usage_limit_per_user: 1,
      email_restrictions: ["ann@example.com"],
      // Whole seconds with "Z": WooCommerce reads the offset instead of assuming the shop's zone.
      date_expires: "2026-12-22T10:00:00Z",
      date_expires_gmt: "2026-12-22T10:00:00Z",
    });
  });

  it("posts a fixed amount with a minimum order, unrestricted and without expiry for a referee", async () => {
    const received = platform("post", `${SECURE}/wp-json/wc/v3/coupons`, created);

    await woo().createDiscountCode(
      claim({
        title: "Welcome: €7.50 off",
        terms: {
          kind: "fixed_amount",
          value: 7.5,
          currency: "EUR",
          minimumOrderAmount: 50,
          validityDays: null,
        },
        customer: { externalId: null, email: null },
        expiresAt: null,
      }),
    );

    expect(received[0]?.body).toEqual({
      code: "K7QX-M3RT-9WHZ",
      description: "Welcome: €7.50 off",
      discount_type: "fixed_cart",
      amount: "7.5",
      minimum_amount: "50",
      individual_use: true,
      usage_limit: 1,
      usage_limit_per_user: 1,
    });
  });

  it("posts free shipping as a zero fixed_cart coupon with free_shipping", async () => {
    const received = platform("post", `${SECURE}/wp-json/wc/v3/coupons`, created);

    await woo().createDiscountCode(
      claim({
        title: "Loyalty reward: free shipping",
        terms: {
          kind: "free_shipping",
          value: null,
          currency: null,
          minimumOrderAmount: 30,
          validityDays: 14,
        },
        expiresAt: new Date("2026-12-06T23:59:59.000Z"),
      }),
    );

    expect(received[0]?.body).toEqual({
      code: "K7QX-M3RT-9WHZ",
      description: "Loyalty reward: free shipping",
      discount_type: "fixed_cart",
      amount: "0",
      free_shipping: true,
      minimum_amount: "30",
      individual_use: true,
      usage_limit: 1,
      usage_limit_per_user: 1,
      email_restrictions: ["ann@example.com"],
      date_expires: "2026-12-06T23:59:59Z",
      date_expires_gmt: "2026-12-06T23:59:59Z",
    });
  });

  it("resolves when WooCommerce already has the code (a retry after a lost answer)", async () => {
    const received = platform("post", `${SECURE}/wp-json/wc/v3/coupons`, () =>
      HttpResponse.json(
        {
          code: "woocommerce_rest_coupon_code_already_exists",
          message: "The coupon code already exists",
          data: { status: 400 },
        },
        { status: 400 },
      ),
    );

    await expect(woo().createDiscountCode(claim())).resolves.toBeUndefined();
    expect(received).toHaveLength(1);
  });
});

describe("checking that a code exists", () => {
  it("finds the code WooCommerce stored in lower case", async () => {
    const received = platform("get", `${SECURE}/wp-json/wc/v3/coupons`, ({ url }) =>
      HttpResponse.json(
        url.searchParams.get("code")?.toLowerCase() === "k7qx-m3rt-9whz"
          ? [{ id: 719, code: "k7qx-m3rt-9whz", amount: "10.00" }]
          : [],
      ),
    );

    await expect(woo().discountCodeExists("K7QX-M3RT-9WHZ")).resolves.toBe(true);
    expect(received[0]?.method).toBe("GET");
    expect(received[0]?.url.pathname).toBe("/wp-json/wc/v3/coupons");
    expect(received[0]?.url.searchParams.get("code")).toBe("K7QX-M3RT-9WHZ");
    expect(received[0]?.headers.get("authorization")).toBe(BASIC);
    expect(received[0]?.headers.get("accept")).toBe("application/json");
  });

  it("answers false when WooCommerce has no such code", async () => {
    platform("get", `${SECURE}/wp-json/wc/v3/coupons`, () => HttpResponse.json([]));
    await expect(woo().discountCodeExists("K7QX-M3RT-9WHZ")).resolves.toBe(false);
  });

  it("answers false when the coupon listed is another one", async () => {
    platform("get", `${SECURE}/wp-json/wc/v3/coupons`, () =>
      HttpResponse.json([{ id: 3, code: "summer-sale" }]),
    );
    await expect(woo().discountCodeExists("K7QX-M3RT-9WHZ")).resolves.toBe(false);
  });

  it("does not take a page served with 200 for an empty list", async () => {
    platform("get", `${SECURE}/wp-json/wc/v3/coupons`, () =>
      HttpResponse.html("<html><body>Just a moment...</body></html>"),
    );
    const error = await failure(woo().discountCodeExists("K7QX-M3RT-9WHZ"));
    expect(error.reason).toBe("platform-unavailable");
  });
});

describe("finding a customer by email", () => {
  it("returns the first customer's id, the email sent URL-encoded, all roles searched", async () => {
    const received = platform("get", `${SECURE}/wp-json/wc/v3/customers`, () =>
      HttpResponse.json([{ id: 25, email: "ann+loyal@example.com", role: "customer" }]),
    );

    await expect(woo().findCustomerByEmail("ann+loyal@example.com")).resolves.toEqual({
      id: "25",
    });
    expect(received[0]?.method).toBe("GET");
    expect(received[0]?.url.pathname).toBe("/wp-json/wc/v3/customers");
    // A raw "+" would reach PHP as a space and match nobody.
    expect(received[0]?.rawSearch).toContain("email=ann%2Bloyal%40example.com");
    expect(received[0]?.url.searchParams.get("email")).toBe("ann+loyal@example.com");
    expect(received[0]?.url.searchParams.get("role")).toBe("all");
    expect(received[0]?.headers.get("authorization")).toBe(BASIC);
  });

  it("returns null when no customer has the email", async () => {
    platform("get", `${SECURE}/wp-json/wc/v3/customers`, () => HttpResponse.json([]));
    await expect(woo().findCustomerByEmail("nobody@example.com")).resolves.toBeNull();
  });
});

describe("OAuth 1.0a over plain HTTP", () => {
  it("signs the query with HMAC-SHA256 and never sends the secret", async () => {
    const received = platform(
      "get",
      `${PLAIN}/wp-json/wc/v3/customers`,
      verifyingOAuth(() => HttpResponse.json([{ id: 25 }])),
    );
    const before = Math.floor(Date.now() / 1000);

    await expect(woo(PLAIN).findCustomerByEmail("ann+loyal@example.com")).resolves.toEqual({
      id: "25",
    });

    const request = received[0];
    expect(request?.headers.get("authorization")).toBeNull();
    expect(request?.url.pathname).toBe("/store/wp-json/wc/v3/customers");
    expect(request?.url.href).not.toContain(SECRET);
    const query = request?.url.searchParams;
    expect(query?.get("email")).toBe("ann+loyal@example.com");
    expect(query?.get("role")).toBe("all");
    expect(query?.get("oauth_consumer_key")).toBe(KEY);
    expect(query?.get("oauth_signature_method")).toBe("HMAC-SHA256");
    expect(query?.get("oauth_nonce")).toMatch(/^[0-9a-zA-Z]{32}$/);
    expect(query?.has("oauth_version")).toBe(false);
    const timestamp = Number(query?.get("oauth_timestamp"));
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));

    // The signature base string written out by hand: the "+" and "@" of the email are encoded
    // twice, the URL keeps the WordPress folder, the parameters are sorted by name.
    const baseString =
      "GET&http%3A%2F%2Fshop.example%2Fstore%2Fwp-json%2Fwc%2Fv3%2Fcustomers&" +
      "email%3Dann%252Bloyal%2540example.com" +
      `%26oauth_consumer_key%3D${KEY}` +
      `%26oauth_nonce%3D${query?.get("oauth_nonce")}` +
      "%26oauth_signature_method%3DHMAC-SHA256" +
      `%26oauth_timestamp%3D${timestamp}` +
      "%26role%3Dall";
    expect(query?.get("oauth_signature")).toBe(
      createHmac("sha256", `${SECRET}&`).update(baseString).digest("base64"),
    );
  });

  it("signs a POST without its body, which is sent as JSON", async () => {
    const received = platform("post", `${PLAIN}/wp-json/wc/v3/coupons`, verifyingOAuth(created));

    await woo(PLAIN).createDiscountCode(claim());

    const request = received[0];
    expect(request?.headers.get("authorization")).toBeNull();
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect([...(request?.url.searchParams.keys() ?? [])].sort()).toEqual([
      "oauth_consumer_key",
      "oauth_nonce",
      "oauth_signature",
      "oauth_signature_method",
      "oauth_timestamp",
    ]);
    expect(request?.body).toMatchObject({ code: "K7QX-M3RT-9WHZ", discount_type: "percent" });
  });

  it("uses a fresh nonce for every request, as WooCommerce refuses a reused one", async () => {
    const received = platform(
      "get",
      `${PLAIN}/wp-json/wc/v3/coupons`,
      verifyingOAuth(() => HttpResponse.json([])),
    );

    await woo(PLAIN).discountCodeExists("K7QX-M3RT-9WHZ");
    await woo(PLAIN).discountCodeExists("K7QX-M3RT-9WHZ");

    const nonces = received.map(({ url }) => url.searchParams.get("oauth_nonce"));
    expect(nonces).toHaveLength(2);
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it("reports a signature WooCommerce refuses as rejected credentials", async () => {
    platform(
      "get",
      `${PLAIN}/wp-json/wc/v3/coupons`,
      verifyingOAuth(() => HttpResponse.json([])),
    );

    const error = await failure(
      woo(PLAIN, { secret: "cs_not_the_right_one" }).discountCodeExists("K7QX-M3RT-9WHZ"),
    );
    expect(error.reason).toBe("platform-credentials-rejected");
    expect(error.message).not.toContain("cs_not_the_right_one");
  });
});

describe("failures, as the reasons of the spec", () => {
  const wooError = (status: number, code: string, message: string) =>
    HttpResponse.json({ code, message, data: { status } }, { status });

  const answers: [string, () => Response, PlatformFailureReason][] = [
    [
      "401 woocommerce_rest_authentication_error",
      () => wooError(401, "woocommerce_rest_authentication_error", "Consumer secret is invalid."),
      "platform-credentials-rejected",
    ],
    [
      "401 woocommerce_rest_authentication_error (read-only key)",
      () =>
        wooError(
          401,
          "woocommerce_rest_authentication_error",
          "The API key provided does not have write permissions.",
        ),
      "platform-credentials-rejected",
    ],
    [
      "403 woocommerce_rest_cannot_create",
      () =>
        wooError(
          403,
          "woocommerce_rest_cannot_create",
          "Sorry, you are not allowed to create resources.",
        ),
      "platform-credentials-rejected",
    ],
    [
      "404 rest_no_route",
      () =>
        wooError(404, "rest_no_route", "No route was found matching the URL and request method."),
      "platform-resource-not-found",
    ],
    [
      "400 woocommerce_rest_invalid_coupon",
      () => wooError(400, "woocommerce_rest_invalid_coupon", "Invalid discount amount"),
      "platform-request-rejected",
    ],
    [
      "400 rest_invalid_param",
      () => wooError(400, "rest_invalid_param", "Invalid parameter(s): email_restrictions"),
      "platform-request-rejected",
    ],
    [
      "429 from a rate limiter",
      () => new HttpResponse("Too Many Requests", { status: 429 }),
      "platform-unavailable",
    ],
    [
      "500 critical error",
      () =>
        wooError(500, "internal_server_error", "There has been a critical error on this website."),
      "platform-unavailable",
    ],
    [
      "503 maintenance page",
      () =>
        HttpResponse.html("<h1>Briefly unavailable for scheduled maintenance.</h1>", {
          status: 503,
        }),
      "platform-unavailable",
    ],
  ];

  it.each(answers)("creating a code, %s", async (_label, answer, reason) => {
    platform("post", `${SECURE}/wp-json/wc/v3/coupons`, answer);
    const error = await failure(woo().createDiscountCode(claim()));
    expect(error.reason).toBe(reason);
  });

  it.each(answers)("checking a code, %s", async (_label, answer, reason) => {
    platform("get", `${SECURE}/wp-json/wc/v3/coupons`, answer);
    const error = await failure(woo().discountCodeExists("K7QX-M3RT-9WHZ"));
    expect(error.reason).toBe(reason);
  });

  it.each(answers)("finding a customer, %s", async (_label, answer, reason) => {
    platform("get", `${SECURE}/wp-json/wc/v3/customers`, answer);
    const error = await failure(woo().findCustomerByEmail("ann@example.com"));
    expect(error.reason).toBe(reason);
  });

  it("keeps what WooCommerce said in the message, for the log", async () => {
    platform("post", `${SECURE}/wp-json/wc/v3/coupons`, () =>
      wooError(400, "woocommerce_rest_invalid_coupon", "Invalid discount amount"),
    );
    const error = await failure(woo().createDiscountCode(claim()));
    expect(error.message).toContain("HTTP 400");
    expect(error.message).toContain("Invalid discount amount");
  });

  it("reports a network error as platform-unavailable", async () => {
    platform("post", `${SECURE}/wp-json/wc/v3/coupons`, () => HttpResponse.error());
    platform("get", `${SECURE}/wp-json/wc/v3/coupons`, () => HttpResponse.error());
    platform("get", `${SECURE}/wp-json/wc/v3/customers`, () => HttpResponse.error());

    for (const call of [
      () => woo().createDiscountCode(claim()),
      () => woo().discountCodeExists("K7QX-M3RT-9WHZ"),
      () => woo().findCustomerByEmail("ann@example.com"),
    ]) {
      expect((await failure(call())).reason).toBe("platform-unavailable");
    }
  });

  it("gives up after the timeout, as platform-unavailable", async () => {
    const slow = async () => {
      await delay(2_000);
      return created();
    };
    platform("post", `${SECURE}/wp-json/wc/v3/coupons`, slow);
    platform("get", `${PLAIN}/wp-json/wc/v3/customers`, slow);

    for (const call of [
      () => woo(SECURE, { timeoutMs: 150 }).createDiscountCode(claim()),
      () => woo(PLAIN, { timeoutMs: 150 }).findCustomerByEmail("ann@example.com"),
    ]) {
      const started = performance.now();
      const error = await failure(call());
      const elapsed = performance.now() - started;
      expect(error.reason).toBe("platform-unavailable");
      expect(error.message).toContain("150 ms");
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(1_000);
    }
  });
});
