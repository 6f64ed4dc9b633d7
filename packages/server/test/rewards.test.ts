import {
  claimRefusalSchema,
  claimRewardResponseSchema,
  customerHistoryResponseV2Schema,
  eventDataSchemas,
  problemSchema,
  rewardListResponseSchema,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { revalidate } from "./support/revalidate.js";
import {
  addReward,
  customerWithPoints,
  hashFor,
  pointsOf,
  storeWithKey,
  type RewardFixture,
} from "./support/fixtures.js";

const LATEST = { revision: "2026-08-26" };
const CODE_FORMAT = /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

type Store = Awaited<ReturnType<typeof storeWithKey>>;

function list(domain: string | undefined, headers: Record<string, string> = LATEST) {
  const query = domain === undefined ? "" : `?domain=${encodeURIComponent(domain)}`;
  return fetch(`${app.baseUrl}/reward/list${query}`, { headers });
}

function claim(
  s: Store,
  externalId: number,
  body: unknown,
  options: {
    headers?: Record<string, string>;
    hash?: string;
    domain?: string;
    /** Another server process on the same database. */
    server?: TestApp;
  } = {},
) {
  const query = new URLSearchParams({
    domain: options.domain ?? s.store.domain,
    hash: options.hash ?? hashFor(s.store.reference, s.key, externalId),
  });
  const { baseUrl } = options.server ?? app;
  return fetch(`${baseUrl}/reward/claim/${externalId}?${query.toString()}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(options.headers ?? LATEST) },
    body: JSON.stringify(body),
  });
}

async function count(table: string, storeId: number): Promise<number> {
  const { rows } = await app.context.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE store_id = $1`,
    [storeId],
  );
  return rows[0]?.n ?? 0;
}

/** What a refused or failed claim must leave as it was. */
async function footprint(storeId: number) {
  const { rows } = await app.context.pool.query<{ reserved: number; balance: number }>(
    `SELECT coalesce(sum(reserved_points), 0)::int AS reserved,
            coalesce(sum(balance), 0)::int AS balance
     FROM customers WHERE store_id = $1`,
    [storeId],
  );
  return {
    ...rows[0],
    ledger: await count("ledger_transactions", storeId),
    events: await count("outbox_events", storeId),
    codes: await count("sandbox_discount_codes", storeId),
    confirmed: (
      await app.context.pool.query(
        `SELECT 1 FROM reward_claims WHERE store_id = $1 AND status <> 'released'`,
        [storeId],
      )
    ).rowCount,
  };
}

describe("GET /reward/list", () => {
  let shop: Store;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    shop = await storeWithKey(app, "https://rewards.example");
    const other = await storeWithKey(app, "https://other-rewards.example");
    const { pool } = app.context;
    const add = async (name: string, reward: RewardFixture) => {
      const { rewardId, voucherId } = await addReward(pool, shop.store.id, { name, ...reward });
      ids[name] = rewardId;
      ids[`${name} voucher`] = voucherId;
    };
    await add("Ten percent", {
      triggerValue: 900,
      kind: "percentage",
      value: 10,
      validityDays: 60,
    });
    await add("Free shipping", {
      triggerValue: 300,
      kind: "free_shipping",
      minimumOrderAmount: 20,
      validityDays: null,
    });
    await add("Five euros", {
      triggerValue: 500,
      kind: "fixed_amount",
      value: 5,
      minimumOrderAmount: 30,
      usageLimit: 100,
    });
    await add("Switched off", { triggerValue: 100, active: false });
    await add("Used up", { triggerValue: 200, usageLimit: 1 });
    await addReward(pool, other.store.id, { name: "Another store's", triggerValue: 50 });
    // Its only code went to a claim: nothing is left to obtain.
    const customer = await customerWithPoints(pool, shop.store.id, 1, 0);
    await pool.query(
      `INSERT INTO reward_claims (store_id, customer_id, reward_id, voucher_version_id, points,
                                  code, status, confirmed_at)
       VALUES ($1, $2, $3, $4, 200, 'USED-UP-0001', 'confirmed', now())`,
      [shop.store.id, customer, ids["Used up"], ids["Used up voucher"]],
    );
    // A reward without any voucher version.
    await pool.query(
      `INSERT INTO rewards (store_id, name, trigger_value) VALUES ($1, 'No voucher', 10)`,
      [shop.store.id],
    );
  });

  it("lists the obtainable rewards, cheapest first, with what a storefront shows", async () => {
    const response = await list(shop.store.domain);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const rewards = rewardListResponseSchema.parse(await response.json());
    expect(rewards).toEqual([
      {
        id: ids["Free shipping"],
        name: "Free shipping",
        description: "Costs 300 points",
        imageUrl: null,
        triggerValue: 300,
        voucher: {
          version: 1,
          kind: "free_shipping",
          value: null,
          currency: null,
          minimumOrderAmount: 20,
          validityDays: null,
          usageLimit: null,
        },
      },
      {
        id: ids["Five euros"],
        name: "Five euros",
        description: "Costs 500 points",
        imageUrl: null,
        triggerValue: 500,
        voucher: {
          version: 1,
          kind: "fixed_amount",
          value: 5,
          currency: "EUR",
          minimumOrderAmount: 30,
          validityDays: 30,
          usageLimit: 100,
        },
      },
      {
        id: ids["Ten percent"],
        name: "Ten percent",
        description: "Costs 900 points",
        imageUrl: null,
        triggerValue: 900,
        voucher: {
          version: 1,
          kind: "percentage",
          value: 10,
          currency: null,
          minimumOrderAmount: null,
          validityDays: 60,
          usageLimit: null,
        },
      },
    ]);
  });

  it("is cacheable, with an ETag that answers 304, and the same body in every revision", async () => {
    const first = await list(shop.store.domain);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^W\/"/);
    const path = `/reward/list?domain=${encodeURIComponent(shop.store.domain)}`;
    expect((await revalidate(`${app.baseUrl}${path}`, etag, LATEST)).status).toBe(304);
    expect((await revalidate(`${app.baseUrl}${path}`, 'W/"another"', LATEST)).status).toBe(200);
    const legacy = await list("HTTPS://Rewards.example/", {});
    expect(legacy.headers.get("revision")).toBe("2026-01-01");
    expect(await legacy.json()).toEqual(await first.json());
  });

  it("answers not-found for an unknown or missing domain, never validation-failed", async () => {
    for (const domain of ["https://nobody.example", undefined, "short"]) {
      const response = await list(domain);
      expect(response.status).toBe(404);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const problem = problemSchema.parse(await response.json());
      expect(problem.type).toMatch(/\/not-found$/);
    }
    const legacy = await list("https://nobody.example", {});
    expect(await legacy.json()).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: "No store has this domain.",
    });
  });

  it("lists only the current version of a voucher, as soon as it is edited", async () => {
    await list(shop.store.domain); // in memory now
    const voucherId = ids["Ten percent voucher"];
    await app.context.pool.query(
      `WITH old AS (
         UPDATE voucher_versions SET superseded_at = now() WHERE id = $1 RETURNING reward_id
       )
       INSERT INTO voucher_versions (reward_id, version, kind, value, validity_days)
       SELECT reward_id, 2, 'percentage', 15, 60 FROM old`,
      [voucherId],
    );
    const edited = await eventually(async () => {
      const rewards = rewardListResponseSchema.parse(await (await list(shop.store.domain)).json());
      const reward = rewards.find((candidate) => candidate.id === ids["Ten percent"]);
      return reward?.voucher.version === 2 ? reward : undefined;
    });
    expect(edited.voucher).toMatchObject({ version: 2, kind: "percentage", value: 15 });
    const all = rewardListResponseSchema.parse(await (await list(shop.store.domain)).json());
    expect(all.filter((reward) => reward.id === ids["Ten percent"])).toHaveLength(1);
  });
});

describe("POST /reward/claim/{externalId}", () => {
  let shop: Store;
  let fiveEuros: number;
  let shipping: number;

  beforeAll(async () => {
    shop = await storeWithKey(app, "https://claims.example");
    fiveEuros = (
      await addReward(app.context.pool, shop.store.id, {
        name: "€5 off",
        triggerValue: 500,
        kind: "fixed_amount",
        value: 5,
        minimumOrderAmount: 30,
        validityDays: 30,
      })
    ).rewardId;
    shipping = (
      await addReward(app.context.pool, shop.store.id, {
        name: "Free shipping",
        triggerValue: 300,
        kind: "free_shipping",
        validityDays: null,
      })
    ).rewardId;
  });

  it("debits the points and answers 201 with a single-use code bound to the customer", async () => {
    await customerWithPoints(app.context.pool, shop.store.id, 10, 1200, "ada@example.com");
    const before = Date.now();
    const response = await claim(shop, 10, { rewardId: fiveEuros });
    expect(response.status).toBe(201);
    const body = claimRewardResponseSchema.parse(await response.json());
    expect(body).toMatchObject({
      rewardId: fiveEuros,
      pointsSpent: 500,
      balance: 700,
      voucher: { kind: "fixed_amount", value: 5, currency: "EUR", minimumOrderAmount: 30 },
    });
    expect(body.code).toMatch(CODE_FORMAT);
    const expires = Date.parse(body.expiresAt as string);
    expect(expires).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000 + 1000);

    expect(await pointsOf(app.context.pool, shop.store.id, 10)).toEqual({
      balance: 700,
      ledger: 700,
      entries: 2,
    });
    // The sandbox platform holds the code, for this customer only.
    const { rows: codes } = await app.context.pool.query(
      `SELECT code, kind, value, currency, minimum_order_amount, customer_external_id,
              customer_email, usage_limit
       FROM sandbox_discount_codes WHERE store_id = $1`,
      [shop.store.id],
    );
    expect(codes).toEqual([
      {
        code: body.code,
        kind: "fixed_amount",
        value: "5.00",
        currency: "EUR",
        minimum_order_amount: "30.00",
        customer_external_id: 10,
        customer_email: "ada@example.com",
        usage_limit: 1,
      },
    ]);
    const { rows: events } = await app.context.pool.query(
      `SELECT type, payload FROM outbox_events WHERE store_id = $1`,
      [shop.store.id],
    );
    expect(events).toEqual([
      {
        type: "REWARD_OBTAINED",
        payload: { customer: { externalId: 10 }, rewardId: fiveEuros, points: 500, balance: 700 },
      },
    ]);
    // Written by SQL, read as the shared contract says.
    expect(eventDataSchemas.REWARD_OBTAINED.parse(events[0]?.payload)).toEqual(events[0]?.payload);
    // The customer finds the code again in their history.
    const history = await fetch(
      `${app.baseUrl}/point/user-history/10?${new URLSearchParams({
        domain: shop.store.domain,
        hash: hashFor(shop.store.reference, shop.key, 10),
      }).toString()}`,
      { headers: LATEST },
    );
    const transactions = customerHistoryResponseV2Schema.parse(await history.json()).transactions;
    expect(transactions[0]).toMatchObject({
      kind: "reward_redemption",
      points: -500,
      rewardId: fiveEuros,
      voucherCode: body.code,
    });
    const { rows } = await app.context.pool.query(
      `SELECT reserved_points FROM customers WHERE store_id = $1 AND external_id = 10`,
      [shop.store.id],
    );
    expect(rows[0]).toEqual({ reserved_points: 0 });
  });

  it("refuses with 404, application/json and code null when the balance is short", async () => {
    await customerWithPoints(app.context.pool, shop.store.id, 11, 499);
    const before = await footprint(shop.store.id);
    for (const headers of [LATEST, {}]) {
      const response = await claim(shop, 11, { rewardId: fiveEuros }, { headers });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(claimRefusalSchema.parse(await response.json())).toEqual({
        code: null,
        reason: "insufficient-balance",
      });
    }
    expect(await footprint(shop.store.id)).toEqual(before);
  });

  it("refuses a reward whose voucher is inactive or missing", async () => {
    await customerWithPoints(app.context.pool, shop.store.id, 12, 5000);
    const inactive = await addReward(app.context.pool, shop.store.id, {
      triggerValue: 100,
      active: false,
    });
    const { rows } = await app.context.pool.query<{ id: number }>(
      `INSERT INTO rewards (store_id, name, trigger_value) VALUES ($1, 'Bare', 100) RETURNING id`,
      [shop.store.id],
    );
    const before = await footprint(shop.store.id);
    for (const rewardId of [inactive.rewardId, rows[0]?.id]) {
      const response = await claim(shop, 12, { rewardId });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ code: null, reason: "voucher-inactive" });
    }
    expect(await footprint(shop.store.id)).toEqual(before);
  });

  it("never issues more codes than a voucher's usage limit, even at once", async () => {
    const limited = await addReward(app.context.pool, shop.store.id, {
      triggerValue: 100,
      usageLimit: 5,
    });
    const customers = Array.from({ length: 20 }, (_, index) => 2000 + index);
    for (const id of customers) await customerWithPoints(app.context.pool, shop.store.id, id, 100);
    const responses = await Promise.all(
      customers.map((id) => claim(shop, id, { rewardId: limited.rewardId })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 404)).toHaveLength(15);
    const refusals = await Promise.all(
      responses
        .filter((response) => response.status === 404)
        .map(async (response) => claimRefusalSchema.parse(await response.json())),
    );
    expect(new Set(refusals.map((refusal) => refusal.reason))).toEqual(
      new Set(["usage-limit-reached"]),
    );
    // Used up: it leaves the list.
    await eventually(async () => {
      const rewards = rewardListResponseSchema.parse(await (await list(shop.store.domain)).json());
      return rewards.some((reward) => reward.id === limited.rewardId) ? undefined : true;
    });
  });

  it("gives exactly as many codes as the balance pays for to twenty parallel claims", async () => {
    await customerWithPoints(app.context.pool, shop.store.id, 13, 1000);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => claim(shop, 13, { rewardId: shipping })),
    );
    const bodies = await Promise.all(
      responses.map(
        async (response) => (await response.json()) as { code: string | null; reason?: string },
      ),
    );
    const codes = bodies.filter((_, index) => responses[index]?.status === 201);
    expect(codes).toHaveLength(3);
    expect(new Set(codes.map((body) => body.code)).size).toBe(3);
    expect(
      bodies.filter((body) => body.code === null && body.reason === "insufficient-balance"),
    ).toHaveLength(17);
    const points = await pointsOf(app.context.pool, shop.store.id, 13);
    expect(points).toEqual({ balance: 100, ledger: 100, entries: 4 });
    const { rows } = await app.context.pool.query(
      `SELECT min(balance_after)::int AS lowest FROM ledger_transactions t
       JOIN customers c ON c.id = t.customer_id WHERE c.store_id = $1 AND c.external_id = 13`,
      [shop.store.id],
    );
    expect(rows[0]).toEqual({ lowest: 100 });
  });

  it("settles many customers' simultaneous claims, each customer's on what is left", async () => {
    const customers = Array.from({ length: 10 }, (_, index) => 3000 + index);
    for (const id of customers) await customerWithPoints(app.context.pool, shop.store.id, id, 600);
    // Three claims of 300 each, all at once: every customer can pay for two.
    const responses = await Promise.all(
      customers.flatMap((id) => [1, 2, 3].map(() => claim(shop, id, { rewardId: shipping }))),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(20);
    expect(responses.filter((response) => response.status === 404)).toHaveLength(10);
    for (const id of customers) {
      expect(await pointsOf(app.context.pool, shop.store.id, id)).toEqual({
        balance: 0,
        ledger: 0,
        entries: 3,
      });
    }
    const { rows } = await app.context.pool.query(
      `SELECT count(*)::int AS reserved FROM reward_claims
       WHERE store_id = $1 AND status = 'reserved'`,
      [shop.store.id],
    );
    expect(rows[0]).toEqual({ reserved: 0 });
  });

  it("holds its limits when two processes claim at once: no limit passed, no overdraw", async () => {
    // Each process writes its own groups of claims: theirs meet only in the database.
    const second = await startTestApp({ database: app.database });
    try {
      const limited = await addReward(app.context.pool, shop.store.id, {
        triggerValue: 100,
        usageLimit: 5,
      });
      const customers = Array.from({ length: 20 }, (_, index) => 4000 + index);
      for (const id of customers)
        await customerWithPoints(app.context.pool, shop.store.id, id, 100);
      await customerWithPoints(app.context.pool, shop.store.id, 4100, 1000);
      const servers = [app, second];
      const [limitedClaims, ownClaims] = await Promise.all([
        Promise.all(
          customers.map((id, index) =>
            claim(shop, id, { rewardId: limited.rewardId }, { server: servers[index % 2] }),
          ),
        ),
        Promise.all(
          customers.map((_, index) =>
            claim(shop, 4100, { rewardId: shipping }, { server: servers[index % 2] }),
          ),
        ),
      ]);
      expect(limitedClaims.filter((response) => response.status === 201)).toHaveLength(5);
      expect(ownClaims.filter((response) => response.status === 201)).toHaveLength(3);
      const { rows } = await app.context.pool.query(
        `SELECT count(*)::int AS issued FROM reward_claims
         WHERE voucher_version_id = $1 AND status <> 'released'`,
        [limited.voucherId],
      );
      expect(rows[0]).toEqual({ issued: 5 });
      expect(await pointsOf(app.context.pool, shop.store.id, 4100)).toEqual({
        balance: 100,
        ledger: 100,
        entries: 4,
      });
    } finally {
      await second.close();
    }
  });

  it("answers not-found as a problem for a customer the store does not have", async () => {
    const response = await claim(shop, 999, { rewardId: fiveEuros });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(problemSchema.parse(await response.json()).type).toMatch(/\/not-found$/);
    const legacy = await claim(shop, 999, { rewardId: fiveEuros }, { headers: {} });
    expect(legacy.status).toBe(404);
    expect(((await legacy.json()) as { statusCode: number }).statusCode).toBe(404);
    expect(await count("customers", shop.store.id)).toBeGreaterThan(0);
    const { rowCount } = await app.context.pool.query(
      `SELECT 1 FROM customers WHERE store_id = $1 AND external_id = 999`,
      [shop.store.id],
    );
    expect(rowCount).toBe(0);
  });

  it("refuses bad bodies with validation-failed naming the field, and writes nothing", async () => {
    await customerWithPoints(app.context.pool, shop.store.id, 14, 5000);
    const before = await footprint(shop.store.id);
    const cases: [unknown, string][] = [
      [{}, "/rewardId"],
      [{ rewardId: "12" }, "/rewardId"],
      [{ rewardId: -1 }, "/rewardId"],
      [{ rewardId: 1.5 }, "/rewardId"],
      [{ rewardId: 987_654 }, "/rewardId"],
      [[], ""],
    ];
    for (const [body, pointer] of cases) {
      const response = await claim(shop, 14, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const problem = problemSchema.parse(await response.json());
      expect(problem.type).toMatch(/\/validation-failed$/);
      expect(problem.errors?.map((issue) => issue.pointer)).toContain(pointer);
    }
    expect(await footprint(shop.store.id)).toEqual(before);
  });

  it("answers 401 to a wrong hash, another customer's hash or an unknown domain", async () => {
    await customerWithPoints(app.context.pool, shop.store.id, 15, 5000);
    const other = await storeWithKey(app, "https://claims-other.example");
    const before = await footprint(shop.store.id);
    const attempts = [
      claim(shop, 15, { rewardId: fiveEuros }, { hash: "0".repeat(128) }),
      claim(
        shop,
        15,
        { rewardId: fiveEuros },
        { hash: hashFor(shop.store.reference, shop.key, 16) },
      ),
      claim(
        shop,
        15,
        { rewardId: fiveEuros },
        { hash: hashFor(other.store.reference, other.key, 15) },
      ),
      claim(shop, 15, { rewardId: fiveEuros }, { domain: "https://unknown.example" }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(401);
      expect(problemSchema.parse(await response.json()).type).toMatch(/\/unauthorized$/);
    }
    expect(await footprint(shop.store.id)).toEqual(before);
  });
});
