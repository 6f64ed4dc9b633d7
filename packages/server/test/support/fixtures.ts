import { createHmac } from "node:crypto";
import type pg from "pg";
import type { OutboxEvent } from "../../src/modules/events/events.repository.js";
import { appendLedgerEntries } from "../../src/modules/ledger/ledger.repository.js";
import type { TestApp } from "./app.js";
import { basic } from "./app.js";
import { LATEST_REVISION } from "@loyalty/shared-types";

/** A store with an API key, as the CLI would create them. */
export async function storeWithKey(
  app: TestApp,
  domain: string,
  details: { name?: string; language?: string } = {},
) {
  const { stores, apiKeys } = app.context.services;
  const store = await stores.create({ domain, ...details });
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

/** The customer hash as a store's server computes it (HMAC-SHA512 keyed `<reference>:<key>`). */
export function hashFor(reference: string, key: string, externalId: number): string {
  return createHmac("sha512", `${reference}:${key}`).update(String(externalId)).digest("hex");
}

/** A customer holding `points`, credited by a manual adjustment as the back-office would. */
export async function customerWithPoints(
  pool: pg.Pool,
  storeId: number,
  externalId: number,
  points: number,
  email: string | null = null,
): Promise<number> {
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO customers (store_id, external_id, email) VALUES ($1, $2, $3) RETURNING id`,
    [storeId, externalId, email],
  );
  const customerId = (rows[0] as { id: number }).id;
  if (points !== 0) {
    await appendLedgerEntries(pool, [
      { storeId, customerId, kind: "manual_adjustment", points, note: "test credit" },
    ]);
  }
  return customerId;
}

export interface RewardFixture {
  name?: string;
  triggerValue: number;
  kind?: "fixed_amount" | "percentage" | "free_shipping";
  value?: number | null;
  currency?: string | null;
  minimumOrderAmount?: number | null;
  validityDays?: number | null;
  usageLimit?: number | null;
  active?: boolean;
}

/** A reward with its first voucher version; returns both ids. */
export async function addReward(
  pool: pg.Pool,
  storeId: number,
  reward: RewardFixture,
): Promise<{ rewardId: number; voucherId: number }> {
  const kind = reward.kind ?? "fixed_amount";
  const { rows } = await pool.query<{ reward_id: number; voucher_id: number }>(
    `WITH r AS (
       INSERT INTO rewards (store_id, name, description, trigger_value)
       VALUES ($1, $2, $3, $4) RETURNING id
     )
     INSERT INTO voucher_versions (reward_id, version, kind, value, currency,
                                   minimum_order_amount, validity_days, usage_limit, active)
     SELECT r.id, 1, $5, $6, $7, $8, $9, $10, $11 FROM r
     RETURNING reward_id, id AS voucher_id`,
    [
      storeId,
      reward.name ?? `Reward ${reward.triggerValue}`,
      `Costs ${reward.triggerValue} points`,
      reward.triggerValue,
      kind,
      reward.value === undefined ? (kind === "free_shipping" ? null : 5) : reward.value,
      reward.currency === undefined ? (kind === "fixed_amount" ? "EUR" : null) : reward.currency,
      reward.minimumOrderAmount ?? null,
      reward.validityDays === undefined ? 30 : reward.validityDays,
      reward.usageLimit ?? null,
      reward.active ?? true,
    ],
  );
  const row = rows[0] as { reward_id: number; voucher_id: number };
  return { rewardId: row.reward_id, voucherId: row.voucher_id };
}

/** Two events as the order code records them, for the webhook tests. */
export const pointsEarned: OutboxEvent = {
  type: "POINTS_EARNED",
  data: {
    order: { externalId: "1001", externalReference: "#1001" },
    customer: { externalId: 42 },
    points: 120,
    balance: 340,
  },
};
export const orderRegistered: OutboxEvent = {
  type: "ORDER_REGISTERED",
  data: {
    order: { externalId: "1001", externalReference: "#1001" },
    customer: { externalId: 42 },
    currency: "EUR",
    orderedAt: "2026-11-22T10:00:00.000Z",
  },
};

/** An order of one line of 10 EUR by customer 7, as a body of POST /api/order/register. */
export function oneLineOrder(externalId: number): string {
  return JSON.stringify({
    externalId,
    customer: { externalId: 7, email: "seven@example.com" },
    currency: "EUR",
    orderedAt: "2026-11-20T10:00:00Z",
    lines: [{ lineId: "1", productId: 1, quantity: 1, unitPrice: 10, totalPaid: 10 }],
  });
}

/** Registers order 1 of customer 7 (two items of 21.50 EUR) on a server, in the latest revision. */
export function registerFirstOrder(baseUrl: string, key: string): Promise<Response> {
  return fetch(`${baseUrl}/api/order/register`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: basic(key),
      revision: LATEST_REVISION,
    },
    body: JSON.stringify({
      externalId: 1,
      customer: { externalId: 7 },
      currency: "EUR",
      lines: [{ lineId: 1, productId: 5, categoryIds: [], quantity: 2, unitPrice: 21.5 }],
    }),
  });
}
