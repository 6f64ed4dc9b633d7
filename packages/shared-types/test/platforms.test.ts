import { describe, expect, it } from "vitest";
import { PLATFORM_KINDS, SHOPIFY_API_VERSION, platformConnectionSchema } from "../src/index.js";

const WOOCOMMERCE = {
  platform: "woocommerce",
  url: "https://shop.example",
  consumerKey: "ck_123",
  consumerSecret: "cs_456",
};
const SHOPIFY = {
  platform: "shopify",
  url: "https://demo.myshopify.com",
  accessToken: "shpat_abc",
  apiVersion: "2026-01",
};
const PRESTASHOP = {
  platform: "prestashop",
  url: "https://boutique.example",
  webserviceKey: "ABCDEF",
  languageId: 2,
  currencyId: 3,
};
const CONNECTIONS = { woocommerce: WOOCOMMERCE, shopify: SHOPIFY, prestashop: PRESTASHOP };

function paths(input: unknown): string[] {
  const result = platformConnectionSchema.safeParse(input);
  if (result.success) throw new Error("expected the connection to be refused");
  // Distinct fields: a field may break two of its rules at once.
  return [...new Set(result.error.issues.map((issue) => issue.path.join(".")))];
}

describe("platformConnectionSchema", () => {
  it("knows the four platforms", () => {
    expect([...PLATFORM_KINDS].sort()).toEqual(["prestashop", "sandbox", "shopify", "woocommerce"]);
  });

  it("needs nothing but its name for the sandbox", () => {
    expect(platformConnectionSchema.parse({ platform: "sandbox" })).toEqual({
      platform: "sandbox",
    });
  });

  it.each(Object.entries(CONNECTIONS))("keeps a complete %s connection", (_name, connection) => {
    expect(platformConnectionSchema.parse(connection)).toEqual(connection);
  });

  it.each([
    ["woocommerce", "url"],
    ["woocommerce", "consumerKey"],
    ["woocommerce", "consumerSecret"],
    ["shopify", "url"],
    ["shopify", "accessToken"],
    ["prestashop", "url"],
    ["prestashop", "webserviceKey"],
  ] as const)("requires the %s connection's %s", (platform, field) => {
    const incomplete: Record<string, unknown> = { ...CONNECTIONS[platform] };
    delete incomplete[field];
    expect(paths(incomplete)).toEqual([field]);
    if (field !== "url") expect(paths({ ...incomplete, [field]: "   " })).toEqual([field]);
  });

  it("trims credentials", () => {
    const parsed = platformConnectionSchema.parse({ ...WOOCOMMERCE, consumerKey: "  ck_123 " });
    expect(parsed).toMatchObject({ consumerKey: "ck_123" });
  });

  it("does not ask a platform for another platform's credentials", () => {
    expect(platformConnectionSchema.safeParse(WOOCOMMERCE).success).toBe(true);
    // A Shopify token does not make a WooCommerce connection.
    const { consumerKey: _k, consumerSecret: _s, ...bare } = WOOCOMMERCE;
    expect(paths({ ...bare, accessToken: "shpat_abc" }).sort()).toEqual([
      "consumerKey",
      "consumerSecret",
    ]);
  });

  describe.each(Object.keys(CONNECTIONS) as (keyof typeof CONNECTIONS)[])("%s URL", (platform) => {
    const connection = CONNECTIONS[platform];

    it.each([
      ["https://shop.example/", "https://shop.example"],
      ["https://shop.example///", "https://shop.example"],
      ["http://localhost:8080/", "http://localhost:8080"],
      ["https://shop.example/store/", "https://shop.example/store"],
      ["https://shop.example/store", "https://shop.example/store"],
    ])("stores %s as %s", (url, stored) => {
      expect(platformConnectionSchema.parse({ ...connection, url })).toMatchObject({ url: stored });
    });

    it.each([
      "ftp://shop.example",
      "shop.example",
      "javascript:alert(1)",
      "",
      "https://admin:secret@shop.example",
    ])("refuses %j", (url) => {
      expect(paths({ ...connection, url })).toEqual(["url"]);
    });
  });

  describe("Shopify API version", () => {
    const { apiVersion: _unused, ...withoutVersion } = SHOPIFY;

    it("defaults to the version the adapter speaks, itself a valid version", () => {
      const parsed = platformConnectionSchema.parse(withoutVersion);
      expect(parsed).toMatchObject({ apiVersion: SHOPIFY_API_VERSION });
      expect(SHOPIFY_API_VERSION).toMatch(/^\d{4}-(01|04|07|10)$/);
      expect(SHOPIFY_API_VERSION >= "2025-10").toBe(true);
    });

    it.each(["2025-10", "2026-01", "2026-04", "2026-07", "2027-10"])("accepts %s", (version) => {
      expect(platformConnectionSchema.parse({ ...SHOPIFY, apiVersion: version })).toMatchObject({
        apiVersion: version,
      });
    });

    it.each(["2025-07", "2025-04", "2024-10", "2019-01"])(
      "refuses %s, older than 2025-10",
      (version) => {
        expect(paths({ ...SHOPIFY, apiVersion: version })).toEqual(["apiVersion"]);
      },
    );

    it.each(["2026-1", "2026-02", "2026-10-01", "26-10", "unstable", "latest", ""])(
      "refuses the malformed version %j",
      (version) => {
        expect(paths({ ...SHOPIFY, apiVersion: version })).toEqual(["apiVersion"]);
      },
    );
  });

  describe("PrestaShop ids", () => {
    it("defaults the language and currency ids to 1", () => {
      const { languageId: _l, currencyId: _c, ...withoutIds } = PRESTASHOP;
      expect(platformConnectionSchema.parse(withoutIds)).toEqual({
        ...withoutIds,
        languageId: 1,
        currencyId: 1,
      });
    });

    it.each([
      ["languageId", 0],
      ["languageId", 1.5],
      ["currencyId", -1],
      ["currencyId", "2"],
    ])("refuses %s %j", (field, value) => {
      expect(paths({ ...PRESTASHOP, [field]: value })).toEqual([field]);
    });
  });

  it.each([
    ["an unknown platform", { ...WOOCOMMERCE, platform: "magento" }],
    ["a platform in capitals", { ...WOOCOMMERCE, platform: "WooCommerce" }],
    ["no platform", { url: "https://shop.example" }],
  ])("refuses %s, naming the platform", (_name, connection) => {
    expect(paths(connection)).toEqual(["platform"]);
  });
});
