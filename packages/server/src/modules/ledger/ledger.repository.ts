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
  note?: string | null;
}

/**
 * Appends entries to the ledger and moves the balances by the same amounts, in the caller's
 * transaction: the balance is always the sum of the ledger. Entries of one customer are
 * chained in the order given. Returns each entry's balance after it.
 *
 * The customers' rows are locked by the UPDATE; callers that lock several customers lock
 * them earlier in a stable order, so that two batches never wait on each other.
 */
export async function appendLedgerEntries(
  db: Queryable,
  entries: readonly LedgerEntry[],
): Promise<number[]> {
  if (entries.length === 0) return [];
  const totals = new Map<number, number>();
  for (const entry of entries) {
    totals.set(entry.customerId, (totals.get(entry.customerId) ?? 0) + entry.points);
  }
  const ids = [...totals.keys()].sort((a, b) => a - b);
  const { rows } = await db.query<{ id: number; balance: number }>(
    `UPDATE customers c SET balance = c.balance + d.points, updated_at = now()
     FROM unnest($1::bigint[], $2::bigint[]) AS d(id, points)
     WHERE c.id = d.id
     RETURNING c.id, c.balance`,
    [ids, ids.map((id) => totals.get(id))],
  );
  // Walk each customer's entries from the balance before the batch.
  const running = new Map(rows.map((row) => [row.id, row.balance - (totals.get(row.id) ?? 0)]));
  const balances = entries.map((entry) => {
    const after = (running.get(entry.customerId) ?? 0) + entry.points;
    running.set(entry.customerId, after);
    return after;
  });
  await db.query(
    `INSERT INTO ledger_transactions
       (store_id, customer_id, kind, points, balance_after, order_id, refund_id, claim_id,
        referral_id, note)
     SELECT store_id, customer_id, kind, points, balance_after, order_id, refund_id, claim_id,
            referral_id, note
     FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[],
                          $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::text[])
     WITH ORDINALITY AS e(store_id, customer_id, kind, points, balance_after, order_id,
                          refund_id, claim_id, referral_id, note, position)
     ORDER BY position`,
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
    ],
  );
  return balances;
}

/**
 * The kinds that count as "points earned" for clubs: what orders and referrals brought,
 * net of what refunds took back. Spending points on rewards never demotes a customer.
 */
export const CLUB_EARNING_KINDS: readonly LedgerKind[] = [
  "earn",
  "refund_deduction",
  "referral_bonus",
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
