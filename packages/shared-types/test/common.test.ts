import { describe, expect, it } from "vitest";
import {
  colorSchema,
  currencySchema,
  customerHashSchema,
  externalIdTextSchema,
  languageSchema,
  normalizeDomain,
  numberArrayQuerySchema,
  numberQuerySchema,
  optionalUrlSchema,
  storeDomainSchema,
  storeReferenceSchema,
} from "../src/index.js";

describe("storeDomainSchema", () => {
  it.each([
    ["https://Shop.Example/", "https://shop.example"],
    ["  https://shop.example  ", "https://shop.example"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["https://SHOP.example:8443//", "https://shop.example:8443"],
  ])("stores %j as %j", (input, stored) => {
    expect(storeDomainSchema.parse(input)).toBe(stored);
  });

  it.each([
    "shop.example",
    "https://shop.example/fr",
    "https://shop.example?ref=1",
    "https://shop.example#top",
    "ftp://shop.example",
    "https://user:secret@shop.example",
    "",
  ])("rejects %j, which is not an origin", (input) => {
    const result = storeDomainSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain("origin");
  });

  it("normalises look-ups the same way as declarations", () => {
    expect(normalizeDomain(" HTTPS://Shop.example/ ")).toBe("https://shop.example");
  });
});

describe("numberArrayQuerySchema", () => {
  it.each([
    ["1,2", [1, 2]],
    [
      ["1", "2"],
      [1, 2],
    ],
    [
      ["1,2", "3"],
      [1, 2, 3],
    ],
    [" 4 , 5 ,", [4, 5]],
    ["7", [7]],
  ])("reads %j as %j", (input, expected) => {
    expect(numberArrayQuerySchema.parse(input)).toEqual(expected);
  });

  it.each(["1,a", "-1", "1.5", ["2", "x"], "12345678901234567"])("rejects %j", (input) => {
    expect(numberArrayQuerySchema.safeParse(input).success).toBe(false);
  });
});

describe("text query values", () => {
  it("reads a price, trimmed, and rejects anything else", () => {
    expect(numberQuerySchema.parse(" 12.5 ")).toBe(12.5);
    expect(numberQuerySchema.parse("-3")).toBe(-3);
    for (const input of ["12,5", "1e3", "", "abc", ".5"]) {
      expect(numberQuerySchema.safeParse(input).success, input).toBe(false);
    }
  });

  it("reads an externalId written in a path or query", () => {
    expect(externalIdTextSchema.parse("3081")).toBe(3081);
    for (const input of ["-1", "1.0", " 1", "12345678901234567", ""]) {
      expect(externalIdTextSchema.safeParse(input).success, input).toBe(false);
    }
  });
});

describe("field formats", () => {
  it("accepts a 128-character lower-case hex customer hash only", () => {
    expect(customerHashSchema.safeParse("a1".repeat(64)).success).toBe(true);
    expect(customerHashSchema.safeParse("A1".repeat(64)).success).toBe(false);
    expect(customerHashSchema.safeParse("a1".repeat(63)).success).toBe(false);
  });

  it("accepts ISO 4217 currencies in capitals and language tags such as fr-CA", () => {
    expect(currencySchema.safeParse("EUR").success).toBe(true);
    expect(currencySchema.safeParse("eur").success).toBe(false);
    expect(languageSchema.safeParse("en").success).toBe(true);
    expect(languageSchema.safeParse("fr-CA").success).toBe(true);
    expect(languageSchema.safeParse("fr_CA").success).toBe(false);
    expect(languageSchema.safeParse("FR").success).toBe(false);
  });

  it.each(["", "#abc", "#abcd", "#1a73e8", "#1a73e8cc", "rgb(26 115 232)", "hsla(0, 0%, 0%, .5)"])(
    "accepts the colour %j",
    (value) => {
      expect(colorSchema.safeParse(value).success).toBe(true);
    },
  );

  it.each(["red", "#12345", "#1a73e8c", "rgb(var(--x))", "url(x)"])("rejects %j", (value) => {
    expect(colorSchema.safeParse(value).success).toBe(false);
  });

  it("accepts http(s) URLs or an empty string", () => {
    expect(optionalUrlSchema.safeParse("").success).toBe(true);
    expect(optionalUrlSchema.safeParse("https://shop.example/a?b=1").success).toBe(true);
    expect(optionalUrlSchema.safeParse("javascript:alert(1)").success).toBe(false);
    expect(optionalUrlSchema.safeParse("/relative").success).toBe(false);
  });

  it("accepts store references of 3 to 64 characters starting with a letter or digit", () => {
    expect(storeReferenceSchema.safeParse("shop_01-fr").success).toBe(true);
    expect(storeReferenceSchema.safeParse("ab").success).toBe(false);
    expect(storeReferenceSchema.safeParse("-shop").success).toBe(false);
    expect(storeReferenceSchema.safeParse("s".repeat(65)).success).toBe(false);
  });
});
