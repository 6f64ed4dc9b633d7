import { problemSchema } from "@loyalty/shared-types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LISTENER_NAME, type StoreChangeListener } from "../src/db/store-changes.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { revalidate } from "./support/revalidate.js";

const PATH = "/point/product-points/calculate";
const SHOP = "https://shop.example";
const BARE = "https://bare.example";
const CATEGORIES_ONLY = "https://categories.example";
/** Listener settings of these tests: a dropped connection comes back within a fraction of a second. */
const QUICK_RETRY = { minRetryDelayMs: 20, maxRetryDelayMs: 100 };

/** Another server process on the same database, with its own pool, listener and cache. */
function startInstance(options: Record<string, number>) {
  return startTestApp({ database: app.database, storeChanges: options });
}

let app: TestApp;
let listener: StoreChangeListener;
/** A connection of its own, as the back-office or an operator's psql would be. */
let admin: pg.Client;
const rule: Record<string, number> = {};

async function insertRule(
  domain: string,
  name: string,
  kind: "product" | "category" | "default",
  targetId: number | null,
  rate: number,
  pointsPerItem = 0,
): Promise<void> {
  const { rows } = await admin.query<{ id: number }>(
    `INSERT INTO attribution_rules (store_id, kind, target_id, name, rate, points_per_item)
     SELECT id, $2, $3, $4, $5, $6 FROM stores WHERE domain = $1 RETURNING id`,
    [domain, kind, targetId, name, rate, pointsPerItem],
  );
  rule[name] = Number(rows[0]?.id);
}

beforeAll(async () => {
  app = await startTestApp({ env: { STOREFRONT_MAX_AGE: "120" }, storeChanges: QUICK_RETRY });
  listener = app.storeChanges;
  admin = new pg.Client({ connectionString: app.database.url });
  await admin.connect();

  const { stores } = app.context.services;
  await stores.create({ domain: SHOP, reference: "shop-ref-1" });
  await stores.create({ domain: BARE, reference: "bare-ref-1" });
  await stores.create({ domain: CATEGORIES_ONLY, reference: "cat-ref-1" });
  await insertRule(SHOP, "default", "default", null, 1);
  await insertRule(SHOP, "product 100", "product", 100, 5);
  await insertRule(SHOP, "category 10", "category", 10, 2);
  // Categories 20 and 30 give the same points: the rule of 20, created first, has the lower id.
  await insertRule(SHOP, "category 20", "category", 20, 3);
  await insertRule(SHOP, "category 30", "category", 30, 3);
  // Fixed points per item: the most generous at a low price, not at a high one.
  await insertRule(SHOP, "category 40", "category", 40, 0, 50);
  await insertRule(SHOP, "product 200", "product", 200, 0.29);
  await insertRule(SHOP, "product 300", "product", 300, 1.5, 2);
  await insertRule(CATEGORIES_ONLY, "only 10", "category", 10, 1);
});

afterAll(async () => {
  await admin.end();
  await app.close();
});

type Query = Record<string, string | string[]>;

function search(query: Query | string): string {
  if (typeof query === "string") return query;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of [value].flat()) params.append(name, item);
  }
  return params.toString();
}

const calculate = (query: Query | string, headers: Record<string, string> = {}, baseUrl?: string) =>
  fetch(`${baseUrl ?? app.baseUrl}${PATH}?${search(query)}`, { headers });

async function points(query: Query | string, baseUrl?: string): Promise<unknown> {
  const response = await calculate(query, {}, baseUrl);
  expect(response.status).toBe(200);
  return response.json();
}

describe("GET /point/product-points/calculate: which rule applies", () => {
  it("applies the product's rule before any category rule", async () => {
    expect(await points({ domain: SHOP, price: "10", product: "100", categories: "20" })).toEqual({
      points: 50,
      type: "product",
      id: rule["product 100"],
    });
  });

  it("applies the category rule giving the most points", async () => {
    expect(
      await points({ domain: SHOP, price: "10", product: "999", categories: "10,20" }),
    ).toEqual({ points: 30, type: "category", id: rule["category 20"] });
    // 50 fixed points beat 3 × 10, but not 3 × 100.
    expect(await points({ domain: SHOP, price: "10", categories: "20,40" })).toEqual({
      points: 50,
      type: "category",
      id: rule["category 40"],
    });
    expect(await points({ domain: SHOP, price: "100", categories: "40,20" })).toEqual({
      points: 300,
      type: "category",
      id: rule["category 20"],
    });
  });

  it("breaks a tie between categories with the lowest rule id, whatever their order", async () => {
    for (const categories of ["20,30", "30,20"]) {
      expect(await points({ domain: SHOP, price: "10", categories })).toEqual({
        points: 30,
        type: "category",
        id: rule["category 20"],
      });
    }
  });

  it("falls back on the default rule", async () => {
    const expected = { points: 10, type: "default", id: rule["default"] };
    expect(await points({ domain: SHOP, price: "10" })).toEqual(expected);
    expect(await points({ domain: SHOP, price: "10", product: "5", categories: "7,8" })).toEqual(
      expected,
    );
  });

  it("answers type and id null, 0 points, when no rule matches", async () => {
    const none = { points: 0, type: null, id: null };
    expect(await points({ domain: BARE, price: "10", product: "100" })).toEqual(none);
    expect(await points({ domain: CATEGORIES_ONLY, price: "10", categories: "11" })).toEqual(none);
    expect(await points({ domain: CATEGORIES_ONLY, price: "10", categories: "10" })).toEqual({
      points: 10,
      type: "category",
      id: rule["only 10"],
    });
  });

  it("floors the points of one unit, in exact decimals", async () => {
    // 0.29 × 100 is 28.999… in floating point: it must give 29.
    expect(await points({ domain: SHOP, price: "100", product: "200" })).toMatchObject({
      points: 29,
    });
    expect(await points({ domain: SHOP, price: "19.99", product: "200" })).toMatchObject({
      points: 5,
    });
    // 1.5 × 19.99 + 2 fixed points = 31.985.
    expect(await points({ domain: SHOP, price: "19.99", product: "300" })).toMatchObject({
      points: 31,
    });
    expect(await points({ domain: SHOP, price: "1" })).toMatchObject({ points: 1 });
  });

  it("normalises the domain's case and trailing slash", async () => {
    expect(await points({ domain: "HTTPS://Shop.Example/", price: "10" })).toMatchObject({
      type: "default",
    });
  });
});

describe("GET /point/product-points/calculate: the forms of categories", () => {
  const best = () => ({ points: 30, type: "category", id: rule["category 20"] });
  it.each([
    ["a comma-separated list", "categories=10,20"],
    ["a repeated key", "categories=10&categories=20"],
    ["empty brackets", "categories%5B%5D=10&categories%5B%5D=20"],
    ["raw empty brackets", "categories[]=10&categories[]=20"],
    ["indexed brackets", "categories[0]=10&categories[1]=20"],
    ["a mix of forms", "categories=10&categories[]=20"],
    ["a single category", "categories=20"],
    ["brackets beside a __proto__ key", "__proto__[]=1&categories[]=10&categories[]=20"],
    ["spaces and empty items", "categories=%2010%20,,20"],
  ])("reads %s", async (_form, categories) => {
    expect(await points(`domain=${encodeURIComponent(SHOP)}&price=10&${categories}`)).toEqual(
      best(),
    );
  });

  it("validates bracketed values like the others", async () => {
    const response = await calculate(`domain=${SHOP}&price=10&categories[]=ten`, {
      revision: "2026-08-26",
    });
    expect(response.status).toBe(400);
    expect(problemSchema.parse(await response.json()).errors).toEqual([
      expect.objectContaining({ location: "query", pointer: "/categories/0" }),
    ]);
  });
});

describe("GET /point/product-points/calculate: refusals", () => {
  const valid = { domain: SHOP, price: "10" };
  it.each([
    ["no price", { domain: SHOP }, "/price"],
    ["a price below 1", { ...valid, price: "0.99" }, "/price"],
    ["a price of 0", { ...valid, price: "0" }, "/price"],
    ["a negative price", { ...valid, price: "-5" }, "/price"],
    ["a price that is no number", { ...valid, price: "ten" }, "/price"],
    ["a price given twice", { ...valid, price: ["10", "12"] }, "/price"],
    ["no domain", { price: "10" }, "/domain"],
    ["a domain of 5 characters", { ...valid, domain: "a.com" }, "/domain"],
    ["a domain with a NUL", { ...valid, domain: "https://sh\u0000op.example" }, "/domain"],
    ["a product that is no number", { ...valid, product: "abc" }, "/product"],
    ["a fractional product", { ...valid, product: "1.5" }, "/product"],
    ["a category that is no number", { ...valid, categories: "10,x" }, "/categories/1"],
  ])("refuses %s with validation-failed naming the field", async (_name, query, pointer) => {
    const legacy = await calculate(query);
    expect(legacy.status).toBe(400);
    expect(legacy.headers.get("cache-control")).toBe("no-store");
    expect(await legacy.json()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: expect.stringContaining(`query${pointer}`),
    });

    const problem = await calculate(query, { revision: "2026-08-26" });
    expect(problem.status).toBe(400);
    expect(problem.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = problemSchema.parse(await problem.json());
    expect(body.type).toBe("https://loyalty.dev/problems/validation-failed");
    expect(body.errors).toEqual([expect.objectContaining({ location: "query", pointer })]);
  });

  it("refuses an unknown domain with not-found, in both formats, marked no-store", async () => {
    const query = { domain: "https://unknown.example", price: "10" };
    const legacy = await calculate(query);
    expect(legacy.status).toBe(404);
    expect(legacy.headers.get("cache-control")).toBe("no-store");
    expect(await legacy.json()).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: expect.any(String),
    });
    const problem = await calculate(query, { revision: "2026-08-26" });
    expect(problem.status).toBe(404);
    expect(problemSchema.parse(await problem.json()).type).toBe(
      "https://loyalty.dev/problems/not-found",
    );
  });

  it("answers 500 when the database fails, marked no-store, and tries again on the next request", async () => {
    const domain = "https://flaky.example";
    await admin.query(`INSERT INTO stores (reference, domain) VALUES ('flaky', $1)`, [domain]);
    const queries = vi
      .spyOn(app.context.pool, "query")
      .mockImplementationOnce(() => Promise.reject(new Error("connection refused")));
    try {
      const failed = await calculate({ domain, price: "10" }, { revision: "2026-08-26" });
      expect(failed.status).toBe(500);
      expect(failed.headers.get("cache-control")).toBe("no-store");
      expect(problemSchema.parse(await failed.json()).type).toBe(
        "https://loyalty.dev/problems/internal-server-error",
      );
    } finally {
      queries.mockRestore();
    }
    expect(await points({ domain, price: "10" })).toEqual({ points: 0, type: null, id: null });
  });

  it("knows a domain as soon as its store is created, though it was unknown before", async () => {
    const domain = "https://newcomer.example";
    expect((await calculate({ domain, price: "10" })).status).toBe(404);
    expect((await calculate({ domain, price: "10" })).status).toBe(404);
    await admin.query(`INSERT INTO stores (reference, domain) VALUES ('newcomer', $1)`, [domain]);
    await vi.waitFor(
      async () => expect((await calculate({ domain, price: "10" })).status).toBe(200),
      {
        timeout: 2_000,
        interval: 20,
      },
    );
  });
});

describe("GET /point/product-points/calculate: HTTP caching", () => {
  const query = { domain: SHOP, price: "10", categories: "20" };

  it("is publicly cacheable for the configured time, with an ETag", async () => {
    const response = await calculate(query);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=120");
    expect(response.headers.get("etag")).toMatch(/^W\/".+"$/);
    expect(response.headers.get("vary")).toMatch(/\brevision\b/);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  const revalidateCalculation = (ifNoneMatch: string) =>
    revalidate(`${app.baseUrl}${PATH}?${search(query)}`, ifNoneMatch);

  it("answers 304 without a body to a matching If-None-Match", async () => {
    const etag = (await calculate(query)).headers.get("etag") as string;
    for (const ifNoneMatch of [etag, `W/"other", ${etag}`, etag.slice(2), "*"]) {
      const response = await revalidateCalculation(ifNoneMatch);
      expect(response.status).toBe(304);
      expect(response.body).toBe("");
      expect(response.headers["etag"]).toBe(etag);
      expect(response.headers["cache-control"]).toBe("public, max-age=120");
    }
    const changed = await revalidateCalculation('W/"other"');
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.body)).toMatchObject({ type: "category" });
  });

  it("tags the answer, not the request: equal answers share an etag, others differ", async () => {
    const etagOf = async (q: Query) => (await calculate(q)).headers.get("etag");
    const twenty = await etagOf(query);
    expect(await etagOf({ ...query, domain: "HTTPS://SHOP.EXAMPLE", product: "999" })).toBe(twenty);
    expect(await etagOf({ ...query, price: "11" })).not.toBe(twenty);
    expect(await etagOf({ ...query, categories: "10" })).not.toBe(twenty);
  });

  it("answers HEAD with the headers only", async () => {
    const response = await fetch(`${app.baseUrl}${PATH}?${search(query)}`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^W\//);
    expect(await response.text()).toBe("");
  });

  it("serves a cache hit without any database query", async () => {
    const unknown = { ...query, domain: "https://unknown.example" };
    await calculate(query);
    await calculate(unknown);
    const queries = vi.spyOn(app.context.pool, "query");
    try {
      for (let i = 0; i < 5; i++) expect((await calculate(query)).status).toBe(200);
      expect((await calculate(unknown)).status).toBe(404);
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }
  });
});

describe("GET /point/product-points/calculate: kept in step with the database", () => {
  let second: Awaited<ReturnType<typeof startInstance>>;
  beforeAll(async () => {
    // Slow to reconnect on purpose: the last test keeps it disconnected.
    second = await startInstance({ minRetryDelayMs: 60_000 });
  });
  afterAll(() => second.close());

  const query = { domain: SHOP, price: "10", categories: "10" };
  const eventually = (expected: Record<string, unknown>, baseUrl?: string) =>
    vi.waitFor(async () => expect(await points(query, baseUrl)).toMatchObject(expected), {
      timeout: 2_000,
      interval: 20,
    });

  it("reflects a rule changed by plain SQL in every process, without a restart", async () => {
    expect(await points(query)).toMatchObject({ points: 20 });
    expect(await points(query, second.baseUrl)).toMatchObject({ points: 20 });

    await admin.query(`UPDATE attribution_rules SET rate = 4 WHERE id = $1`, [rule["category 10"]]);
    await eventually({ points: 40 });
    await eventually({ points: 40 }, second.baseUrl);

    await admin.query(`UPDATE attribution_rules SET active = false WHERE id = $1`, [
      rule["category 10"],
    ]);
    await eventually({ points: 10, type: "default" });
    await eventually({ points: 10, type: "default" }, second.baseUrl);
  });

  it("reads the database while notifications are interrupted, and caches again once they resume", async () => {
    await admin.query(`UPDATE attribution_rules SET active = true, rate = 2 WHERE id = $1`, [
      rule["category 10"],
    ]);
    await eventually({ points: 20 });
    await eventually({ points: 20 }, second.baseUrl);

    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = $1 AND datname = current_database()`,
      [LISTENER_NAME],
    );
    await vi.waitFor(() => expect(second.storeChanges.listening).toBe(false));
    // Changes now go unheard by the second process: each answer must come from the database.
    for (const rate of [5, 6, 7]) {
      await admin.query(`UPDATE attribution_rules SET rate = $2 WHERE id = $1`, [
        rule["category 10"],
        rate,
      ]);
      expect(await points(query, second.baseUrl)).toMatchObject({ points: rate * 10 });
    }

    // The first process reconnected by itself, and hears the changes again.
    await vi.waitFor(() => expect(listener.listening).toBe(true));
    expect(app.logs.join("")).toContain("store change notifications unavailable");
    await eventually({ points: 70 });
    await admin.query(`UPDATE attribution_rules SET rate = 8 WHERE id = $1`, [rule["category 10"]]);
    await eventually({ points: 80 });
  });
});
