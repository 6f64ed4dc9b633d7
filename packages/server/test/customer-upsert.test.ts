import { afterAll, beforeAll, expect, it } from "vitest";
import { withTransaction, type Queryable } from "../src/db/pool.js";
import { upsertCustomers } from "../src/modules/orders/orders.repository.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";

/**
 * A crediting batch creates or updates its orders' customers before it credits them
 * (upsertCustomers): most are known, with the same details, and their row is written again by
 * the balance update that follows.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** Each customer's row version (its xmin), by external id. */
async function versions(storeId: number): Promise<Map<number, string>> {
  const { rows } = await app.context.pool.query<{ external_id: number; xmin: string }>(
    `SELECT external_id, xmin::text FROM customers WHERE store_id = $1`,
    [storeId],
  );
  return new Map(rows.map((row) => [Number(row.external_id), row.xmin]));
}

it("rewrites only the customers whose details change, and returns every id", async () => {
  const { pool } = app.context;
  const { store } = await storeWithKey(app, "https://upsert.example");
  const first = await withTransaction(pool, (tx) =>
    upsertCustomers(tx, store.id, [
      { externalId: 1, email: "one@example.com", firstName: "Ann" },
      { externalId: 2, email: "two@example.com" },
      { externalId: 3 },
    ]),
  );
  expect([...first.keys()].sort()).toEqual([1, 2, 3]);
  const before = await versions(store.id);

  let statements = 0;
  const second = await withTransaction(pool, async (tx) => {
    const counted = {
      query: (...args: Parameters<Queryable["query"]>) => {
        statements += 1;
        return (tx.query as (...a: unknown[]) => unknown)(...args);
      },
    } as Queryable;
    const ids = await upsertCustomers(counted, store.id, [
      // The same details, or none: left as it is.
      { externalId: 1, email: "ONE@example.com", firstName: "Ann" },
      { externalId: 3 },
      // A new last name: written.
      { externalId: 2, lastName: "Smith" },
      // New: created.
      { externalId: 4, email: "four@example.com" },
    ]);
    // Left as it is, but locked until the batch commits, as a written one is.
    await expect(
      pool.query(
        `SELECT 1 FROM customers WHERE store_id = $1 AND external_id = 1 FOR NO KEY UPDATE NOWAIT`,
        [store.id],
      ),
    ).rejects.toMatchObject({ code: "55P03" });
    return ids;
  });
  // One statement when nothing races it: the ids of those left alone come from its snapshot.
  expect(statements).toBe(1);
  expect(second).toEqual(new Map([...first, [4, second.get(4)]]));
  expect(second.get(4)).toEqual(expect.any(Number));
  const after = await versions(store.id);
  expect(after.get(1)).toBe(before.get(1));
  expect(after.get(3)).toBe(before.get(3));
  expect(after.get(2)).not.toBe(before.get(2));
  const { rows } = await pool.query(
    `SELECT external_id::int, email, first_name, last_name FROM customers
     WHERE store_id = $1 ORDER BY external_id`,
    [store.id],
  );
  expect(rows).toEqual([
    { external_id: 1, email: "one@example.com", first_name: "Ann", last_name: null },
    { external_id: 2, email: "two@example.com", first_name: null, last_name: "Smith" },
    { external_id: 3, email: null, first_name: null, last_name: null },
    { external_id: 4, email: "four@example.com", first_name: null, last_name: null },
  ]);
});

it("returns the id of a customer another transaction created while the upsert waited", async () => {
  const { pool } = app.context;
  const { store } = await storeWithKey(app, "https://upsert-race.example");
  const other = await pool.connect();
  let upserted: Promise<Map<number, number>> | undefined;
  try {
    await other.query("BEGIN");
    const { rows } = await other.query<{ id: number; pid: number }>(
      `INSERT INTO customers (store_id, external_id) VALUES ($1, 7)
       RETURNING id, pg_backend_pid() AS pid`,
      [store.id],
    );
    const inserter = rows[0]?.pid;
    // The upsert takes its snapshot, then waits on the uncommitted row's insertion.
    upserted = withTransaction(pool, (tx) =>
      upsertCustomers(tx, store.id, [{ externalId: 7 }, { externalId: 8 }]),
    );
    for (let waited = 0; ; waited += 20) {
      const { rows: waiting } = await pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids(pid))`,
        [inserter],
      );
      if (waiting.length > 0) break;
      if (waited > 5_000) throw new Error("the upsert never waited");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await other.query("COMMIT");
    const ids = await upserted;
    expect(ids.get(7)).toBe(Number(rows[0]?.id));
    expect(ids.get(8)).toEqual(expect.any(Number));
  } finally {
    // On a failure, the upsert is freed before the pool closes.
    await other.query("ROLLBACK").catch(() => {});
    other.release();
    await upserted?.catch(() => {});
  }
});
