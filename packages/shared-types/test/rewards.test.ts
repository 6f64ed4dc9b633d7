import { describe, expect, it } from "vitest";
import { referralProgramSchema, voucherTermsInputSchema } from "../src/index.js";

const TERMS = { currency: null, minimumOrderAmount: null, validityDays: null };
const FIXED = { ...TERMS, kind: "fixed_amount", value: 5, currency: "EUR" };
const PERCENTAGE = { ...TERMS, kind: "percentage", value: 15 };
const FREE_SHIPPING = { ...TERMS, kind: "free_shipping", value: null };

function paths(
  schema: typeof voucherTermsInputSchema | typeof referralProgramSchema,
  input: unknown,
) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected the input to be refused");
  // Distinct fields: a field may break two of its rules at once.
  return [...new Set(result.error.issues.map((issue) => issue.path.join(".")))];
}

describe("voucherTermsInputSchema", () => {
  it.each([
    ["a fixed amount off, with its currency", FIXED],
    ["a percentage off", PERCENTAGE],
    ["a percentage of 100", { ...PERCENTAGE, value: 100 }],
    ["a fractional percentage", { ...PERCENTAGE, value: 12.5 }],
    ["free shipping, with no value", FREE_SHIPPING],
    [
      "a minimum order and a validity",
      { ...FIXED, value: 10, minimumOrderAmount: 49.9, validityDays: 30 },
    ],
  ])("accepts %s", (_name, terms) => {
    expect(voucherTermsInputSchema.parse(terms)).toEqual(terms);
  });

  it.each([
    ["a percentage over 100", { ...PERCENTAGE, value: 100.01 }, ["value"]],
    ["a percentage of 150", { ...PERCENTAGE, value: 150 }, ["value"]],
    ["a percentage of 0", { ...PERCENTAGE, value: 0 }, ["value"]],
    ["a percentage without value", { ...PERCENTAGE, value: null }, ["value"]],
    ["a fixed amount without currency", { ...FIXED, currency: null }, ["currency"]],
    ["a fixed amount of 0", { ...FIXED, value: 0 }, ["value"]],
    ["a fixed amount without value", { ...FIXED, value: null }, ["value"]],
    ["a negative fixed amount", { ...FIXED, value: -5 }, ["value"]],
    ["free shipping with a value", { ...FREE_SHIPPING, value: 5 }, ["value"]],
    ["free shipping with a value of 0", { ...FREE_SHIPPING, value: 0 }, ["value"]],
    ["a currency that is no ISO code", { ...FIXED, currency: "eur" }, ["currency"]],
    ["a negative minimum order", { ...FIXED, minimumOrderAmount: -1 }, ["minimumOrderAmount"]],
    ["a validity of 0 days", { ...FIXED, validityDays: 0 }, ["validityDays"]],
    ["a validity of half a day", { ...FIXED, validityDays: 1.5 }, ["validityDays"]],
    ["an unknown kind", { ...FIXED, kind: "gift" }, ["kind"]],
    ["a percentage with a currency", { ...PERCENTAGE, currency: "EUR" }, ["currency"]],
    ["free shipping with a currency", { ...FREE_SHIPPING, currency: "EUR" }, ["currency"]],
  ])("refuses %s, naming the field", (_name, terms, expected) => {
    expect(paths(voucherTermsInputSchema, terms)).toEqual(expected);
  });

  it("names both missing fields of a fixed amount", () => {
    expect(
      paths(voucherTermsInputSchema, { ...FIXED, value: null, currency: null }).sort(),
    ).toEqual(["currency", "value"]);
  });
});

describe("referralProgramSchema", () => {
  const program = { referrerBonus: 500, refereeVoucher: PERCENTAGE };

  it("is active, and lands on the store's home page, unless told otherwise", () => {
    expect(referralProgramSchema.parse(program)).toEqual({
      ...program,
      active: true,
      landingUrl: null,
    });
  });

  it("keeps what the back-office set", () => {
    const set = {
      ...program,
      active: false,
      landingUrl: "https://shop.example/welcome",
      refereeVoucher: FIXED,
    };
    expect(referralProgramSchema.parse(set)).toEqual(set);
  });

  it.each([
    ["a percentage over 100", { ...PERCENTAGE, value: 101 }, "refereeVoucher.value"],
    ["a fixed amount without currency", { ...FIXED, currency: null }, "refereeVoucher.currency"],
    ["free shipping with a value", { ...FREE_SHIPPING, value: 10 }, "refereeVoucher.value"],
    ["no voucher", undefined, "refereeVoucher"],
  ])("refuses a referee voucher with %s, at its path", (_name, refereeVoucher, path) => {
    expect(paths(referralProgramSchema, { ...program, refereeVoucher })).toEqual([path]);
  });

  it.each([
    ["a negative bonus", { referrerBonus: -1 }, "referrerBonus"],
    ["a fractional bonus", { referrerBonus: 2.5 }, "referrerBonus"],
    ["a bonus over a million", { referrerBonus: 1_000_001 }, "referrerBonus"],
    ["a landing page that is no web URL", { landingUrl: "javascript:alert(1)" }, "landingUrl"],
    ["a landing page on FTP", { landingUrl: "ftp://shop.example/" }, "landingUrl"],
    ["an active flag in text", { active: "yes" }, "active"],
  ])("refuses %s", (_name, change, path) => {
    expect(paths(referralProgramSchema, { ...program, ...change })).toEqual([path]);
  });
});
