import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../src/db/pool.js";
import { appendLedgerEntries } from "../src/modules/ledger/ledger.repository.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, storeWithKey } from "./support/fixtures.js";

/**
 * Every statement that locks several customers takes them in (store, externalId) order: the
 * order worker's batches, claims, expiry, the release of held lots. Two transactions then never
 * wait on each other in a cycle, whatever plan PostgreSQL chose for either of them.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe("appending to the ledger", () => {
  it("locks a batch's customers in (store, externalId) order: writers sharing them both commit", async () => {
    const { store } = await storeWithKey(
      app,
      `https://locks-${Math.random().toString(36).slice(2)}.example`,
    );
    // Created first, so first by id and on the heap, but second by external id.
    const second = await customerWithPoints(app.context.pool, store.id, 2, 0);
    const first = await customerWithPoints(app.context.pool, store.id, 1, 0);

    const holder = await app.context.pool.connect();
    const batch = await app.context.pool.connect();
    try {
      // Another writer, in the order every writer follows: it holds the customer first by
      // external id, and will next want the second.
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM customers WHERE id = $1 FOR NO KEY UPDATE`, [first]);

      // A batch of both customers waits for the first, holding neither meanwhile.
      await batch.query("BEGIN");
      const batched = appendLedgerEntries(batch, [
        { storeId: store.id, customerId: second, kind: "manual_adjustment", points: 5 },
        { storeId: store.id, customerId: first, kind: "manual_adjustment", points: 7 },
      ]).then(
        () => "appended",
        (error: Error) => error.message,
      );
      await eventually(async () => {
        const { rows } = await app.context.pool.query<{ waiting: boolean }>(
          `SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`,
          [(batch as unknown as { processID: number }).processID],
        );
        return rows[0]?.waiting ? true : undefined;
      });

      // The holder goes on to the second customer, and commits.
      await appendLedgerEntries(holder, [
        { storeId: store.id, customerId: second, kind: "manual_adjustment", points: 100 },
      ]);
      await holder.query("COMMIT");

      expect(await batched).toBe("appended");
      await batch.query("COMMIT");
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await batch.query("ROLLBACK").catch(() => {});
      holder.release();
      batch.release();
    }

    const { rows } = await app.context.pool.query<{ id: number; balance: number }>(
      `SELECT id, balance FROM customers WHERE store_id = $1 ORDER BY external_id`,
      [store.id],
    );
    expect(rows).toEqual([
      { id: first, balance: 7 },
      { id: second, balance: 105 },
    ]);
    // Each balance is its ledger's sum, every entry chained from the one before.
    const ledger = await app.context.pool.query<{ customer_id: number; balance_after: number }>(
      `SELECT customer_id, balance_after FROM ledger_transactions WHERE store_id = $1
       ORDER BY customer_id, id`,
      [store.id],
    );
    expect(ledger.rows).toEqual([
      { customer_id: second, balance_after: 100 },
      { customer_id: second, balance_after: 105 },
      { customer_id: first, balance_after: 7 },
    ]);
  });

  it("keeps a batch's balances exact when its customers come in any order", async () => {
    const { store } = await storeWithKey(
      app,
      `https://locks-${Math.random().toString(36).slice(2)}.example`,
    );
    const ids: number[] = [];
    for (const externalId of [30, 10, 20])
      ids.push(await customerWithPoints(app.context.pool, store.id, externalId, 50));
    const appended = await withTransaction(app.context.pool, (db) =>
      appendLedgerEntries(db, [
        { storeId: store.id, customerId: ids[2] as number, kind: "earn", points: 3 },
        { storeId: store.id, customerId: ids[0] as number, kind: "earn", points: 1 },
        { storeId: store.id, customerId: ids[2] as number, kind: "earn", points: 4 },
        { storeId: store.id, customerId: ids[1] as number, kind: "earn", points: 2 },
      ]),
    );
    expect(appended.map((entry) => entry.balanceAfter)).toEqual([53, 51, 57, 52]);
  });
});
