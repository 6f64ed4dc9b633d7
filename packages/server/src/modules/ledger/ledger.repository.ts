import type { LedgerKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** A change of a customer's balance, with what caused it. */
export interface LedgerEntry {
  storeId: number;
  customerId: number;
  kind: LedgerKind;
  /** Signed, never zero. */
  points: number;
  orderId?: number | null;
  refundId?: number | null;
  claimId?: number | null;
  referralId?: number | null;
  /** The activity rewarded (activity bonus). */
  activityId?: number | null;
  note?: string | null;
  /**
   * A credit held by the store's pending period: counted in the balance, not spendable before
   * this date (an earning lot that the release job frees).
   */
  availableAt?: Date | null;
}

/** What appending did to each entry's customer, in the order of the entries. */
export interface AppendedEntry {
  id: number;
  balanceAfter: number;
  /** How the entry moved the pending points: +held credit, −pending points a refund took back. */
  pendingPoints: number;
}

/**
 * Appends entries to the ledger and moves the balances by the same amounts, in the caller's
 * transaction: the balance is always the sum of the ledger. Entries of one customer are
 * chained in the order given.
 *
 * Every credit becomes an earning lot, which expiry reads oldest first. A credit with
 * `availableAt` is held: it counts in the balance and in the customer's pending points until the
 * release job frees its lot. A refund deduction lowers its order's lot. Every entry but an
 * expiry is the customer's activity. A refund deduction of an order whose points are
 * still held takes them back from the held lot first, so what the customer could spend is not
 * touched by points they could not spend.
 *
 * Locks: held lots first, then the customers' rows in (store, externalId) order, as the release
 * job does and as every statement locking several customers does, so that two batches never
 * wait on each other in a cycle.
 */
export async function appendLedgerEntries(
  db: Queryable,
  entries: readonly LedgerEntry[],
  /** The service's clock: the entries' date, when the points are earned, the customers' last activity. */
  now: Date = new Date(),
): Promise<AppendedEntry[]> {
  if (entries.length === 0) return [];
  // Refunds within the pending period: one statement per deduction (a job applies one at a
  // time), each taking back at most what it deducts and what is still held.
  const pending = entries.map(() => 0);
  for (const [index, entry] of entries.entries()) {
    if (entry.availableAt) {
      pending[index] = entry.points;
    } else if (entry.kind === "refund_deduction" && entry.orderId && entry.points < 0) {
      // The order's own lot gives its points back, pending or not: the lot and the balance
      // drop together, so what the customer consumed (the lots' sum less the balance) is not
      // touched, and the refund never takes the oldest points' place for expiry.
      const { rows } = await db.query<{ voided: number; held: boolean }>(
        `WITH lot AS (
           SELECT ledger_id, least(points, $2) AS voided FROM earning_lots
           WHERE order_id = $1 AND points > 0
           ORDER BY ledger_id LIMIT 1
           FOR UPDATE
         )
         UPDATE earning_lots l SET points = l.points - lot.voided
         FROM lot WHERE l.ledger_id = lot.ledger_id
         RETURNING lot.voided, l.released_at IS NULL AS held`,
        [entry.orderId, -entry.points],
      );
      const lot = rows[0];
      if (lot?.held) pending[index] = -lot.voided;
    }
  }
  const totals = new Map<number, { points: number; pending: number; active: boolean }>();
  for (const [index, entry] of entries.entries()) {
    const total = totals.get(entry.customerId) ?? { points: 0, pending: 0, active: false };
    total.points += entry.points;
    total.pending += pending[index] as number;
    total.active ||= entry.kind !== "expiry";
    totals.set(entry.customerId, total);
  }
  const ids = [...totals.keys()];
  const { rows } = await db.query<{ id: number; balance: number }>(
    `WITH locked AS (
       -- In (store, externalId) order, as every statement locking several customers does: an
       -- UPDATE locks its rows in whatever order its plan reads them (on a small table, the
       -- heap's), and two batches sharing customers then deadlocked. Cheap for customers the
       -- caller locked already (the order worker's, a claim's, expiry's).
       SELECT c.id, d.points, d.pending, d.active
       FROM customers c
       JOIN unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::boolean[])
         AS d(id, points, pending, active) ON d.id = c.id
       -- = ANY: the customers by their primary key's index. Joined on d alone, a batch of
       -- thousands (the expiry job's) is planned as a scan of every customer, hashed.
       WHERE c.id = ANY ($1::bigint[])
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     )
     -- Each locked customer by its primary key: the batch is read once, in the lock's order.
     UPDATE customers c SET balance = c.balance + locked.points,
       pending_points = c.pending_points + locked.pending,
       last_activity_at = CASE WHEN locked.active THEN $5 ELSE c.last_activity_at END,
       updated_at = now()
     FROM locked WHERE c.id = locked.id
     RETURNING c.id, c.balance`,
    [
      ids,
      ids.map((id) => totals.get(id)?.points),
      ids.map((id) => totals.get(id)?.pending),
      ids.map((id) => totals.get(id)?.active),
      now,
    ],
  );
  // Walk each customer's entries from the balance before the batch.
  const running = new Map(
    rows.map((row) => [row.id, row.balance - (totals.get(row.id)?.points ?? 0)]),
  );
  const balances = entries.map((entry) => {
    const after = (running.get(entry.customerId) ?? 0) + entry.points;
    running.set(entry.customerId, after);
    return after;
  });
  const inserted = await db.query<{ id: number; position: number }>(
    `WITH entry AS (
       INSERT INTO ledger_transactions
         (store_id, customer_id, kind, points, balance_after, order_id, refund_id, claim_id,
          referral_id, note, pending_points, available_at, activity_id, created_at)
       SELECT store_id, customer_id, kind, points, balance_after, order_id, refund_id, claim_id,
              referral_id, note, pending_points, available_at, activity_id, $13
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[],
                   $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::text[],
                   $11::bigint[], $12::timestamptz[], $14::bigint[])
       WITH ORDINALITY AS e(store_id, customer_id, kind, points, balance_after, order_id,
                            refund_id, claim_id, referral_id, note, pending_points, available_at,
                            activity_id, position)
       ORDER BY position
       RETURNING id, store_id, customer_id, order_id, points, available_at
     ), lot AS (
       INSERT INTO earning_lots
         (ledger_id, store_id, customer_id, order_id, points, available_at, released_at,
          earned_at)
       SELECT id, store_id, customer_id, order_id, points, coalesce(available_at, $13),
              CASE WHEN available_at IS NULL THEN $13::timestamptz END, $13
       FROM entry WHERE points > 0
     )
     SELECT id FROM entry ORDER BY id`,
    [
      entries.map((e) => e.storeId),
      entries.map((e) => e.customerId),
      entries.map((e) => e.kind),
      entries.map((e) => e.points),
      balances,
      entries.map((e) => e.orderId ?? null),
      entries.map((e) => e.refundId ?? null),
      entries.map((e) => e.claimId ?? null),
      entries.map((e) => e.referralId ?? null),
      entries.map((e) => e.note ?? null),
      pending,
      entries.map((e) => e.availableAt ?? null),
      now,
      entries.map((e) => e.activityId ?? null),
    ],
  );
  // Identities are drawn in the insert's order, which is the entries' order.
  return entries.map((_entry, index) => ({
    id: inserted.rows[index]?.id as number,
    balanceAfter: balances[index] as number,
    pendingPoints: pending[index] as number,
  }));
}

/**
 * Frees up to `limit` held lots whose date has come (`now`, the service's clock): their points
 * stay in the balance and leave the pending points. Lots another transaction holds (a refund
 * taking points back) are skipped, and freed by the next batch. Returns the lots freed.
 */
export async function releaseDueLots(db: Queryable, now: Date, limit: number): Promise<number> {
  const { rows } = await db.query<{ released: number }>(
    `WITH due AS (
       SELECT ledger_id, customer_id, points FROM earning_lots
       WHERE released_at IS NULL AND available_at <= $1
       ORDER BY available_at LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), per_customer AS (
       SELECT customer_id, sum(points) AS points FROM due GROUP BY customer_id
     ), locked AS (
       -- In (store, externalId) order, as every statement locking several customers does.
       SELECT c.id, per_customer.points FROM customers c
       JOIN per_customer ON per_customer.customer_id = c.id
       -- The primary key's index, whatever the estimate of the batch.
       WHERE c.id = ANY (ARRAY(SELECT customer_id FROM per_customer))
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     ), moved AS (
       UPDATE customers c SET pending_points = c.pending_points - locked.points,
         updated_at = now()
       FROM locked WHERE c.id = locked.id
       RETURNING c.id
     ), released AS (
       UPDATE earning_lots l SET released_at = $1
       FROM due WHERE l.ledger_id = due.ledger_id
       RETURNING l.ledger_id
     )
     SELECT (SELECT count(*) FROM released)::int AS released, (SELECT count(*) FROM moved)`,
    [now, limit],
  );
  return rows[0]?.released ?? 0;
}

/**
 * The kinds that count as "points earned" for clubs: what orders, referrals and activities brought,
 * net of what refunds took back. Spending points on rewards never demotes a customer.
 */
export const CLUB_EARNING_KINDS: readonly LedgerKind[] = [
  "earn",
  "refund_deduction",
  "referral_bonus",
  "activity_bonus",
];

/** Points each customer earned since `since` (rolling 12 months for clubs); absent = 0. */
export async function pointsEarnedSince(
  db: Queryable,
  customerIds: readonly number[],
  since: Date,
): Promise<Map<number, number>> {
  if (customerIds.length === 0) return new Map();
  const { rows } = await db.query<{ customer_id: number; earned: number }>(
    `SELECT customer_id, sum(points)::bigint AS earned
     FROM ledger_transactions
     WHERE customer_id = ANY ($1::bigint[]) AND kind = ANY ($2::text[]) AND created_at >= $3
     GROUP BY customer_id`,
    [customerIds, CLUB_EARNING_KINDS, since],
  );
  return new Map(rows.map((row) => [row.customer_id, Math.max(0, row.earned)]));
}

/** Twelve months before `now`: the window clubs are measured on. */
export function clubWindowStart(now: Date): Date {
  const start = new Date(now);
  start.setUTCFullYear(start.getUTCFullYear() - 1);
  return start;
}
