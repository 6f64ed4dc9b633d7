import { randomBytes } from "node:crypto";
import {
  registerOrderResponseV1Schema,
  registerOrderResponseV2Schema,
  refundOrderResponseV2Schema,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addClub, addRule, pointsOf, storeWithKey } from "./support/fixtures.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ workers: true });
});
afterAll(() => app.close());

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

/** A store of its own for each test, with a default rule of 1 point per unit of currency. */
async function shop(): Promise<Shop & { defaultRule: number }> {
  const created = await storeWithKey(app, `https://shop-${randomBytes(4).toString("hex")}.example`);
  const defaultRule = await addRule(app.context.pool, created.store.id, {
    kind: "default",
    rate: 1,
  });
  return { ...created, defaultRule };
}

function post(path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const V2 = { revision: "2026-06-18" };
const LATEST = { revision: "2026-08-26" };

function order(externalId: number, overrides: Record<string, unknown> = {}) {
  return {
    externalId,
    externalReference: `#${externalId}`,
    customer: { externalId: 42, email: "Ada@Example.com", firstName: "Ada" },
    currency: "EUR",
    lines: [
      { lineId: 1, productId: 100, categoryIds: [10], quantity: 2, unitPrice: 10, totalPaid: 20 },
    ],
    ...overrides,
  };
}

async function processed(storeId: number, externalId: string) {
  return eventually(async () => {
    const { rows } = await app.context.pool.query<{ status: string; points_earned: number }>(
      `SELECT status, points_earned FROM orders WHERE store_id = $1 AND external_id = $2`,
      [storeId, externalId],
    );
    return rows[0]?.status === "processed" ? rows[0] : undefined;
  });
}

async function refundsSettled(storeId: number) {
  await eventually(async () => {
    const { rows } = await app.context.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM refunds WHERE store_id = $1 AND processing_status = 'pending'`,
      [storeId],
    );
    return rows[0]?.n === 0 ? true : undefined;
  });
}

async function events(storeId: number) {
  const { rows } = await app.context.pool.query<{ type: string; payload: Record<string, unknown> }>(
    `SELECT type, payload FROM outbox_events WHERE store_id = $1 ORDER BY id`,
    [storeId],
  );
  return rows;
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await app.context.pool.query<{ n: number }>(sql, params);
  return rows[0]?.n ?? 0;
}

describe("POST /api/order/register", () => {
  it("stores the order, answers 201 pending, and a worker credits the points", async () => {
    const s = await shop();
    const response = await post("/api/order/register", order(1001), {
      ...LATEST,
      authorization: s.authorization,
    });
    expect(response.status).toBe(201);
    const body = registerOrderResponseV2Schema.parse(await response.json());
    expect(body).toMatchObject({ externalId: 1001, externalReference: "#1001", status: "pending" });
    expect(Date.parse(body.receivedAt)).not.toBeNaN();

    expect(await processed(s.store.id, "1001")).toMatchObject({ points_earned: 20 });
    expect(await pointsOf(app.context.pool, s.store.id, 42)).toEqual({
      balance: 20,
      ledger: 20,
      entries: 1,
    });
    const { rows } = await app.context.pool.query<{ email: string; first_name: string }>(
      `SELECT email, first_name FROM customers WHERE store_id = $1`,
      [s.store.id],
    );
    expect(rows).toEqual([{ email: "ada@example.com", first_name: "Ada" }]);
    const recorded = await events(s.store.id);
    expect(recorded.map((e) => e.type)).toEqual(["ORDER_REGISTERED", "POINTS_EARNED"]);
    expect(recorded[1]?.payload).toEqual({
      order: { externalId: "1001", externalReference: "#1001" },
      customer: { externalId: 42 },
      points: 20,
      balance: 20,
    });

    // Registering again says the order is known and processed, and credits nothing.
    const again = await post("/api/order/register", order(1001), {
      ...LATEST,
      authorization: s.authorization,
    });
    expect(again.status).toBe(201);
    expect(await again.json()).toMatchObject({ status: "processed", receivedAt: body.receivedAt });
  });

  it("takes the 2026-01-01 shape with externalRef, and treats it as the same order as externalId", async () => {
    const s = await shop();
    const { externalId: _id, externalReference: _ref, ...rest } = order(0);
    const legacy = await post(
      "/api/order/register",
      { externalRef: "5001", ...rest },
      {
        authorization: s.authorization,
      },
    );
    expect(legacy.status).toBe(201);
    expect(registerOrderResponseV1Schema.parse(await legacy.json())).toMatchObject({
      externalRef: "5001",
      status: "pending",
    });
    await processed(s.store.id, "5001");
    const migrated = await post("/api/order/register", order(5001), {
      ...V2,
      authorization: s.authorization,
    });
    expect(await migrated.json()).toMatchObject({ externalId: 5001, status: "processed" });
    expect(
      await count(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1`, [s.store.id]),
    ).toBe(1);
    expect((await pointsOf(app.context.pool, s.store.id, 42))?.ledger).toBe(20);
  });

  it("names the field of the other revision", async () => {
    const s = await shop();
    const { externalId: _id, externalReference: _ref, ...rest } = order(0);
    const v1WithV2Field = await post(
      "/api/order/register",
      { externalId: 7, ...rest },
      {
        authorization: s.authorization,
      },
    );
    expect(v1WithV2Field.status).toBe(400);
    const legacyBody = (await v1WithV2Field.json()) as { statusCode: number; message: string };
    expect(legacyBody.statusCode).toBe(400);
    expect(legacyBody.message).toContain("externalRef");

    const v2WithV1Field = await post(
      "/api/order/register",
      { externalRef: "7", ...rest },
      {
        ...LATEST,
        authorization: s.authorization,
      },
    );
    expect(v2WithV1Field.status).toBe(400);
    expect(v2WithV1Field.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await v2WithV1Field.json()) as {
      type: string;
      errors: { pointer: string; message: string }[];
    };
    expect(problem.type).toMatch(/\/validation-failed$/);
    expect(problem.errors.map((i) => i.pointer)).toEqual(
      expect.arrayContaining(["/externalId", "/externalRef"]),
    );
    expect(problem.errors.find((i) => i.pointer === "/externalRef")?.message).toContain(
      "externalId",
    );
  });

  it("credits an order once when it is registered fifty times at once", async () => {
    const s = await shop();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        post("/api/order/register", order(2002), { ...LATEST, authorization: s.authorization }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
    await processed(s.store.id, "2002");
    expect(await pointsOf(app.context.pool, s.store.id, 42)).toEqual({
      balance: 20,
      ledger: 20,
      entries: 1,
    });
    expect(
      await count(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1`, [s.store.id]),
    ).toBe(1);
    expect((await events(s.store.id)).map((e) => e.type)).toEqual([
      "ORDER_REGISTERED",
      "POINTS_EARNED",
    ]);
  });

  it("keeps the first registration when a known order comes back changed, and logs it", async () => {
    const s = await shop();
    await post("/api/order/register", order(3003), { ...LATEST, authorization: s.authorization });
    await processed(s.store.id, "3003");
    const changed = order(3003, {
      lines: [{ lineId: 1, productId: 100, categoryIds: [], quantity: 1, unitPrice: 500 }],
    });
    const response = await post("/api/order/register", changed, {
      ...LATEST,
      authorization: s.authorization,
    });
    expect(response.status).toBe(201);
    expect((await pointsOf(app.context.pool, s.store.id, 42))?.ledger).toBe(20);
    expect(app.logs.join("")).toContain("order registered again with a different payload");
  });

  it("applies product > most generous category > default, the club multiplier, and floors per line", async () => {
    const s = await shop();
    const pool = app.context.pool;
    const productRule = await addRule(pool, s.store.id, {
      kind: "product",
      targetId: 100,
      rate: 0.5,
    });
    const generous = await addRule(pool, s.store.id, { kind: "category", targetId: 20, rate: 3 });
    await addRule(pool, s.store.id, { kind: "category", targetId: 21, rate: 2, pointsPerItem: 1 });
    await addClub(pool, s.store.id, { name: "Bronze", threshold: 0, multiplier: 1 });
    await addClub(pool, s.store.id, { name: "Gold", threshold: 10, multiplier: 1.5 });

    // First order: Bronze (×1). 9.99 × 0.5 = 4.995 → 4 ; 3.33 × 3 = 9.99 → 9 ; 1.01 × 1 = 1.
    await post(
      "/api/order/register",
      order(4001, {
        lines: [
          { lineId: "a", productId: 100, categoryIds: [20], quantity: 1, unitPrice: 9.99 },
          { lineId: "b", productId: 200, categoryIds: [21, 20], quantity: 1, unitPrice: 3.33 },
          { lineId: "c", productId: 300, categoryIds: [99], quantity: 1, unitPrice: 1.01 },
        ],
      }),
      { ...LATEST, authorization: s.authorization },
    );
    expect(await processed(s.store.id, "4001")).toMatchObject({ points_earned: 14 });
    const { rows } = await pool.query<{
      rule_snapshot: {
        multiplier: number;
        lines: { rule: { id: number; kind: string }; points: number }[];
      };
    }>(`SELECT rule_snapshot FROM orders WHERE store_id = $1 AND external_id = '4001'`, [
      s.store.id,
    ]);
    const snapshot = rows[0]?.rule_snapshot;
    expect(snapshot?.multiplier).toBe(1);
    expect(snapshot?.lines.map((l) => [l.rule.id, l.rule.kind, l.points])).toEqual([
      [productRule, "product", 4],
      [generous, "category", 9],
      [s.defaultRule, "default", 1],
    ]);

    // 14 points earned: the customer is now Gold (×1.5). 7 × 1 × 1.5 = 10.5 → 10.
    await post(
      "/api/order/register",
      order(4002, {
        lines: [{ lineId: 1, productId: 300, categoryIds: [], quantity: 1, unitPrice: 7 }],
      }),
      { ...LATEST, authorization: s.authorization },
    );
    expect(await processed(s.store.id, "4002")).toMatchObject({ points_earned: 10 });
    expect(await pointsOf(pool, s.store.id, 42)).toEqual({ balance: 24, ledger: 24, entries: 2 });

    // A later rule edit does not touch what was earned, nor what a refund takes back.
    await pool.query(`UPDATE attribution_rules SET rate = 100 WHERE store_id = $1`, [s.store.id]);
    await post(
      "/api/order/refund",
      { externalId: 4002, status: "refunded" },
      {
        ...LATEST,
        authorization: s.authorization,
      },
    );
    await refundsSettled(s.store.id);
    expect(await pointsOf(pool, s.store.id, 42)).toEqual({ balance: 14, ledger: 14, entries: 3 });
  });

  it("needs the store's API key", async () => {
    const response = await post("/api/order/register", order(1), LATEST);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("Basic");
  });

  describe("refuses every invalid field with validation-failed naming it, and stores nothing", () => {
    const line = { lineId: 1, productId: 100, quantity: 1, unitPrice: 10 };
    const cases: [string, Record<string, unknown>, string][] = [
      ["externalId missing", { externalId: undefined }, "/externalId"],
      ["externalId as text", { externalId: "1001" }, "/externalId"],
      ["externalId negative", { externalId: -1 }, "/externalId"],
      ["externalId fractional", { externalId: 1.5 }, "/externalId"],
      ["externalReference empty", { externalReference: "" }, "/externalReference"],
      ["customer missing", { customer: undefined }, "/customer"],
      ["customer id text", { customer: { externalId: "x" } }, "/customer/externalId"],
      ["customer email", { customer: { externalId: 1, email: "not-an-email" } }, "/customer/email"],
      ["currency lower case", { currency: "eur" }, "/currency"],
      ["orderedAt not a date", { orderedAt: "yesterday" }, "/orderedAt"],
      ["no lines", { lines: [] }, "/lines"],
      ["line quantity 0", { lines: [{ ...line, quantity: 0 }] }, "/lines/0/quantity"],
      ["line price negative", { lines: [{ ...line, unitPrice: -1 }] }, "/lines/0/unitPrice"],
      [
        "line product missing",
        { lines: [{ ...line, productId: undefined }] },
        "/lines/0/productId",
      ],
      [
        "line categories text",
        { lines: [{ ...line, categoryIds: ["a"] }] },
        "/lines/0/categoryIds/0",
      ],
      ["line ids repeated", { lines: [line, line] }, "/lines/1/lineId"],
      ["totalPaid text", { totalPaid: "10" }, "/totalPaid"],
    ];
    for (const [name, change, pointer] of cases) {
      it(name, async () => {
        const s = await shop();
        const response = await post("/api/order/register", order(9001, change), {
          ...LATEST,
          authorization: s.authorization,
        });
        expect(response.status).toBe(400);
        const problem = (await response.json()) as { type: string; errors: { pointer: string }[] };
        expect(problem.type).toMatch(/\/validation-failed$/);
        expect(problem.errors.map((i) => i.pointer)).toContain(pointer);
        expect(
          await count(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1`, [s.store.id]),
        ).toBe(0);
      });
    }

    it("in the legacy format without a revision header", async () => {
      const s = await shop();
      const response = await post(
        "/api/order/register",
        { externalRef: "", currency: "EUR" },
        {
          authorization: s.authorization,
        },
      );
      expect(response.status).toBe(400);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(["error", "message", "statusCode"]);
      expect(body["message"]).toMatch(/externalRef/);
      expect(body["message"]).toMatch(/customer/);
    });

    it("for text PostgreSQL cannot store: a lone surrogate escape", async () => {
      const s = await shop();
      const body = JSON.stringify(order(9002)).replace('"Ada"', '"Ada\\ud800"');
      const response = await post("/api/order/register", body, {
        ...LATEST,
        authorization: s.authorization,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { type: string }).type).toMatch(/\/validation-failed$/);
      expect(
        await count(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1`, [s.store.id]),
      ).toBe(0);
    });

    it("for a body that is not JSON or not an object", async () => {
      const s = await shop();
      for (const body of ["{", "[]", "null", '"order"']) {
        const response = await post("/api/order/register", body, {
          ...LATEST,
          authorization: s.authorization,
        });
        expect(response.status, body).toBe(400);
      }
      expect(
        await count(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1`, [s.store.id]),
      ).toBe(0);
    });
  });
});

describe("POST /api/order/refund", () => {
  /** An order of two lines: 2 × 10 (20 points) and 1 × 30 (30 points), 50 points in all. */
  async function orderedShop() {
    const s = await shop();
    await post(
      "/api/order/register",
      order(7001, {
        lines: [
          { lineId: "L1", productId: 1, quantity: 2, unitPrice: 10 },
          { lineId: "L2", productId: 2, quantity: 1, unitPrice: 30 },
        ],
      }),
      { ...LATEST, authorization: s.authorization },
    );
    await processed(s.store.id, "7001");
    return s;
  }

  async function refund(s: Shop, body: Record<string, unknown>) {
    const response = await post(
      "/api/order/refund",
      { externalId: 7001, ...body },
      {
        ...LATEST,
        authorization: s.authorization,
      },
    );
    expect(response.status).toBe(201);
    refundOrderResponseV2Schema.parse(await response.json());
    await refundsSettled(s.store.id);
    return pointsOf(app.context.pool, s.store.id, 42);
  }

  it("deducts a partial refund's share, nothing on a replay, then only the next credit note's delta", async () => {
    const s = await orderedShop();
    const first = {
      status: "partially_refunded",
      creditNoteId: "CN-1",
      lines: [{ lineId: "L1", quantity: 1 }],
    };
    expect(await refund(s, first)).toMatchObject({ balance: 40, ledger: 40 });
    expect(await refund(s, first)).toMatchObject({ balance: 40, ledger: 40, entries: 2 });
    const second = {
      status: "partially_refunded",
      creditNoteId: "CN-2",
      lines: [
        { lineId: "L1", quantity: 1 },
        { lineId: "L2", quantity: 0, amount: 15 },
      ],
    };
    expect(await refund(s, second)).toMatchObject({ balance: 25, ledger: 25, entries: 3 });
    const types = (await events(s.store.id)).map((e) => e.type);
    expect(types.filter((t) => t === "POINTS_DEDUCTED")).toHaveLength(2);
    expect(types.filter((t) => t === "ORDER_REFUNDED")).toHaveLength(2);
  });

  it("changes nothing and logs a declaration lower than already applied", async () => {
    const s = await orderedShop();
    await refund(s, { status: "partially_refunded", refundedAmount: 25 });
    expect(await refund(s, { status: "partially_refunded", refundedAmount: 10 })).toMatchObject({
      balance: 25,
      ledger: 25,
    });
    expect(app.logs.join("")).toContain("refund declares less than already applied");
    const { rows } = await app.context.pool.query<{ outcome: string }>(
      `SELECT outcome FROM refunds WHERE store_id = $1 ORDER BY id`,
      [s.store.id],
    );
    expect(rows.map((r) => r.outcome)).toEqual(["deducted", "lower_than_applied"]);
  });

  it("deducts all that remains on a full refund or a cancellation, and the balance may go negative", async () => {
    const s = await orderedShop();
    await refund(s, { status: "partially_refunded", lines: [{ lineId: "L2", quantity: 1 }] });
    await app.context.pool.query(
      `WITH c AS (UPDATE customers SET balance = balance - 15 WHERE store_id = $1 RETURNING id, balance)
       INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after, note)
       SELECT $1, id, 'manual_adjustment', -15, balance, 'spent' FROM c`,
      [s.store.id],
    );
    expect(await refund(s, { status: "refunded" })).toMatchObject({ balance: -15, ledger: -15 });
    expect(await refund(s, { status: "cancelled" })).toMatchObject({ balance: -15, entries: 4 });
    const { rows } = await app.context.pool.query<{
      points_deducted: number;
      refund_status: string;
    }>(`SELECT points_deducted, refund_status FROM orders WHERE store_id = $1`, [s.store.id]);
    expect(rows[0]).toEqual({ points_deducted: 50, refund_status: "cancelled" });
  });

  it("keeps a cancellation when a partial refund is declared after it", async () => {
    const s = await orderedShop();
    await refund(s, { status: "cancelled" });
    expect(await refund(s, { status: "partially_refunded", refundedAmount: 50 })).toMatchObject({
      balance: 0,
      entries: 2,
    });
    const { rows } = await app.context.pool.query<{ refund_status: string }>(
      `SELECT refund_status FROM orders WHERE store_id = $1`,
      [s.store.id],
    );
    expect(rows[0]?.refund_status).toBe("cancelled");
  });

  it("deducts once when the same credit note is replayed concurrently", async () => {
    const s = await orderedShop();
    const body = { externalId: 7001, status: "partially_refunded", refundedAmount: 10 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        post("/api/order/refund", body, { ...LATEST, authorization: s.authorization }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    await refundsSettled(s.store.id);
    expect(await pointsOf(app.context.pool, s.store.id, 42)).toEqual({
      balance: 40,
      ledger: 40,
      entries: 2,
    });
  });

  it("answers 201 for an order unknown to the store, logs it, and applies it if the order comes", async () => {
    const s = await shop();
    const response = await post(
      "/api/order/refund",
      { externalId: 8001, status: "refunded" },
      {
        ...LATEST,
        authorization: s.authorization,
      },
    );
    expect(response.status).toBe(201);
    await refundsSettled(s.store.id);
    expect(app.logs.join("")).toContain("refund declared for an order unknown to the store");
    await post("/api/order/register", order(8001), { ...LATEST, authorization: s.authorization });
    await processed(s.store.id, "8001");
    await eventually(async () =>
      (await pointsOf(app.context.pool, s.store.id, 42))?.entries === 2 ? true : undefined,
    );
    expect(await pointsOf(app.context.pool, s.store.id, 42)).toEqual({
      balance: 0,
      ledger: 0,
      entries: 2,
    });
  });

  it("refuses invalid declarations with validation-failed and stores nothing", async () => {
    const s = await shop();
    const bad: [Record<string, unknown>, string][] = [
      [{ externalId: 1, status: "returned" }, "/status"],
      [{ externalId: 1, status: "partially_refunded" }, "/lines"],
      [{ externalId: 1, status: "refunded", refundedAmount: -5 }, "/refundedAmount"],
      [
        { externalId: 1, status: "partially_refunded", lines: [{ lineId: 1, quantity: -1 }] },
        "/lines/0/quantity",
      ],
      [{ externalRef: "1", status: "refunded" }, "/externalRef"],
      [
        {
          externalId: 1,
          status: "partially_refunded",
          lines: [
            { lineId: "A", quantity: 1 },
            { lineId: "A", quantity: 1 },
          ],
        },
        "/lines/1/lineId",
      ],
    ];
    for (const [body, pointer] of bad) {
      const response = await post("/api/order/refund", body, {
        ...LATEST,
        authorization: s.authorization,
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const problem = (await response.json()) as { errors: { pointer: string }[] };
      expect(problem.errors.map((i) => i.pointer)).toContain(pointer);
    }
    expect(
      await count(`SELECT count(*)::int AS n FROM refunds WHERE store_id = $1`, [s.store.id]),
    ).toBe(0);
  });
});
