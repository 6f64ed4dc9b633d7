import type { Queryable } from "../../db/pool.js";
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

const HOUR_MS = 3_600_000;

/**
 * The ledger and the claims of the period, summed by UTC day and in all, in one statement.
 *
 * - The ledger's figures are its sums by day and kind (migration
 *   `20261129100000000_overview-sums`): the folded ones and the deltas not yet folded, read in
 *   one snapshot, so that a fold running meanwhile is seen whole or not at all. About 150 rows
 *   for 30 days, where the entries themselves were 795,000 (628 ms) on a store of 10M.
 * - Claims are read live, by reward_claims_by_store_time: a claim is released after it was
 *   counted, and the 11,000 claims of that store's month took 3 ms.
 * - An order's points are credited by its one earn entry (ledger_one_earn_per_order): earn
 *   entries count the orders credited. Released claims gave their points back and issued no
 *   code: they are no claims.
 * - Every day of the period is there, with zeros when nothing happened: a series of
 *   timestamps without time zone, each taken as a date (a series of dates would be one of the
 *   session's time zone).
 *
 * Its estimated cost stays far below jit_above_cost, even over a year (8,300 for the year's
 * 108,000 claims of that store): no JIT compilation, which cost more than it saved when the
 * statement read the entries.
 */
export async function periodActivity(
  db: Queryable,
  storeId: number,
  period: OverviewPeriod,
): Promise<{ flows: PointFlows; daily: DailyActivity[] }> {
  const { rows } = await db.query<PointFlows & { daily: DailyActivity[] }>(
    `WITH entries AS (
       SELECT day, kind, sum(entries) AS entries, sum(points) AS points
       FROM (
         SELECT day, kind, entries, points FROM ledger_day_sums
         WHERE store_id = $1 AND day BETWEEN $2::date AND $3::date
         UNION ALL
         SELECT day, kind, entries, points FROM ledger_day_deltas
         WHERE store_id = $1 AND day BETWEEN $2::date AND $3::date
       ) kept
       GROUP BY day, kind
     ), days AS (
       SELECT day,
              coalesce(sum(entries) FILTER (WHERE kind = 'earn'), 0) AS orders_credited,
              coalesce(sum(claims), 0) AS claims,
              coalesce(sum(points) FILTER (WHERE kind = 'earn'), 0) AS earned,
              coalesce(-sum(points) FILTER (WHERE kind = 'reward_redemption'), 0) AS redeemed
       FROM (
         SELECT day, kind, entries, points, NULL::bigint AS claims FROM entries
         UNION ALL
         SELECT (day AT TIME ZONE 'UTC')::date, NULL, NULL, NULL, claims
         FROM (
           SELECT date_bin('1 day', created_at, $4::timestamptz) AS day, count(*) AS claims
           FROM reward_claims
           WHERE store_id = $1 AND status <> 'released'
             AND created_at >= $4::timestamptz AND created_at < $5::timestamptz
           GROUP BY 1
         ) claimed
         UNION ALL
         SELECT day::date, NULL, NULL, NULL, NULL
         FROM generate_series($2::timestamp, $3::timestamp, interval '1 day') AS day
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
                      'date', to_char(day, 'YYYY-MM-DD'),
                      'ordersCredited', orders_credited,
                      'claims', claims,
                      'pointsEarned', earned,
                      'pointsRedeemed', redeemed) ORDER BY day)
             FROM days) AS daily
     FROM entries`,
    [storeId, period.from, period.to, period.start, period.end],
  );
  const { daily, ...flows } = rows[0] as PointFlows & { daily: DailyActivity[] };
  return { flows, daily };
}

export interface CustomerTotals {
  members: number;
  outstandingPoints: number;
}

/**
 * Members are the customers not erased. The points outstanding are every positive balance,
 * erased customers' included: erasure keeps the customer and their balance, which they can
 * still spend. Both kept by the customers' triggers (folded, and deltas not yet folded): a scan
 * of every customer took 208 ms for a store of 1M.
 */
export async function customerTotals(db: Queryable, storeId: number): Promise<CustomerTotals> {
  const { rows } = await db.query<CustomerTotals>(
    `SELECT coalesce(sum(members), 0)::int AS members,
            coalesce(sum(outstanding_points), 0)::bigint AS "outstandingPoints"
     FROM (
       SELECT members, outstanding_points FROM customer_totals WHERE store_id = $1
       UNION ALL
       SELECT members, outstanding_points FROM customer_total_deltas WHERE store_id = $1
     ) kept`,
    [storeId],
  );
  return rows[0] as CustomerTotals;
}

/**
 * Members (customers not erased) with a ledger entry between `since` and `now`, from the
 * members counted by the UTC hour of their last entry (last_entry_hours, kept by the ledger's
 * and the customers' triggers), whatever the store's size:
 *
 * - the members whose last entry is in an hour after the one of `since`;
 * - those whose last entry is in that hour, at `since` or later: the customers of the ledger's
 *   entries of that part of the hour (about 1,000 on a store of 10M) whose last entry it holds;
 * - less those whose entries from `since` on are all after `now` (none but with a clock moved
 *   back, or entries written with a date to come).
 *
 * Counting the distinct customers of the month's entries read 795,000 of them (960 ms) on that
 * store; counting an index of last entries, the 485,000 active (175 ms).
 */
export async function activeMembers(
  db: Queryable,
  storeId: number,
  since: Date,
  now: Date,
): Promise<number> {
  // The hour after the one of `since`, as date_bin cuts them (hours from a UTC midnight are
  // the epoch's): a parameter rather than SQL, so that the plan knows the ledger's range is
  // an hour's (a CTE's value hid it, and the plan read every customer).
  const nextHour = new Date((Math.floor(since.getTime() / HOUR_MS) + 1) * HOUR_MS);
  // As an object, so that the pool sends it unnamed (db/pool.ts): planned with its values each
  // time, never with a generic plan that cannot tell an hour of the ledger from a year of it.
  const { rows } = await db.query<{ active: number }>({
    text: `WITH later AS (
       SELECT coalesce(sum(members), 0) AS members
       FROM (
         SELECT members FROM last_entry_hours WHERE store_id = $1 AND hour >= $4
         UNION ALL
         SELECT members FROM last_entry_hour_deltas WHERE store_id = $1 AND hour >= $4
       ) kept
     ), first_hour AS (
       SELECT count(*) AS members
       FROM (
         SELECT DISTINCT customer_id FROM ledger_transactions
         WHERE store_id = $1 AND created_at >= $2 AND created_at < $4
       ) entered
       JOIN customer_last_entries l USING (customer_id)
       JOIN customers c ON c.id = entered.customer_id
       WHERE l.last_entry_at < $4 AND c.erased_at IS NULL
     ), ahead AS (
       SELECT count(*) AS members
       FROM (
         SELECT DISTINCT customer_id FROM ledger_transactions
         WHERE store_id = $1 AND created_at > $3
       ) entered
       JOIN customers c ON c.id = entered.customer_id
       WHERE c.erased_at IS NULL AND NOT EXISTS (
         SELECT 1 FROM ledger_transactions t
         WHERE t.customer_id = entered.customer_id AND t.created_at >= $2 AND t.created_at <= $3
       )
     )
     SELECT (later.members + first_hour.members - ahead.members)::int AS active
     FROM later, first_hour, ahead`,
    values: [storeId, since, now, nextHour],
  });
  return (rows[0] as { active: number }).active;
}

/**
 * Moves the deltas the triggers appended into the overview's sums, each table in one
 * statement: a reader sees the rows in the deltas or in the sums, never in both or neither.
 * Deltas appended by transactions not yet committed stay for the next fold; those of a store
 * deleted since are dropped with it. Returns the deltas folded.
 */
export async function foldOverviewDeltas(db: Queryable): Promise<number> {
  const folds = [
    `WITH folded AS (
       DELETE FROM ledger_day_deltas RETURNING store_id, day, kind, entries, points
     ), moved AS (
       INSERT INTO ledger_day_sums AS s (store_id, day, kind, entries, points)
       SELECT store_id, day, kind, sum(entries), sum(points) FROM folded
       WHERE store_id IN (SELECT id FROM stores)
       GROUP BY store_id, day, kind
       ON CONFLICT (store_id, day, kind) DO UPDATE
         SET entries = s.entries + excluded.entries, points = s.points + excluded.points
     )
     SELECT count(*)::int AS folded FROM folded`,
    `WITH folded AS (
       DELETE FROM last_entry_hour_deltas RETURNING store_id, hour, members
     ), moved AS (
       INSERT INTO last_entry_hours AS s (store_id, hour, members)
       SELECT store_id, hour, sum(members) FROM folded
       WHERE store_id IN (SELECT id FROM stores)
       GROUP BY store_id, hour
       ON CONFLICT (store_id, hour) DO UPDATE SET members = s.members + excluded.members
     )
     SELECT count(*)::int AS folded FROM folded`,
    `WITH folded AS (
       DELETE FROM customer_total_deltas RETURNING store_id, members, outstanding_points
     ), moved AS (
       INSERT INTO customer_totals AS s (store_id, members, outstanding_points)
       SELECT store_id, sum(members), sum(outstanding_points) FROM folded
       WHERE store_id IN (SELECT id FROM stores)
       GROUP BY store_id
       ON CONFLICT (store_id) DO UPDATE SET members = s.members + excluded.members,
         outstanding_points = s.outstanding_points + excluded.outstanding_points
     )
     SELECT count(*)::int AS folded FROM folded`,
  ];
  let folded = 0;
  for (const fold of folds) {
    const { rows } = await db.query<{ folded: number }>(fold);
    folded += rows[0]?.folded ?? 0;
  }
  return folded;
}

/**
 * Counts a store's overview figures again from its ledger and its customers, in place of what
 * the triggers kept: for rows written with triggers off (`session_replication_role = replica`,
 * as bench/store-generator.ts writes its stores). Nothing else may write the store's ledger or
 * customers meanwhile.
 */
export async function recountOverviewSums(db: Queryable, storeId: number): Promise<void> {
  // The migration's own count (20261129100000000_overview-sums), which it ran for every store.
  await db.query(`SELECT recount_overview_sums($1)`, [storeId]);
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
