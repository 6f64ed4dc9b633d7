import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addRule, pointsOf, storeWithKey } from "./support/fixtures.js";

/**
 * Refund declarations are applied by their store's crediting job, in batches, after its
 * orders. Workers start when each test says so: what is queued before them is the point.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const LATEST = { revision: "2026-08-26" };

function post(path: string, body: unknown, authorization: string) {
  return fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization, ...LATEST },
    body: JSON.stringify(body),
  });
}

/** 50 points at a point per unit spent: line 1 is 2 × 10, line 2 is 1 × 30. */
function order(externalId: number) {
  return {
    externalId,
    customer: { externalId: 7 },
    currency: "EUR",
    lines: [
      { lineId: 1, productId: 1, quantity: 2, unitPrice: 10 },
      { lineId: 2, productId: 2, quantity: 1, unitPrice: 30 },
    ],
  };
}

async function declare(authorization: string, refund: Record<string, unknown>) {
  expect((await post("/api/order/refund", refund, authorization)).status).toBe(201);
}

/** The jobs queued for the store's orders and refunds (task, payload), oldest first. */
async function queuedJobs(storeId: number) {
  const { rows } = await app.context.pool.query<{ task: string; payload: object }>(
    `SELECT t.identifier AS task, j.payload
     FROM graphile_worker._private_jobs j
     JOIN graphile_worker._private_tasks t ON t.id = j.task_id
     WHERE (j.payload->>'storeId')::bigint = $1
        OR (j.payload->>'orderId')::bigint IN (SELECT id FROM orders WHERE store_id = $1)
        OR (j.payload->>'refundId')::bigint IN (SELECT id FROM refunds WHERE store_id = $1)
     ORDER BY j.id`,
    [storeId],
  );
  return rows;
}

async function deleteJobs(storeId: number) {
  await app.context.pool.query(
    `DELETE FROM graphile_worker._private_jobs
     WHERE (payload->>'storeId')::bigint = $1
        OR (payload->>'orderId')::bigint IN (SELECT id FROM orders WHERE store_id = $1)
        OR (payload->>'refundId')::bigint IN (SELECT id FROM refunds WHERE store_id = $1)`,
    [storeId],
  );
}

async function refundsOf(storeId: number) {
  const { rows } = await app.context.pool.query<{
    id: number;
    processing_status: string;
    outcome: string | null;
    points_deducted: number | null;
    processing_failures: number;
  }>(
    `SELECT id::int, processing_status, outcome, points_deducted, processing_failures
     FROM refunds WHERE store_id = $1 ORDER BY id`,
    [storeId],
  );
  return rows;
}

async function workUntil(done: () => Promise<boolean>) {
  const workers = await app.startWorkers();
  try {
    await eventually(async () => ((await done()) ? true : undefined), 20_000);
  } finally {
    await workers.stop();
  }
}

/** A store whose orders (1, 2, ...) are registered and credited, 50 points each. */
async function storeWithCreditedOrders(domain: string, count: number) {
  const s = await storeWithKey(app, domain);
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  for (let id = 1; id <= count; id++) {
    expect((await post("/api/order/register", order(id), s.authorization)).status).toBe(201);
  }
  await workUntil(async () => {
    const { rows } = await app.context.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE store_id = $1 AND status = 'processed'`,
      [s.store.id],
    );
    return rows[0]?.n === count;
  });
  await deleteJobs(s.store.id);
  return s;
}

it("applies a store's refunds through its one crediting job, each on what the ones before left", async () => {
  const s = await storeWithCreditedOrders("https://refunds-in-turn.example", 2);
  const partial = {
    externalId: 1,
    status: "partially_refunded",
    lines: [{ lineId: 1, quantity: 1 }],
  };
  await declare(s.authorization, partial);
  await declare(s.authorization, partial);
  await declare(s.authorization, {
    externalId: 1,
    status: "partially_refunded",
    lines: [{ lineId: 1, quantity: 2 }],
  });
  await declare(s.authorization, { externalId: 2, status: "refunded" });
  await declare(s.authorization, {
    externalId: 2,
    status: "partially_refunded",
    refundedAmount: 5,
  });
  await declare(s.authorization, { externalId: 99, status: "refunded" });
  // Six declarations, one job: the store's.
  expect(await queuedJobs(s.store.id)).toEqual([
    { task: "credit-store-orders", payload: { storeId: s.store.id } },
  ]);

  await workUntil(async () =>
    (await refundsOf(s.store.id)).every((refund) => refund.processing_status === "processed"),
  );
  expect(
    (await refundsOf(s.store.id)).map(({ outcome, points_deducted }) => ({
      outcome,
      points_deducted,
    })),
  ).toEqual([
    // A unit of line 1 (10 of 50 paid), its replay, then both units: 10 more.
    { outcome: "deducted", points_deducted: 10 },
    { outcome: "no_change", points_deducted: 0 },
    { outcome: "deducted", points_deducted: 10 },
    // Order 2 refunded in full; a partial refund after it declares less than applied.
    { outcome: "deducted", points_deducted: 50 },
    { outcome: "lower_than_applied", points_deducted: 0 },
    // Never registered: kept.
    { outcome: "unknown_order", points_deducted: 0 },
  ]);
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 30,
    ledger: 30,
    entries: 5,
  });
  // One batch applied all six: each deduction's event gives the balance it left, in turn.
  const { rows: events } = await app.context.pool.query<{ type: string; payload: object }>(
    `SELECT type, payload FROM outbox_events
     WHERE store_id = $1 AND type IN ('ORDER_REFUNDED', 'POINTS_DEDUCTED') ORDER BY id`,
    [s.store.id],
  );
  const deduction = (externalId: string, refundStatus: string, points: number, balance: number) => [
    { type: "ORDER_REFUNDED", order: externalId, refundStatus },
    { type: "POINTS_DEDUCTED", order: externalId, points, balance },
  ];
  expect(
    events.map(({ type, payload }) => {
      const event = payload as {
        order: { externalId: string };
        refundStatus?: string;
        points?: number;
        balance?: number;
      };
      return type === "ORDER_REFUNDED"
        ? { type, order: event.order.externalId, refundStatus: event.refundStatus }
        : { type, order: event.order.externalId, points: event.points, balance: event.balance };
    }),
  ).toEqual([
    ...deduction("1", "partially_refunded", 10, 90),
    ...deduction("1", "partially_refunded", 10, 80),
    ...deduction("2", "refunded", 50, 30),
  ]);
  // Each order where its last declaration applied left it; a lower one changed nothing.
  const { rows: orders } = await app.context.pool.query<Record<string, string>>(
    `SELECT external_id, amount_refunded::text, points_deducted::text, refund_status
     FROM orders WHERE store_id = $1 ORDER BY external_id`,
    [s.store.id],
  );
  expect(orders).toEqual([
    {
      external_id: "1",
      amount_refunded: "20.00",
      points_deducted: "20",
      refund_status: "partially_refunded",
    },
    {
      external_id: "2",
      amount_refunded: "50.00",
      points_deducted: "50",
      refund_status: "refunded",
    },
  ]);

  // The order comes after all: its crediting applies the refund kept for it.
  expect((await post("/api/order/register", order(99), s.authorization)).status).toBe(201);
  await workUntil(async () => (await queuedJobs(s.store.id)).length === 0);
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 30,
    ledger: 30,
    entries: 7,
  });
});

it("applies a refund whose batch failed alone, and the store's other refunds all the same", async () => {
  const s = await storeWithCreditedOrders("https://refund-fails.example", 4);
  for (const externalId of [1, 2, 3]) {
    await declare(s.authorization, { externalId, status: "refunded" });
  }
  await deleteJobs(s.store.id);
  const [, bad] = await refundsOf(s.store.id);
  const badId = Number(bad?.id);
  // The second refund's deduction is refused: its batch rolls back, each of its refunds goes
  // to a job of its own, and only the bad one fails there.
  await app.context.pool.query(
    `CREATE FUNCTION refuse_deduction() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'deduction refused'; END $$;
     CREATE TRIGGER refuse_deduction BEFORE INSERT ON ledger_transactions FOR EACH ROW
       WHEN (NEW.refund_id = ${badId}) EXECUTE FUNCTION refuse_deduction();`,
  );
  try {
    expect(await app.context.services.orders.creditStore(s.store.id)).toBe(0);
    expect(await queuedJobs(s.store.id)).toEqual(
      (await refundsOf(s.store.id)).map(({ id }) => ({
        task: "process-refund",
        payload: { refundId: id },
      })),
    );
    expect(await pointsOf(app.context.pool, s.store.id, 7)).toMatchObject({ balance: 200 });

    await workUntil(async () => {
      const refunds = await refundsOf(s.store.id);
      return (
        refunds.filter((refund) => refund.processing_status === "processed").length === 2 &&
        Number(refunds[1]?.processing_failures) > 0
      );
    });
    const refunds = await refundsOf(s.store.id);
    expect(refunds.map((refund) => [refund.processing_status, refund.processing_failures])).toEqual(
      [
        ["processed", 0],
        ["pending", refunds[1]?.processing_failures],
        ["processed", 0],
      ],
    );
    expect(refunds[1]?.processing_failures).toBeGreaterThan(0);
    expect(await pointsOf(app.context.pool, s.store.id, 7)).toMatchObject({ balance: 100 });

    // The store's next job leaves the failing refund to its own job, and so the later
    // declarations of its order (they are cumulative: each applies on the one before), and
    // applies the others.
    await declare(s.authorization, { externalId: 2, status: "cancelled" });
    await declare(s.authorization, { externalId: 4, status: "refunded" });
    expect(await app.context.services.orders.creditStore(s.store.id)).toBe(0);
    expect(
      (await refundsOf(s.store.id)).map(({ processing_status, outcome }) => [
        processing_status,
        outcome,
      ]),
    ).toEqual([
      ["processed", "deducted"],
      ["pending", null],
      ["processed", "deducted"],
      ["pending", null],
      ["processed", "deducted"],
    ]);
  } finally {
    await app.context.pool.query(
      `DROP TRIGGER refuse_deduction ON ledger_transactions; DROP FUNCTION refuse_deduction();`,
    );
  }
  // Its own job's retry applies it once the cause is gone, then the store's job the
  // cancellation declared after it: that finds nothing more to take.
  await app.context.pool.query(
    `UPDATE graphile_worker._private_jobs SET run_at = now() WHERE (payload->>'refundId')::bigint = $1`,
    [badId],
  );
  await workUntil(async () =>
    (await refundsOf(s.store.id)).every((refund) => refund.processing_status === "processed"),
  );
  expect((await refundsOf(s.store.id)).map(({ outcome }) => outcome)).toEqual([
    "deducted",
    "deducted",
    "deducted",
    "no_change",
    "deducted",
  ]);
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 0,
    ledger: 0,
    entries: 8,
  });
});

it("holds back only the refunds of an order held elsewhere, and leaves them to a new job", async () => {
  const s = await storeWithCreditedOrders("https://refund-held.example", 2);
  await declare(s.authorization, { externalId: 1, status: "refunded" });
  await declare(s.authorization, { externalId: 2, status: "refunded" });
  await deleteJobs(s.store.id);
  const holder = new pg.Client({ connectionString: app.database.url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(
      `SELECT id FROM orders WHERE store_id = $1 AND external_id = '1' FOR UPDATE`,
      [s.store.id],
    );
    await app.context.services.orders.creditStore(s.store.id);
    expect((await refundsOf(s.store.id)).map((refund) => refund.processing_status)).toEqual([
      "pending",
      "processed",
    ]);
    expect(await queuedJobs(s.store.id)).toEqual([
      { task: "credit-store-orders", payload: { storeId: s.store.id } },
    ]);
  } finally {
    await holder.query("ROLLBACK");
    await holder.end();
  }
  await workUntil(async () => (await queuedJobs(s.store.id)).length === 0);
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 0,
    ledger: 0,
    entries: 4,
  });
});

it("applies more refunds than a batch takes in the order they were declared, each once", async () => {
  const s = await storeWithKey(app, "https://many-refunds.example");
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  const customers = [7, 8, 9, 10, 11];
  for (const [index, customer] of customers.entries()) {
    const body = { ...order(index + 1), customer: { externalId: customer } };
    expect((await post("/api/order/register", body, s.authorization)).status).toBe(201);
  }
  await workUntil(async () => (await queuedJobs(s.store.id)).length === 0);
  // Each order's refunds grow by one unit paid, one point: 46 each, 230 in all, declared
  // side by side for the five orders.
  await Promise.all(
    customers.map(async (_, index) => {
      for (let amount = 1; amount <= 46; amount++) {
        await declare(s.authorization, {
          externalId: index + 1,
          status: "partially_refunded",
          refundedAmount: amount,
        });
      }
    }),
  );
  await workUntil(async () =>
    (await refundsOf(s.store.id)).every((refund) => refund.processing_status === "processed"),
  );
  const refunds = await refundsOf(s.store.id);
  expect(refunds).toHaveLength(230);
  expect(
    refunds.filter((refund) => refund.outcome === "deducted" && refund.points_deducted === 1),
  ).toHaveLength(230);
  for (const customer of customers) {
    expect(await pointsOf(app.context.pool, s.store.id, customer)).toEqual({
      balance: 4,
      ledger: 4,
      entries: 47,
    });
  }
});

it("gives a job to a store whose refunds waited a minute without one", async () => {
  const waiting = await storeWithCreditedOrders("https://refund-stranded.example", 1);
  await declare(waiting.authorization, { externalId: 1, status: "refunded" });
  // A refund of an order whose crediting failed for good waits for that order, not for a job.
  const failing = await storeWithKey(app, "https://refund-order-failing.example");
  expect((await post("/api/order/register", order(1), failing.authorization)).status).toBe(201);
  await declare(failing.authorization, { externalId: 1, status: "refunded" });
  const stores = [waiting.store.id, failing.store.id];
  for (const storeId of stores) await deleteJobs(storeId);
  await app.context.pool.query(
    `UPDATE refunds SET received_at = now() - interval '2 minutes' WHERE store_id = ANY ($1)`,
    [stores],
  );
  await app.context.pool.query(
    `UPDATE orders SET received_at = now() - interval '2 minutes', processing_failures = 1
     WHERE store_id = $1`,
    [failing.store.id],
  );
  try {
    expect(await app.context.services.orders.creditStrandedOrders()).toBeGreaterThanOrEqual(1);
    expect(await queuedJobs(waiting.store.id)).toEqual([
      { task: "credit-store-orders", payload: { storeId: waiting.store.id } },
    ]);
    expect(await queuedJobs(failing.store.id)).toEqual([]);
  } finally {
    for (const storeId of stores) await deleteJobs(storeId);
  }
});
