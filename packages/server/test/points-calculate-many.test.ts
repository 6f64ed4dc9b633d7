import { MAX_BATCH_PRODUCTS, problemSchema } from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addRule } from "./support/fixtures.js";
import { revalidate } from "./support/revalidate.js";

const PATH = "/point/product-points/calculate-many";
const SHOP = "https://many.example";

let app: TestApp;
const rule: Record<string, number> = {};

beforeAll(async () => {
  app = await startTestApp({ env: { STOREFRONT_MAX_AGE: "120" } });
  const store = await app.context.services.stores.create({
    domain: SHOP,
    reference: "many-ref-1",
  });
  const { pool } = app.context;
  rule["default"] = await addRule(pool, store.id, { kind: "default", rate: 1 });
  rule["product 100"] = await addRule(pool, store.id, { kind: "product", targetId: 100, rate: 5 });
  rule["category 20"] = await addRule(pool, store.id, { kind: "category", targetId: 20, rate: 3 });
  rule["category 40"] = await addRule(pool, store.id, {
    kind: "category",
    targetId: 40,
    rate: 0,
    pointsPerItem: 50,
  });
});

afterAll(() => app.close());

const many = (items: string, headers: Record<string, string> = {}, domain = SHOP) =>
  fetch(`${app.baseUrl}${PATH}?${new URLSearchParams({ domain, items }).toString()}`, { headers });

const one = async (query: Record<string, string>) => {
  const response = await fetch(
    `${app.baseUrl}/point/product-points/calculate?${new URLSearchParams({ domain: SHOP, ...query }).toString()}`,
  );
  return response.json();
};

describe("GET /point/product-points/calculate-many", () => {
  it("answers each product as calculate does, in the order asked, with what was asked", async () => {
    const response = await many("100:10:20,999:10:20|40,:19.99,7:100:40|20,100:10:20");
    expect(response.status).toBe(200);
    const { items } = (await response.json()) as { items: Record<string, unknown>[] };
    const productRule = {
      product: 100,
      price: 10,
      categories: [20],
      points: 50,
      type: "product",
      id: rule["product 100"],
    };
    expect(items).toEqual([
      productRule,
      {
        product: 999,
        price: 10,
        categories: [20, 40],
        points: 50,
        type: "category",
        id: rule["category 40"],
      },
      {
        product: null,
        price: 19.99,
        categories: [],
        points: 19,
        type: "default",
        id: rule["default"],
      },
      {
        product: 7,
        price: 100,
        categories: [40, 20],
        points: 300,
        type: "category",
        id: rule["category 20"],
      },
      // Asked twice, answered twice.
      productRule,
    ]);
    // Each one is calculate's own answer.
    expect(await one({ product: "999", price: "10", categories: "20,40" })).toEqual({
      points: items[1]!["points"],
      type: items[1]!["type"],
      id: items[1]!["id"],
    });
  });

  it("takes the items repeated as well as comma-separated", async () => {
    const response = await fetch(
      `${app.baseUrl}${PATH}?domain=${encodeURIComponent(SHOP)}&items=100:10&items=:5,:6`,
    );
    const { items } = (await response.json()) as { items: { points: number }[] };
    expect(items.map((item) => item.points)).toEqual([50, 5, 6]);
  });

  it("is publicly cacheable, tagged by its answer, and revalidates with 304", async () => {
    const first = await many("100:10,:5");
    expect(first.headers.get("cache-control")).toBe("public, max-age=120");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^W\/".+"$/);
    // The same answer asked differently: the same tag. Another answer: another.
    expect((await many(" 100 : 10 , : 5 ")).headers.get("etag")).toBe(etag);
    expect((await many("100:10,:6")).headers.get("etag")).not.toBe(etag);
    const url = `${app.baseUrl}${PATH}?${new URLSearchParams({ domain: SHOP, items: "100:10,:5" }).toString()}`;
    const again = await revalidate(url, etag);
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
  });

  it("answers a page asked again with the store's rules of now, not of the first time", async () => {
    // Every visitor of a collection page asks the same query: remembered, but never stale.
    const { pool } = app.context;
    const shop = "https://many-changing.example";
    const store = await app.context.services.stores.create({ domain: shop });
    const productRule = await addRule(pool, store.id, { kind: "product", targetId: 7, rate: 2 });
    const points = async () => {
      const response = await many("7:10,8:10", {}, shop);
      const { items } = (await response.json()) as { items: { points: number }[] };
      return items.map((item) => item.points);
    };
    expect(await points()).toEqual([20, 0]);
    expect(await points()).toEqual([20, 0]);
    await app.context.services.rules.update(store.id, productRule, { rate: 3 });
    await eventually(async () => ((await points())[0] === 30 ? true : undefined), 5_000);
    expect(await points()).toEqual([30, 0]);
  });

  it("serves a page of a hundred products from memory, without a query", async () => {
    const items = Array.from({ length: MAX_BATCH_PRODUCTS }, (_, i) => `${i}:${i + 1}`).join(",");
    expect((await many(items)).status).toBe(200);
    const queries = vi.spyOn(app.context.pool, "query");
    try {
      const response = await many(items);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { items: unknown[] }).items).toHaveLength(100);
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }
  });

  it.each([
    ["no item", "", "/items", "at least one product"],
    [
      "more than a hundred",
      Array.from({ length: 101 }, () => ":1").join(","),
      "/items",
      "at most 100",
    ],
    ["an item without a price", "100:10,100", "/items/1", "<product>:<price>"],
    ["an item with a field too many", "100:10:1:2", "/items/0", "<product>:<price>"],
    ["a price below 1", ":0.5", "/items/0/price", ""],
    ["a product that is no number", "x:10", "/items/0/product", ""],
    ["a category that is no number", ":10:1|y", "/items/0/categories/1", ""],
    [
      "a category past the ids the answer can give back",
      ":10:9999999999999999",
      "/items/0/categories/0",
      "",
    ],
  ])("refuses %s with validation-failed naming the item", async (_name, items, pointer, words) => {
    const response = await many(items, { revision: "2026-08-26" });
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = problemSchema.parse(await response.json());
    // Every issue points at the wrong item (a number may break two of its checks at once).
    expect(new Set(body.errors?.map((issue) => `${issue.location}${issue.pointer}`))).toEqual(
      new Set([`query${pointer}`]),
    );
    expect(body.errors).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining(words) }),
    );
  });

  it("refuses an unknown domain with not-found", async () => {
    const response = await many(":10", { revision: "2026-08-26" }, "https://nobody.example");
    expect(response.status).toBe(404);
    expect(problemSchema.parse(await response.json()).type).toBe(
      "https://loyalty.dev/problems/not-found",
    );
  });
});
