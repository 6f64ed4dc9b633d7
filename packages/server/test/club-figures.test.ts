import { DEFAULT_CLUB_POLICY } from "@loyalty/shared-types";
import { afterAll, beforeAll, expect, it } from "vitest";
import { withTransaction } from "../src/db/pool.js";
import { clubFigures } from "../src/modules/points/club-reviews.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";

/**
 * A crediting batch reads the club figures of its customers (up to 200) before it credits
 * them: each customer's own entries, whatever the size of the store's ledger.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

it("reads a batch's club figures from its customers' entries, not by scanning the ledger", async () => {
  const { pool } = app.context;
  const { store } = await storeWithKey(app, "https://figures.example");
  // 5,000 customers, four earnings each over the last four days (50, 100, 150 and 200 points).
  await pool.query(
    `INSERT INTO customers (store_id, external_id) SELECT $1, n FROM generate_series(1, 5000) n`,
    [store.id],
  );
  await pool.query(
    `INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after, created_at)
     SELECT $1, c.id, 'earn', 50 * k, 0, now() - k * interval '1 day'
     FROM customers c CROSS JOIN generate_series(1, 4) AS k
     WHERE c.store_id = $1`,
    [store.id],
  );
  await pool.query(`ANALYZE customers, ledger_transactions`);
  const { rows } = await pool.query<{ id: number }>(
    `SELECT id FROM customers WHERE store_id = $1 ORDER BY external_id LIMIT 200`,
    [store.id],
  );
  const ids = rows.map((row) => Number(row.id));

  await withTransaction(pool, async (tx) => {
    const figures = await clubFigures(tx, DEFAULT_CLUB_POLICY, ids, new Date());
    expect(figures.size).toBe(200);
    for (const id of ids) {
      expect(figures.get(id)).toMatchObject({ current: 500, previousYear: 0 });
      expect(Date.now() - (figures.get(id)?.oldest?.getTime() ?? 0)).toBeGreaterThan(
        3.9 * 86_400_000,
      );
    }
    // Read in this transaction: no scan of the whole ledger.
    const { rows: scans } = await tx.query<{ seq_scan: string }>(
      `SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'ledger_transactions'`,
    );
    expect(Number(scans[0]?.seq_scan)).toBe(0);
  });
});
