import { describe, expect, it } from "vitest";
import {
  PLATFORM_SECRET_FIELDS,
  keepsStoredCredentials,
  platformConnectionSchema,
  platformConnectionSchemaFor,
  platformConnectionWriteSchema,
  platformSettingsSchema,
} from "../src/index.js";

const STORED = {
  platform: "shopify",
  url: "https://demo.myshopify.com",
  hasCredentials: true,
} as const;
const SHOPIFY = {
  platform: "shopify",
  url: "https://demo.myshopify.com",
  accessToken: "shpat_abc",
  apiVersion: "2026-01",
} as const;

describe("platformConnectionWriteSchema", () => {
  it("has the strict schema's platforms, with only the secrets optional", () => {
    expect(
      platformConnectionWriteSchema.options.map((option) => option.shape.platform.value),
    ).toEqual(platformConnectionSchema.options.map((option) => option.shape.platform.value));
    const { accessToken: _token, ...bare } = SHOPIFY;
    expect(platformConnectionWriteSchema.parse(bare)).toEqual(bare);
    expect(platformConnectionWriteSchema.safeParse({ ...bare, url: undefined }).success).toBe(
      false,
    );
    expect(
      platformConnectionWriteSchema.safeParse({ ...bare, apiVersion: "2024-01" }).success,
    ).toBe(false);
  });
});

describe("platformConnectionSchema's secrets", () => {
  it("are named alike when left out and when blank", () => {
    const { accessToken: _token, ...bare } = SHOPIFY;
    for (const input of [bare, { ...bare, accessToken: "  " }]) {
      const issues = platformConnectionSchema.safeParse(input).error?.issues ?? [];
      expect(issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
        ["accessToken", "accessToken is required"],
      ]);
    }
  });
});

describe("platformSettingsSchema", () => {
  it("reads back every setting but the URL and the secrets", () => {
    const read = {
      shopify: platformSettingsSchema.parse(SHOPIFY),
      prestashop: platformSettingsSchema.parse({
        platform: "prestashop",
        url: "https://boutique.example",
        webserviceKey: "ABCDEF",
        languageId: 2,
        currencyId: 3,
      }),
      woocommerce: platformSettingsSchema.parse({
        platform: "woocommerce",
        url: "https://shop.example",
        consumerKey: "ck_123",
        consumerSecret: "cs_456",
      }),
    };
    expect(read).toEqual({
      shopify: { platform: "shopify", apiVersion: "2026-01" },
      prestashop: { platform: "prestashop", languageId: 2, currencyId: 3 },
      woocommerce: { platform: "woocommerce" },
    });
    for (const settings of Object.values(read)) {
      for (const field of PLATFORM_SECRET_FIELDS) expect(settings).not.toHaveProperty(field);
    }
  });
});

describe("keepsStoredCredentials", () => {
  const { accessToken: _token, ...bare } = SHOPIFY;

  it("keeps them for the stored platform and URL, the URL once normalised", () => {
    expect(keepsStoredCredentials(STORED, bare)).toBe(true);
    expect(keepsStoredCredentials(STORED, { ...bare, url: "https://demo.myshopify.com/" })).toBe(
      true,
    );
    expect(platformConnectionSchemaFor(STORED, bare)).toBe(platformConnectionWriteSchema);
  });

  it.each([
    ["another URL", STORED, { ...bare, url: "https://other.myshopify.com" }],
    ["an invalid URL", STORED, { ...bare, url: "ftp://demo.myshopify.com" }],
    ["another platform", STORED, { ...bare, platform: "woocommerce" }],
    ["no credentials stored", { ...STORED, hasCredentials: false }, bare],
    ["nothing stored", null, bare],
  ] as const)("asks for every secret with %s", (_case, stored, input) => {
    expect(keepsStoredCredentials(stored, input)).toBe(false);
    expect(platformConnectionSchemaFor(stored, input)).toBe(platformConnectionSchema);
  });
});
