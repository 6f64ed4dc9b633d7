import { describe, expect, it } from "vitest";
import { calculatePointsQuerySchema, calculatePointsResponseSchema } from "../src/index.js";

function issuePaths(input: unknown): string[] {
  const result = calculatePointsQuerySchema.safeParse(input);
  if (result.success) throw new Error("expected the query to be rejected");
  return result.error.issues.map((issue) => issue.path.join("."));
}

describe("calculate points query", () => {
  const query = { product: "501", categories: "12,40", price: "19.99", domain: "https://a.io" };

  it("reads the query's text into numbers", () => {
    expect(calculatePointsQuerySchema.parse(query)).toEqual({
      product: 501,
      categories: [12, 40],
      price: 19.99,
      domain: "https://a.io",
    });
  });

  it("accepts categories repeated in the query string", () => {
    const parsed = calculatePointsQuerySchema.parse({ ...query, categories: ["12", "40"] });
    expect(parsed.categories).toEqual([12, 40]);
  });

  it("needs only price and domain", () => {
    expect(calculatePointsQuerySchema.parse({ price: "1", domain: "https://a.io" })).toEqual({
      price: 1,
      domain: "https://a.io",
    });
  });

  it("requires a price of at least 1", () => {
    expect(issuePaths({ ...query, price: "0.99" })).toEqual(["price"]);
    expect(issuePaths({ ...query, price: "-5" })).toEqual(["price"]);
    expect(issuePaths({ ...query, price: "free" })).toEqual(["price"]);
    const { price: _unused, ...withoutPrice } = query;
    expect(issuePaths(withoutPrice)).toEqual(["price"]);
  });

  it("requires a domain of at least 6 characters", () => {
    expect(calculatePointsQuerySchema.safeParse({ ...query, domain: "a.b.io" }).success).toBe(true);
    expect(issuePaths({ ...query, domain: "a.io" })).toEqual(["domain"]);
    const { domain: _unused, ...withoutDomain } = query;
    expect(issuePaths(withoutDomain)).toEqual(["domain"]);
  });

  it("rejects categories and products that are not whole numbers", () => {
    expect(issuePaths({ ...query, categories: "12,shoes" })).toEqual(["categories.1"]);
    expect(issuePaths({ ...query, product: "abc" })).toEqual(["product"]);
  });
});

describe("calculate points response", () => {
  it("pairs a rule kind with its id, or null when no rule matches", () => {
    const parse = (value: unknown) => calculatePointsResponseSchema.safeParse(value).success;
    expect(parse({ points: 20, type: "category", id: 7 })).toBe(true);
    expect(parse({ points: 0, type: null, id: null })).toBe(true);
    expect(parse({ points: 2.5, type: "default", id: 1 })).toBe(false);
    expect(parse({ points: -1, type: "default", id: 1 })).toBe(false);
    expect(parse({ points: 1, type: "club", id: 1 })).toBe(false);
  });
});
