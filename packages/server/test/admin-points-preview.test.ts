import { randomBytes } from "node:crypto";
import {
  calculatePointsResponseSchema,
  pointsPreviewSchema,
  problemSchema,
  type PointsPreview,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";

const LATEST = { revision: "2026-08-26" };

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

/** A product as the back-office previews it and an order line buys it. */
interface Product {
  product?: number;
  categories?: number[];
  price: number;
  quantity: number;
}

let app: TestApp;
let service: AdminSession;
let s: Shop;
const rules: Record<string, number> = {};
const clubs: Record<string, number> = {};

async function create(path: string, body: unknown): Promise<number> {
  const response = await service.request("POST", `/admin/stores/${s.store.id}${path}`, body);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  service = await adminSession(app);
  s = await storeWithKey(app, `https://preview-${randomBytes(4).toString("hex")}.example`);
  // Created through the back-office, as a merchant would: each write answers once every
  // process forgot the store's rules.
  for (const [name, rule] of Object.entries({
    "Espresso machines": { kind: "product", targetId: 7, rate: 2, pointsPerItem: 5 },
    "Old promotion": { kind: "product", targetId: 8, rate: 10, active: false },
    Coffee: { kind: "category", targetId: 10, rate: 1 },
    Tea: { kind: "category", targetId: 11, rate: 0.5, pointsPerItem: 3 },
    // On one unit at 10 both give 1 point (the lower id wins); on ten units 10 and 19.
    "Mugs A": { kind: "category", targetId: 20, rate: 0.1 },
    "Mugs B": { kind: "category", targetId: 21, rate: 0.19 },
    "Everything else": { kind: "default", rate: 0.1 },
  })) {
    rules[name] = await create("/rules", { name, ...rule });
  }
  clubs["Gold"] = await create("/clubs", { name: "Gold", threshold: 500, multiplier: 1.5 });
  clubs["Silver"] = await create("/clubs", { name: "Silver", threshold: 100, multiplier: 1.2 });
});
afterAll(() => app.close());

function productQuery(product: Partial<Product>): URLSearchParams {
  const query = new URLSearchParams();
  if (product.product !== undefined) query.set("product", String(product.product));
  if (product.categories?.length) query.set("categories", product.categories.join(","));
  if (product.price !== undefined) query.set("price", String(product.price));
  return query;
}

async function preview(product: Product, shop = s): Promise<PointsPreview> {
  const query = productQuery(product);
  query.set("quantity", String(product.quantity));
  const response = await service.request(
    "GET",
    `/admin/stores/${shop.store.id}/points-preview?${query.toString()}`,
  );
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return pointsPreviewSchema.parse(await response.json());
}

async function calculate(product: Product, shop = s) {
  const query = productQuery(product);
  query.set("domain", shop.store.domain);
  const response = await fetch(`${app.baseUrl}/point/product-points/calculate?${query.toString()}`);
  expect(response.status).toBe(200);
  return calculatePointsResponseSchema.parse(await response.json());
}

async function expectProblem(response: Response, status: number, reason: string) {
  expect(response.status).toBe(status);
  const problem = problemSchema.parse(await response.json());
  expect(problem.type).toMatch(new RegExp(`/${reason}$`));
  return problem;
}

/** Registers an order through the API and waits for the worker; answers its lines' points. */
async function orderPoints(
  externalId: number,
  customer: number,
  lines: readonly (Product & { product: number })[],
): Promise<number[]> {
  const response = await fetch(`${app.baseUrl}/api/order/register`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: s.authorization, ...LATEST },
    body: JSON.stringify({
      externalId,
      customer: { externalId: customer },
      currency: "EUR",
      lines: lines.map((line, index) => ({
        lineId: index + 1,
        productId: line.product,
        categoryIds: line.categories ?? [],
        quantity: line.quantity,
        unitPrice: line.price,
      })),
    }),
  });
  expect(response.status).toBe(201);
  const snapshot = await eventually(async () => {
    const { rows } = await app.context.pool.query<{
      rule_snapshot: { lines: { lineId: string; points: number }[] } | null;
    }>(
      `SELECT rule_snapshot FROM orders
       WHERE store_id = $1 AND external_id = $2 AND status = 'processed'`,
      [s.store.id, String(externalId)],
    );
    return rows[0]?.rule_snapshot ?? undefined;
  });
  return lines.map(
    (_, index) =>
      snapshot.lines.find((line) => line.lineId === String(index + 1))?.points ?? Number.NaN,
  );
}

/** One of each: product rule, category rules (best, tie), default rule. */
const CASES: Record<string, Product & { product: number; rule: string }> = {
  product: { product: 7, categories: [10], price: 179.5, quantity: 2, rule: "Espresso machines" },
  "inactive product rule": {
    product: 8,
    categories: [10, 11],
    price: 19.99,
    quantity: 3,
    rule: "Coffee",
  },
  "fixed points per item": { product: 9, categories: [11], price: 4.5, quantity: 4, rule: "Tea" },
  "category tie on one unit": {
    product: 30,
    categories: [21, 20],
    price: 10,
    quantity: 10,
    rule: "Mugs A",
  },
  default: { product: 9, categories: [99], price: 33.33, quantity: 1, rule: "Everything else" },
};

describe("GET /admin/stores/{storeId}/points-preview", () => {
  it.each(Object.entries(CASES))(
    "answers what calculate answers for one unit: %s",
    async (_, product) => {
      const result = await preview(product);
      const unit = await calculate(product);
      expect({ points: result.points, type: result.type, id: result.id }).toEqual(unit);
      expect(result.id).toBe(rules[product.rule]);
      expect(result.ruleName).toBe(product.rule);
      expect(result.clubs.map((club) => [club.id, club.name, club.multiplier])).toEqual([
        [clubs["Silver"], "Silver", 1.2],
        [clubs["Gold"], "Gold", 1.5],
      ]);
    },
  );

  it("gives the line's points per club: floored once per line, points per item included", async () => {
    expect(await preview(CASES["product"] as Product)).toEqual({
      points: 364, // 179.5 × 2 + 5
      type: "product",
      id: rules["Espresso machines"],
      ruleName: "Espresso machines",
      linePoints: 728, // 359 × 2 + 2 × 5
      clubs: [
        { id: clubs["Silver"], name: "Silver", multiplier: 1.2, linePoints: 873 }, // 873.6
        { id: clubs["Gold"], name: "Gold", multiplier: 1.5, linePoints: 1092 },
      ],
    });
    // Tea: 4.5 × 0.5 + 3 = 5.25 a unit, 21 for four (not 4 × 5).
    expect(await preview(CASES["fixed points per item"] as Product)).toMatchObject({
      points: 5,
      linePoints: 21,
    });
  });

  it("credits an order exactly what the preview announced, in and out of clubs", async () => {
    const lines = Object.values(CASES);
    const previews = await Promise.all(lines.map((line) => preview(line)));
    const byClub = (name: string) =>
      previews.map(
        (result) => result.clubs.find((club) => club.name === name)?.linePoints ?? Number.NaN,
      );

    // A new customer: no club, the line's points.
    expect(await orderPoints(1, 100, lines)).toEqual(previews.map((result) => result.linePoints));
    // The tie on one unit does not hold on ten: the order earns Mugs B's 19, as announced.
    expect(previews[3]).toMatchObject({ points: 1, id: rules["Mugs A"], linePoints: 19 });

    // 1000 × 0.1 = 100 points: Silver for the next order.
    await orderPoints(2, 200, [{ product: 9, price: 1000, quantity: 1 }]);
    expect(await orderPoints(3, 200, lines)).toEqual(byClub("Silver"));
    // 5000 × 0.1 = 500 points: Gold.
    await orderPoints(4, 300, [{ product: 9, price: 5000, quantity: 1 }]);
    expect(await orderPoints(5, 300, lines)).toEqual(byClub("Gold"));
    // Not a coincidence of equal figures.
    const figures = [previews.map((result) => result.linePoints), byClub("Silver"), byClub("Gold")];
    expect(new Set(figures.flat()).size).toBeGreaterThan(10);
  });

  it("answers 0 without a rule, for a product without id, and for a store without rules", async () => {
    const bare = await storeWithKey(app, `https://bare-${randomBytes(4).toString("hex")}.example`);
    const club = await service.request("POST", `/admin/stores/${bare.store.id}/clubs`, {
      name: "Members",
      threshold: 0,
      multiplier: 2,
    });
    expect(club.status).toBe(201);
    const product = { product: 7, categories: [10], price: 50, quantity: 3 };
    expect(await calculate(product, bare)).toEqual({ points: 0, type: null, id: null });
    expect(await preview(product, bare)).toEqual({
      points: 0,
      type: null,
      id: null,
      ruleName: null,
      linePoints: 0,
      clubs: [{ id: expect.any(Number), name: "Members", multiplier: 2, linePoints: 0 }],
    });
    // Without a product id, the categories decide, as on a category page.
    const byCategory = { categories: [10], price: 12.5, quantity: 2 };
    expect(await preview(byCategory)).toMatchObject({
      ...(await calculate(byCategory)),
      ruleName: "Coffee",
      linePoints: 25,
    });
  });

  it("follows a rule edited in the back-office at once, as calculate does", async () => {
    const product = { product: 7, categories: [10], price: 100, quantity: 1 };
    const edit = (active: boolean) =>
      service.request("PATCH", `/admin/stores/${s.store.id}/rules/${rules["Espresso machines"]}`, {
        active,
      });
    expect((await edit(false)).status).toBe(200);
    try {
      const result = await preview(product);
      expect(result).toMatchObject({ points: 100, id: rules["Coffee"], ruleName: "Coffee" });
      expect(await calculate(product)).toEqual({
        points: result.points,
        type: result.type,
        id: result.id,
      });
    } finally {
      expect((await edit(true)).status).toBe(200);
    }
    expect(await preview(product)).toMatchObject({ points: 205, id: rules["Espresso machines"] });
  });

  it("refuses bad values with validation-failed and another store's token with forbidden", async () => {
    for (const query of [
      "",
      "price=0",
      "price=abc",
      "price=10&quantity=0",
      "price=10&quantity=10001",
      "price=10&quantity=1.5",
      "price=10&product=abc",
      "price=10&categories=a,b",
    ]) {
      await expectProblem(
        await service.request("GET", `/admin/stores/${s.store.id}/points-preview?${query}`),
        400,
        "validation-failed",
      );
    }
    const other = await storeWithKey(
      app,
      `https://other-${randomBytes(4).toString("hex")}.example`,
    );
    const otherAdmin = await adminSession(app, { storeReference: other.store.reference });
    await expectProblem(
      await otherAdmin.request("GET", `/admin/stores/${s.store.id}/points-preview?price=10`),
      403,
      "forbidden",
    );
  });
});
