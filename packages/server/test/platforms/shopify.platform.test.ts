import { Outbound } from "../../src/net/outbound.js";
import { SHOPIFY_API_VERSION, type VoucherTerms } from "@loyalty/shared-types";
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type DiscountCodeRequest,
  PlatformError,
} from "../../src/modules/platforms/platform.types.js";
import { ShopifyPlatform } from "../../src/modules/platforms/shopify.platform.js";

/** As the server builds it: private addresses refused (msw answers before any connection). */
const outbound = new Outbound();

const SHOP = "https://demo-shop.myshopify.com";
const ACCESS_TOKEN = "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";
const ENDPOINT = `${SHOP}/admin/api/2026-10/graphql.json`;

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function shopify(timeoutMs = 5_000) {
  return new ShopifyPlatform(
    { platform: "shopify", url: SHOP, accessToken: ACCESS_TOKEN, apiVersion: SHOPIFY_API_VERSION },
    { timeoutMs, outbound },
  );
}

interface Received {
  url: string;
  accessToken: string | null;
  contentType: string | null;
  query: string;
  variables: unknown;
}

/** The shop answers every request with `reply`; the returned list fills with what it received. */
function shopAnswers(reply: () => Response | Promise<Response>): Received[] {
  const received: Received[] = [];
  server.use(
    http.post(`${SHOP}/*`, async ({ request }) => {
      const body = (await request.json()) as { query: string; variables: unknown };
      received.push({
        url: request.url,
        accessToken: request.headers.get("X-Shopify-Access-Token"),
        contentType: request.headers.get("Content-Type"),
        query: body.query,
        variables: body.variables,
      });
      return reply();
    }),
  );
  return received;
}

const created = (mutation: string) =>
  HttpResponse.json({
    data: {
      [mutation]: {
        codeDiscountNode: { id: "gid://shopify/DiscountCodeNode/1057371234" },
        userErrors: [],
      },
    },
  });

const STARTS_AT = new Date("2026-11-22T10:00:00.000Z");
const EXPIRES_AT = new Date("2026-12-22T10:00:00.000Z");

function codeRequest(
  terms: Partial<VoucherTerms> & Pick<VoucherTerms, "kind">,
  overrides: Partial<DiscountCodeRequest> = {},
): DiscountCodeRequest {
  return {
    code: "LOYAL-7QK2-M9XD",
    title: "Loyalty reward",
    terms: { value: null, currency: null, minimumOrderAmount: null, validityDays: null, ...terms },
    customer: { externalId: 7421, email: "ada@example.com" },
    startsAt: STARTS_AT,
    expiresAt: null,
    ...overrides,
  };
}

/** The PlatformError a call rejects with; no message may ever carry the shop's access token. */
async function failure(call: Promise<unknown>): Promise<PlatformError> {
  const error = await call.then(
    () => expect.fail("the call resolved"),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(PlatformError);
  expect((error as Error).message).not.toContain(ACCESS_TOKEN);
  return error as PlatformError;
}

describe("ShopifyPlatform.createDiscountCode", () => {
  it("creates a percentage code for the customer, sent to the pinned API version with the token", async () => {
    const received = shopAnswers(() => created("discountCodeBasicCreate"));

    await shopify().createDiscountCode(codeRequest({ kind: "percentage", value: 15 }));

    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.url).toBe(ENDPOINT);
    expect(request!.accessToken).toBe(ACCESS_TOKEN);
    expect(request!.contentType).toMatch(/^application\/json/);
    expect(request!.query).toContain(
      "discountCodeBasicCreate(basicCodeDiscount: $basicCodeDiscount)",
    );
    expect(request!.variables).toEqual({
      basicCodeDiscount: {
        title: "Loyalty reward",
        code: "LOYAL-7QK2-M9XD",
        startsAt: "2026-11-22T10:00:00.000Z",
        usageLimit: 1,
        appliesOncePerCustomer: true,
        context: { customers: { add: ["gid://shopify/Customer/7421"] } },
        customerGets: { value: { percentage: 0.15 }, items: { all: true } },
      },
    });
  });

  it("creates a fixed amount off with a minimum order and an expiry, open to anyone for a referee", async () => {
    const received = shopAnswers(() => created("discountCodeBasicCreate"));

    await shopify().createDiscountCode(
      codeRequest(
        { kind: "fixed_amount", value: 7.5, currency: "EUR", minimumOrderAmount: 30 },
        { customer: { externalId: null, email: "friend@example.com" }, expiresAt: EXPIRES_AT },
      ),
    );

    expect(received[0]!.query).toContain("discountCodeBasicCreate(");
    expect(received[0]!.variables).toEqual({
      basicCodeDiscount: {
        title: "Loyalty reward",
        code: "LOYAL-7QK2-M9XD",
        startsAt: "2026-11-22T10:00:00.000Z",
        endsAt: "2026-12-22T10:00:00.000Z",
        usageLimit: 1,
        appliesOncePerCustomer: true,
        minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: "30" } },
        context: { all: "ALL" },
        customerGets: {
          value: { discountAmount: { amount: "7.5", appliesOnEachItem: false } },
          items: { all: true },
        },
      },
    });
  });

  it("creates free shipping to every destination through the free-shipping mutation", async () => {
    const received = shopAnswers(() => created("discountCodeFreeShippingCreate"));

    await shopify().createDiscountCode(
      codeRequest({ kind: "free_shipping", minimumOrderAmount: 49.9 }, { expiresAt: EXPIRES_AT }),
    );

    expect(received[0]!.url).toBe(ENDPOINT);
    expect(received[0]!.query).toContain(
      "discountCodeFreeShippingCreate(freeShippingCodeDiscount: $freeShippingCodeDiscount)",
    );
    expect(received[0]!.variables).toEqual({
      freeShippingCodeDiscount: {
        title: "Loyalty reward",
        code: "LOYAL-7QK2-M9XD",
        startsAt: "2026-11-22T10:00:00.000Z",
        endsAt: "2026-12-22T10:00:00.000Z",
        usageLimit: 1,
        appliesOncePerCustomer: true,
        minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: "49.9" } },
        context: { customers: { add: ["gid://shopify/Customer/7421"] } },
        destination: { all: true },
      },
    });
  });

  it("creates free shipping without minimum for anyone", async () => {
    const received = shopAnswers(() => created("discountCodeFreeShippingCreate"));

    await shopify().createDiscountCode(
      codeRequest({ kind: "free_shipping" }, { customer: { externalId: null, email: null } }),
    );

    const { variables } = received[0]!;
    expect(variables).toHaveProperty("freeShippingCodeDiscount.context", { all: "ALL" });
    expect(variables).not.toHaveProperty("freeShippingCodeDiscount.minimumRequirement");
    expect(variables).not.toHaveProperty("freeShippingCodeDiscount.endsAt");
  });

  it.each([
    ["discountCodeBasicCreate", "basicCodeDiscount", { kind: "percentage", value: 10 }],
    ["discountCodeFreeShippingCreate", "freeShippingCodeDiscount", { kind: "free_shipping" }],
  ] as const)(
    "resolves when %s says the code is taken: a retry of a code already made",
    async (mutation, argument, terms) => {
      const received = shopAnswers(() =>
        HttpResponse.json({
          data: {
            [mutation]: {
              codeDiscountNode: null,
              userErrors: [
                {
                  field: [argument, "code"],
                  code: "TAKEN",
                  message: "Code must be unique. Please try a different code.",
                },
              ],
            },
          },
        }),
      );

      await expect(shopify().createDiscountCode(codeRequest(terms))).resolves.toBeUndefined();
      expect(received).toHaveLength(1);
    },
  );

  it("rejects with Shopify's messages when it refuses the input", async () => {
    shopAnswers(() =>
      HttpResponse.json({
        data: {
          discountCodeBasicCreate: {
            codeDiscountNode: null,
            userErrors: [
              {
                field: ["basicCodeDiscount", "customerGets", "value", "percentage"],
                code: "VALUE_OUTSIDE_RANGE",
                message: "Value must be between 0.0 and 1.0",
              },
            ],
          },
        },
      }),
    );

    const error = await failure(
      shopify().createDiscountCode(codeRequest({ kind: "percentage", value: 150 })),
    );
    expect(error.reason).toBe("platform-request-rejected");
    expect(error.message).toContain("Value must be between 0.0 and 1.0");
  });
});

describe("ShopifyPlatform.discountCodeExists", () => {
  it("is true when Shopify finds a discount with the code", async () => {
    const received = shopAnswers(() =>
      HttpResponse.json({
        data: { codeDiscountNodeByCode: { id: "gid://shopify/DiscountCodeNode/1057371234" } },
      }),
    );

    await expect(shopify().discountCodeExists("LOYAL-7QK2-M9XD")).resolves.toBe(true);
    expect(received[0]!.url).toBe(ENDPOINT);
    expect(received[0]!.accessToken).toBe(ACCESS_TOKEN);
    expect(received[0]!.query).toContain("codeDiscountNodeByCode(code: $code)");
    expect(received[0]!.variables).toEqual({ code: "LOYAL-7QK2-M9XD" });
  });

  it("is false when Shopify has no such code", async () => {
    shopAnswers(() => HttpResponse.json({ data: { codeDiscountNodeByCode: null } }));

    await expect(shopify().discountCodeExists("LOYAL-NONE")).resolves.toBe(false);
  });
});

describe("ShopifyPlatform.findCustomerByEmail", () => {
  it("returns the customer's numeric id, searched by email", async () => {
    const received = shopAnswers(() =>
      HttpResponse.json({
        data: {
          customers: { nodes: [{ id: "gid://shopify/Customer/7421", email: "ada@example.com" }] },
        },
      }),
    );

    await expect(shopify().findCustomerByEmail("ada@example.com")).resolves.toEqual({
      id: "7421",
    });
    expect(received[0]!.url).toBe(ENDPOINT);
    expect(received[0]!.accessToken).toBe(ACCESS_TOKEN);
    expect(received[0]!.query).toContain("customers(first: 1, query: $query)");
    expect(received[0]!.variables).toEqual({ query: 'email:"ada@example.com"' });
  });

  it("matches the email whatever its case", async () => {
    shopAnswers(() =>
      HttpResponse.json({
        data: {
          customers: { nodes: [{ id: "gid://shopify/Customer/7421", email: "ada@example.com" }] },
        },
      }),
    );

    await expect(shopify().findCustomerByEmail("Ada@Example.com")).resolves.toEqual({
      id: "7421",
    });
  });

  it("returns null when no customer has the email", async () => {
    shopAnswers(() => HttpResponse.json({ data: { customers: { nodes: [] } } }));

    await expect(shopify().findCustomerByEmail("nobody@example.com")).resolves.toBeNull();
  });

  it("returns null when the search only finds someone else", async () => {
    shopAnswers(() =>
      HttpResponse.json({
        data: {
          customers: {
            nodes: [{ id: "gid://shopify/Customer/9", email: "ada.lovelace@example.com" }],
          },
        },
      }),
    );

    await expect(shopify().findCustomerByEmail("ada@example.com")).resolves.toBeNull();
  });

  it("escapes quotes and backslashes so the email stays one search value", async () => {
    const received = shopAnswers(() => HttpResponse.json({ data: { customers: { nodes: [] } } }));

    await shopify().findCustomerByEmail('o"bri\\en@example.com');

    expect(received[0]!.variables).toEqual({ query: 'email:"o\\"bri\\\\en@example.com"' });
  });
});

const operations = [
  [
    "createDiscountCode",
    () => shopify().createDiscountCode(codeRequest({ kind: "percentage", value: 10 })),
  ],
  ["discountCodeExists", () => shopify().discountCodeExists("LOYAL-7QK2-M9XD")],
  ["findCustomerByEmail", () => shopify().findCustomerByEmail("ada@example.com")],
] as const;

describe.each(operations)("ShopifyPlatform.%s failures", (_name, call) => {
  it.each([
    [
      401,
      "[API] Invalid API key or access token (unrecognized login or wrong password)",
      "platform-credentials-rejected",
    ],
    [
      403,
      "[API] This action requires merchant approval for write_discounts scope.",
      "platform-credentials-rejected",
    ],
    [404, "Not Found", "platform-resource-not-found"],
    [402, "Unavailable Shop", "platform-request-rejected"],
    [423, "This shop is unavailable", "platform-request-rejected"],
    [
      429,
      "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.",
      "platform-unavailable",
    ],
    [500, "Internal Server Error", "platform-unavailable"],
    [503, "Service Unavailable", "platform-unavailable"],
  ] as const)("HTTP %i (%s) is %s", async (status, said, reason) => {
    shopAnswers(() => HttpResponse.json({ errors: said }, { status }));

    const error = await failure(call());
    expect(error.reason).toBe(reason);
    expect(error.message).toContain(String(status));
  });

  it("a THROTTLED GraphQL error is platform-unavailable", async () => {
    shopAnswers(() =>
      HttpResponse.json({
        errors: [
          {
            message: "Throttled",
            extensions: {
              code: "THROTTLED",
              documentation: "https://shopify.dev/api/usage/rate-limits",
            },
          },
        ],
        extensions: {
          cost: {
            requestedQueryCost: 752,
            actualQueryCost: null,
            throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 66, restoreRate: 100 },
          },
        },
      }),
    );

    const error = await failure(call());
    expect(error.reason).toBe("platform-unavailable");
    expect(error.message).toContain("Throttled");
  });

  it("an ACCESS_DENIED GraphQL error (a missing scope) is platform-credentials-rejected", async () => {
    shopAnswers(() =>
      HttpResponse.json({
        errors: [
          {
            message:
              "Access denied for customers field. Required access: `read_customers` access scope.",
            locations: [{ line: 2, column: 3 }],
            path: ["customers"],
            extensions: {
              code: "ACCESS_DENIED",
              documentation: "https://shopify.dev/api/usage/access-scopes",
              requiredAccess: "`read_customers` access scope.",
            },
          },
        ],
        data: null,
      }),
    );

    const error = await failure(call());
    expect(error.reason).toBe("platform-credentials-rejected");
    expect(error.message).toContain("read_customers");
  });

  it("any other GraphQL error is platform-request-rejected", async () => {
    shopAnswers(() =>
      HttpResponse.json({
        errors: [
          {
            message:
              "Variable $basicCodeDiscount of type DiscountCodeBasicInput! was provided invalid value",
            extensions: { code: "INVALID_VARIABLE" },
          },
        ],
      }),
    );

    const error = await failure(call());
    expect(error.reason).toBe("platform-request-rejected");
    expect(error.message).toContain("was provided invalid value");
  });

  it("a network error is platform-unavailable", async () => {
    shopAnswers(() => HttpResponse.error());

    const error = await failure(call());
    expect(error.reason).toBe("platform-unavailable");
  });
});

describe("ShopifyPlatform timeouts", () => {
  it("gives up after timeoutMs with platform-unavailable", async () => {
    shopAnswers(async () => {
      await delay(5_000);
      return created("discountCodeBasicCreate");
    });

    const startedAt = performance.now();
    const error = await failure(
      shopify(150).createDiscountCode(codeRequest({ kind: "percentage", value: 10 })),
    );
    const elapsed = performance.now() - startedAt;

    expect(error.reason).toBe("platform-unavailable");
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1_500);
  });
});
