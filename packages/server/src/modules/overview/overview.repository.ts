import type pg from "pg";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { ISSUED } from "../rewards/rewards.repository.js";

/** Whole UTC days: `from` and `to` included, `start` and `end` the instants around them. */
export interface OverviewPeriod {
  from: string;
  to: string;
  /** Midnight UTC opening `from`. */
  start: Date;
  /** Midnight UTC closing `to` (excluded). */
  end: Date;
}

/** Points moved during the period, by cause, each as a positive number but `adjusted`. */
export interface PointFlows {
  earned: number;
  bonuses: number;
  redeemed: number;
  deducted: number;
  adjusted: number;
  expired: number;
}

export interface DailyActivity {
  date: string;
  ordersCredited: number;
  claims: number;
  pointsEarned: number;
  pointsRedeemed: number;
}

/**
 * The ledger and the claims of the period, summed by UTC day and in all, in one statement.
 *
 * - Days are cut with date_bin from the period's first midnight: arithmetic on the instant,
 *   where `created_at AT TIME ZONE 'UTC'` looks the zone up for every row (three times slower).
 * - Entries are summed by day and kind (two aggregates a row), then spread into columns: seven
 *   filtered aggregates a row cost 40 % more over a year of a large store.
 * - An order's points are credited by its one earn entry (ledger_one_earn_per_order): earn
 *   entries count the orders credited. Released claims gave their points back and issued no
 *   code: they are no claims.
 * - Every day of the period is there, with zeros when nothing happened: a series of
 *   timestamps without time zone, each put at UTC (a series of dates would be one of the
 *   session's time zone).
 *
 * Run it with `withoutJit`: over a year it costs enough for PostgreSQL to compile it, which
 * takes longer than compiling saves.
 */
export async function periodActivity(
  db: Queryable,
  storeId: number,
  period: OverviewPeriod,
): Promise<{ flows: PointFlows; daily: DailyActivity[] }> {
  const { rows } = await db.query<PointFlows & { daily: DailyActivity[] }>(
    `WITH entries AS (
       SELECT date_bin('1 day', created_at, $2::timestamptz) AS day, kind,
              count(*) AS entries, sum(points) AS points
       FROM ledger_transactions
       WHERE store_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz
       GROUP BY 1, 2
     ), days AS (
       SELECT day,
              coalesce(sum(entries) FILTER (WHERE kind = 'earn'), 0) AS orders_credited,
              coalesce(sum(claims), 0) AS claims,
              coalesce(sum(points) FILTER (WHERE kind = 'earn'), 0) AS earned,
              coalesce(-sum(points) FILTER (WHERE kind = 'reward_redemption'), 0) AS redeemed
       FROM (
         SELECT day, kind, entries, points, NULL::bigint AS claims FROM entries
         UNION ALL
         SELECT date_bin('1 day', created_at, $2::timestamptz), NULL, NULL, NULL, count(*)
         FROM reward_claims
         WHERE store_id = $1 AND status <> 'released'
           AND created_at >= $2::timestamptz AND created_at < $3::timestamptz
         GROUP BY 1
         UNION ALL
         SELECT day AT TIME ZONE 'UTC', NULL, NULL, NULL, NULL
         FROM generate_series($4::timestamp, $5::timestamp, interval '1 day') AS day
       ) activity
       GROUP BY day
     )
     SELECT coalesce(sum(points) FILTER (WHERE kind = 'earn'), 0)::bigint AS earned,
            coalesce(sum(points) FILTER (WHERE kind = 'referral_bonus'), 0)::bigint AS bonuses,
            coalesce(-sum(points) FILTER (WHERE kind = 'reward_redemption'), 0)::bigint
              AS redeemed,
            coalesce(-sum(points) FILTER (WHERE kind = 'refund_deduction'), 0)::bigint
              AS deducted,
            coalesce(sum(points) FILTER (WHERE kind = 'manual_adjustment'), 0)::bigint
              AS adjusted,
            coalesce(-sum(points) FILTER (WHERE kind = 'expiry'), 0)::bigint AS expired,
            (SELECT json_agg(json_build_object(
                      'date', to_char(day AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
                      'ordersCredited', orders_credited,
                      'claims', claims,
                      'pointsEarned', earned,
                      'pointsRedeemed', redeemed) ORDER BY day)
             FROM days) AS daily
     FROM entries`,
    [storeId, period.start, period.end, period.from, period.to],
  );
  const { daily, ...flows } = rows[0] as PointFlows & { daily: DailyActivity[] };
  return { flows, daily };
}

/**
 * Runs `work` on one connection of the pool with JIT compilation off. PostgreSQL compiles a
 * statement whose estimated cost passes jit_above_cost: for these aggregates, compiling (tens
 * of milliseconds) costs more than it saves.
 */
export async function withoutJit<T>(
  pool: pg.Pool,
  work: (db: Queryable) => Promise<T>,
): Promise<T> {
  return withTransaction(pool, async (client) => {
    await client.query("SET LOCAL jit = off");
    return work(client);
  });
}

export interface CustomerTotals {
  members: number;
  outstandingPoints: number;
}

/**
 * Members are the customers not erased. The points outstanding are every positive balance,
 * erased customers' included: erasure keeps the customer and their balance, which they can
 * still spend.
 */
export async function customerTotals(db: Queryable, storeId: number): Promise<CustomerTotals> {
  const { rows } = await db.query<CustomerTotals>(
    `SELECT count(*) FILTER (WHERE erased_at IS NULL)::int AS members,
            coalesce(sum(balance) FILTER (WHERE balance > 0), 0)::bigint AS "outstandingPoints"
     FROM customers WHERE store_id = $1`,
    [storeId],
  );
  return rows[0] as CustomerTotals;
}

/**
 * Members (customers not erased) with a ledger entry between `since` and `now`: the distinct
 * customers of the entries, less the erased ones (few, found by customers_erased). Joining the
 * store's customers to the entries instead cost three times as much for a large store.
 */
export async function activeMembers(
  db: Queryable,
  storeId: number,
  since: Date,
  now: Date,
): Promise<number> {
  const { rows } = await db.query<{ active: number }>(
    `SELECT count(DISTINCT customer_id)::int AS active
     FROM ledger_transactions l
     WHERE store_id = $1 AND created_at >= $2 AND created_at <= $3
       AND NOT EXISTS (
         SELECT 1 FROM customers c
         WHERE c.id = l.customer_id AND c.store_id = $1 AND c.erased_at IS NOT NULL
       )`,
    [storeId, since, now],
  );
  return (rows[0] as { active: number }).active;
}

/** An active reward whose current voucher is a fixed amount, at its value per point. */
export interface FixedAmountReward {
  rewardId: number;
  /** The amount off, in hundredths of the currency. */
  valueCents: number;
  triggerValue: number;
}

/**
 * Of the rewards a customer can obtain now (their current voucher version active, with codes
 * left to issue, as the storefront lists them), the one whose fixed amount takes the most of
 * `currency` off per point; ties go to the oldest reward.
 */
export async function bestFixedAmountReward(
  db: Queryable,
  storeId: number,
  currency: string,
): Promise<FixedAmountReward | undefined> {
  const { rows } = await db.query<FixedAmountReward>(
    `SELECT r.id AS "rewardId", round(v.value * 100)::bigint AS "valueCents",
            r.trigger_value AS "triggerValue"
     FROM rewards r
     JOIN voucher_versions v ON v.reward_id = r.id AND v.superseded_at IS NULL
     WHERE r.store_id = $1 AND v.active AND v.kind = 'fixed_amount' AND v.currency = $2
       AND (v.usage_limit IS NULL OR v.usage_limit > ${ISSUED})
     ORDER BY v.value / r.trigger_value DESC, r.id
     LIMIT 1`,
    [storeId, currency],
  );
  return rows[0];
}

export interface TopReward {
  rewardId: number;
  name: string;
  claims: number;
  points: number;
}

/** The rewards claimed most in the period (released claims aside), with the points they took. */
export async function topRewards(
  db: Queryable,
  storeId: number,
  period: OverviewPeriod,
  limit: number,
): Promise<TopReward[]> {
  const { rows } = await db.query<TopReward>(
    `SELECT c.reward_id AS "rewardId", r.name, c.claims, c.points
     FROM (
       SELECT reward_id, count(*)::int AS claims, sum(points)::bigint AS points
       FROM reward_claims
       WHERE store_id = $1 AND status <> 'released' AND created_at >= $2 AND created_at < $3
       GROUP BY reward_id
       ORDER BY claims DESC, points DESC, reward_id
       LIMIT $4
     ) c
     JOIN rewards r ON r.id = c.reward_id
     ORDER BY c.claims DESC, c.points DESC, c.reward_id`,
    [storeId, period.start, period.end, limit],
  );
  return rows;
}
