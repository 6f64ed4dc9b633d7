import { inspect } from "node:util";
import { describe, expect, expectTypeOf, it } from "vitest";
import { API_REVISION, LoyaltyClient, webhooks, type ApiRevision } from "../src/index.js";
import { answer, client, CREDENTIALS, json, useMockApi } from "./support/api.js";

useMockApi();

describe("new LoyaltyClient", () => {
  it("pins the SDK's revision unless told otherwise", () => {
    const loyalty = new LoyaltyClient(CREDENTIALS);

    expect(loyalty.revision).toBe(API_REVISION);
    expectTypeOf(loyalty.revision).toEqualTypeOf<"2026-08-26">();
    expectTypeOf(
      new LoyaltyClient({ ...CREDENTIALS, revision: "2026-01-01" }).revision,
    ).toEqualTypeOf<"2026-01-01">();
  });

  it("sends its revision on every call", async () => {
    const seen = answer("get", "/reward/list", () => json([]));

    await client({ revision: "2026-06-18" }).rewards.list();

    expect(seen[0]!.headers.get("revision")).toBe("2026-06-18");
  });

  it("keeps a path prefix of baseUrl and drops its trailing slash", async () => {
    const seen = answer("get", "/api/v2/reward/list", () => json([]));
    const loyalty = client({ baseUrl: `${CREDENTIALS.baseUrl}/api/v2/` });

    await loyalty.rewards.list();

    expect(loyalty.baseUrl).toBe(`${CREDENTIALS.baseUrl}/api/v2`);
    expect(seen).toHaveLength(1);
  });

  it("refuses an unknown option, naming the known ones", () => {
    expect(() => new LoyaltyClient({ ...CREDENTIALS, retries: 3 } as never)).toThrow(
      'LoyaltyClient: unknown option "retries". Known options: apiKey, storeReference, domain, ' +
        "baseUrl, revision, timeout, maxRetries, fetch, logger.",
    );
  });

  it("suggests the option a misspelt one stands for", () => {
    expect(() => new LoyaltyClient({ ...CREDENTIALS, apikey: "x" } as never)).toThrow(
      /unknown option "apikey" \(did you mean "apiKey"\?\)/,
    );
  });

  it.each(["apiKey", "storeReference", "domain", "baseUrl"] as const)("requires %s", (name) => {
    expect(() => new LoyaltyClient({ ...CREDENTIALS, [name]: "" })).toThrow(
      new RegExp(`LoyaltyClient: ${name} is required`),
    );
    const { [name]: _, ...rest } = CREDENTIALS;
    expect(() => new LoyaltyClient(rest as never)).toThrow(/is required/);
  });

  it.each([
    [
      { baseUrl: "loyalty.example.com" },
      /baseUrl must be a URL such as https:\/\/loyalty.example.com/,
    ],
    [{ baseUrl: "ftp://loyalty.example.com" }, /baseUrl must be a URL/],
    [{ domain: "shop.example" }, /domain must be a URL such as https:\/\/shop.example/],
    [{ revision: "2026-08-27" }, /revision must be one of 2026-01-01, 2026-06-18, 2026-08-26/],
    [{ timeout: 0 }, /timeout must be a positive number/],
    [{ timeout: Number.POSITIVE_INFINITY }, /timeout must be a positive number/],
    [{ maxRetries: -1 }, /maxRetries must be a whole number/],
    [{ maxRetries: 1.5 }, /maxRetries must be a whole number/],
    [{ fetch: "fetch" }, /fetch must be a function/],
    [{ logger: console }, /logger must be a function/],
  ])("refuses %o", (options, message) => {
    expect(() => new LoyaltyClient({ ...CREDENTIALS, ...options } as never)).toThrow(message);
  });

  it("refuses to be built without options", () => {
    expect(() => new LoyaltyClient(undefined as never)).toThrow(/options are required/);
  });

  it("never shows the API key or the store reference", () => {
    const loyalty = new LoyaltyClient(CREDENTIALS);
    const shown = `${inspect(loyalty, { depth: 5 })} ${JSON.stringify(loyalty)}`;

    expect(shown).not.toContain(CREDENTIALS.apiKey);
    expect(shown).not.toContain(CREDENTIALS.storeReference);
  });

  it("offers webhook verification", () => {
    expect(new LoyaltyClient(CREDENTIALS).webhooks).toBe(webhooks);
  });

  it("types a revision only known at run time as the union of the shapes", () => {
    const revision = process.env.LOYALTY_REVISION as ApiRevision | undefined;
    const loyalty = new LoyaltyClient({ ...CREDENTIALS, revision });

    expectTypeOf(loyalty.revision).toEqualTypeOf<ApiRevision>();
  });
});

describe("customerHash and widgetAttributes", () => {
  it("hashes with the client's reference and key", () => {
    const loyalty = new LoyaltyClient(CREDENTIALS);

    expect(loyalty.customerHash(1001)).toMatch(/^[0-9a-f]{128}$/);
    expect(loyalty.customerHash(1001)).not.toBe(
      new LoyaltyClient({ ...CREDENTIALS, apiKey: "lk_other" }).customerHash(1001),
    );
  });

  it("gives a logged-in customer's widget attributes, never the secrets", () => {
    const loyalty = new LoyaltyClient(CREDENTIALS);

    const attributes = loyalty.widgetAttributes(1001);

    expect(attributes).toEqual({
      domain: "https://shop.example",
      "api-base": "https://loyalty.test",
      "customer-id": "1001",
      "customer-hash": loyalty.customerHash(1001),
    });
    const text = JSON.stringify(attributes);
    expect(text).not.toContain(CREDENTIALS.apiKey);
    expect(text).not.toContain(CREDENTIALS.storeReference);
  });

  it("gives a visitor's attributes without a customer", () => {
    const loyalty = new LoyaltyClient(CREDENTIALS);

    expect(loyalty.widgetAttributes()).toEqual({
      domain: "https://shop.example",
      "api-base": "https://loyalty.test",
    });
    expect(loyalty.widgetAttributes(null)).toEqual(loyalty.widgetAttributes());
  });

  it("uses the API's public URL when browsers reach it elsewhere", () => {
    const loyalty = client({ baseUrl: "http://loyalty.internal:3000" });

    expect(
      loyalty.widgetAttributes(7, { apiBase: "https://loyalty.example.com" })["api-base"],
    ).toBe("https://loyalty.example.com");
  });
});
