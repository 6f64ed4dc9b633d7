import { afterAll, beforeAll, expect, it } from "vitest";
import { withTransaction } from "../src/db/pool.js";
import { appendLedgerEntries } from "../src/modules/ledger/ledger.repository.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";

/**
 * A refund lowers its order's earning lot: one lot found by its order, whatever the size of
 * the table and whatever plan PostgreSQL keeps for the prepared statement (after five runs it may
 * keep a generic one, chosen on statistics that may be stale or wrong).
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

it("finds a refunded order's lot by its order, not by reading every lot", async () => {
  const { pool } = app.context;
  const { store } = await storeWithKey(app, "https://refund-lot.example");
  const { rows: customers } = await pool.query<{ id: string }>(
    `INSERT INTO customers (store_id, external_id, balance) VALUES ($1, 1, 50000) RETURNING id`,
    [store.id],
  );
  const customerId = Number(customers[0]?.id);
  // 5,000 credited orders of 10 points, each with its ledger entry and its lot.
  await pool.query(
    `WITH o AS (
       INSERT INTO orders (store_id, external_id, customer_external_id, customer_id, currency,
                           ordered_at, payload, status, points_earned)
       SELECT $1, n::text, 1, $2, 'EUR', now(), '{}', 'processed', 10
       FROM generate_series(1, 5000) n RETURNING id
     ), e AS (
       INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after, order_id)
       SELECT $1, $2, 'earn', 10, 0, id FROM o ORDER BY id RETURNING id, order_id
     )
     INSERT INTO earning_lots (ledger_id, store_id, customer_id, order_id, points, available_at,
                               released_at, earned_at)
     SELECT id, $1, $2, order_id, 10, now(), now(), now() FROM e`,
    [store.id, customerId],
  );
  // Statistics that put 50 lots on each order: the planner then weighs reading the lots in
  // their key's order and stopping at the first one of the order.
  await pool.query(`ALTER TABLE earning_lots ALTER COLUMN order_id SET (n_distinct = 100)`);
  await pool.query(`ANALYZE earning_lots`);
  const { rows: last } = await pool.query<{ order_id: string; ledger_id: string }>(
    `SELECT order_id, ledger_id FROM earning_lots WHERE store_id = $1
     ORDER BY ledger_id DESC LIMIT 1`,
    [store.id],
  );
  const orderId = Number(last[0]?.order_id);

  await withTransaction(pool, async (tx) => {
    // The plan a prepared statement settles on: generic, without the order's value.
    await tx.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
    const [appended] = await appendLedgerEntries(tx, [
      { storeId: store.id, customerId, kind: "refund_deduction", points: -4, orderId },
    ]);
    expect(appended?.balanceAfter).toBe(49_996);
    const { rows: read } = await tx.query<{ fetched: string; scanned: string }>(
      `SELECT idx_tup_fetch AS fetched, seq_tup_read AS scanned
       FROM pg_stat_xact_user_tables WHERE relname = 'earning_lots'`,
    );
    // The order's lot, fetched a few times over (to find it, lock it, update it): 3 to 5
    // fetches here, where reading the lots in their key's order fetched 5,002.
    expect(Number(read[0]?.fetched) + Number(read[0]?.scanned)).toBeLessThanOrEqual(10);
  });
  const { rows: lot } = await pool.query<{ points: string }>(
    `SELECT points FROM earning_lots WHERE order_id = $1`,
    [orderId],
  );
  expect(Number(lot[0]?.points)).toBe(6);
});
