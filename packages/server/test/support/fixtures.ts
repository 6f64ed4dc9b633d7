import type pg from "pg";
import type { TestApp } from "./app.js";
import { basic } from "./app.js";

/** A store with an API key, as the CLI would create them. */
export async function storeWithKey(app: TestApp, domain: string) {
  const { stores, apiKeys } = app.context.services;
  const store = await stores.create({ domain });
  const { key } = await apiKeys.create(store.reference);
  return { store, key, authorization: basic(key) };
}

export async function addRule(
  pool: pg.Pool,
  storeId: number,
  rule: {
    kind: "product" | "category" | "default";
    targetId?: number;
    rate: number;
    pointsPerItem?: number;
  },
): Promise<number> {
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO attribution_rules (store_id, kind, target_id, rate, points_per_item)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [storeId, rule.kind, rule.targetId ?? null, rule.rate, rule.pointsPerItem ?? 0],
  );
  return (rows[0] as { id: number }).id;
}

export async function addClub(
  pool: pg.Pool,
  storeId: number,
  club: { name: string; threshold: number; multiplier: number },
): Promise<number> {
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO clubs (store_id, name, threshold, multiplier) VALUES ($1, $2, $3, $4) RETURNING id`,
    [storeId, club.name, club.threshold, club.multiplier],
  );
  return (rows[0] as { id: number }).id;
}

/** The customer's balance, and the sum of their ledger, which must always be equal. */
export async function pointsOf(pool: pg.Pool, storeId: number, externalId: number) {
  const { rows } = await pool.query<{ balance: number; ledger: number; entries: number }>(
    `SELECT c.balance,
            coalesce(sum(l.points), 0)::bigint AS ledger,
            count(l.id)::int AS entries
     FROM customers c LEFT JOIN ledger_transactions l ON l.customer_id = c.id
     WHERE c.store_id = $1 AND c.external_id = $2
     GROUP BY c.id`,
    [storeId, externalId],
  );
  return rows[0];
}
