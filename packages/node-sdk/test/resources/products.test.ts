import { OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, it } from "vitest";
import { LoyaltyNotFoundError, LoyaltyValidationError } from "../../src/index.js";
import { answer, client, json, problem, useMockApi } from "../support/api.js";

useMockApi();

const example = OPERATION_EXAMPLES.calculateProductPoints;

describe("products.calculatePoints", () => {
  it("GETs the calculation with the price, product, categories and domain, unauthenticated", async () => {
    const seen = answer("get", "/point/product-points/calculate", () => json(example.response));

    const result = await client().products.calculatePoints({
      price: 89.9,
      product: 301,
      categories: [12, 40],
    });

    expect(result).toEqual(example.response);
    const { url, headers } = seen[0]!;
    expect(Object.fromEntries(url.searchParams)).toEqual({
      price: "89.9",
      product: "301",
      categories: "12,40",
      domain: "https://shop.example",
    });
    expect(headers.get("authorization")).toBeNull();
    expect(headers.get("idempotency-key")).toBeNull();
  });

  it("leaves out what is not given", async () => {
    const seen = answer("get", "/point/product-points/calculate", () => json(example.response));

    await client().products.calculatePoints({ price: 10 });

    expect([...seen[0]!.url.searchParams.keys()]).toEqual(["price", "domain"]);
  });

  it("throws the validation error, with its issues", async () => {
    answer("get", "/point/product-points/calculate", () =>
      problem("validation-failed", 400, {
        errors: [{ location: "query", pointer: "/price", message: "too small", code: "too_small" }],
      }),
    );

    const error = await client()
      .products.calculatePoints({ price: 0 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).issues).toEqual([
      { location: "query", pointer: "/price", message: "too small", code: "too_small" },
    ]);
  });

  it("throws not found for an unknown domain", async () => {
    answer("get", "/point/product-points/calculate", () => problem("not-found", 404));

    await expect(client().products.calculatePoints({ price: 10 })).rejects.toBeInstanceOf(
      LoyaltyNotFoundError,
    );
  });

  it("refuses parameters it does not know", async () => {
    await expect(
      client().products.calculatePoints({ price: 10, categoryIds: [1] } as never),
    ).rejects.toThrow(/unknown option "categoryIds"/);
  });
});

const many = OPERATION_EXAMPLES.calculateManyProductPoints;

describe("products.calculateManyPoints", () => {
  it("GETs every product in one request, each as product:price:categories", async () => {
    const seen = answer("get", "/point/product-points/calculate-many", () => json(many.response));

    const result = await client().products.calculateManyPoints([
      { product: 7, price: 17.99 },
      { product: 8, price: 24.5, categories: [3, 4] },
      { price: 5 },
    ]);

    expect(result).toEqual(many.response.items);
    expect(seen).toHaveLength(1);
    expect(Object.fromEntries(seen[0]!.url.searchParams)).toEqual({
      items: "7:17.99,8:24.5:3|4,:5",
      domain: "https://shop.example",
    });
    expect(seen[0]!.headers.get("authorization")).toBeNull();
  });

  it("refuses a product with a parameter it does not know, before any request", async () => {
    const seen = answer("get", "/point/product-points/calculate-many", () => json(many.response));
    await expect(
      client().products.calculateManyPoints([{ price: 10 }, { price: 10, sku: "A" } as never]),
    ).rejects.toThrow(/unknown option "sku"/);
    expect(seen).toHaveLength(0);
  });
});

describe("products.calculateManyPoints, beyond one request", () => {
  it("asks nothing for no product", async () => {
    const seen = answer("get", "/point/product-points/calculate-many", () => json(many.response));
    expect(await client().products.calculateManyPoints([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  it("splits more than 100 products into requests of 100, the answers in the order given", async () => {
    const seen = answer("get", "/point/product-points/calculate-many", (recorded) => {
      const items = recorded.url.searchParams.get("items")!.split(",");
      return json({
        items: items.map((item) => {
          const [product, price] = item.split(":");
          return {
            product: Number(product),
            price: Number(price),
            categories: [],
            points: Number(product),
            type: "default",
            id: 1,
          };
        }),
      });
    });
    const products = Array.from({ length: 250 }, (_, index) => ({ product: index, price: 10 }));
    const result = await client().products.calculateManyPoints(products);
    expect(seen.map(({ url }) => url.searchParams.get("items")!.split(",").length)).toEqual([
      100, 100, 50,
    ]);
    expect(result.map((item) => item.points)).toEqual(products.map((item) => item.product));
  });

  it.each([
    ["a product given as text", { product: "1:5,2" as never, price: 10 }],
    ["a fractional product", { product: 1.5, price: 10 }],
    ["a category given as text", { price: 10, categories: ["3|4"] as never }],
    ["a price given as text", { price: "10" as never }],
  ])("refuses %s before any request, so that answers always line up", async (_name, product) => {
    const seen = answer("get", "/point/product-points/calculate-many", () => json(many.response));
    await expect(client().products.calculateManyPoints([{ price: 1 }, product])).rejects.toThrow(
      /product 1 needs a numeric price/,
    );
    expect(seen).toHaveLength(0);
  });
});
