import type { ClubPolicy, LedgerKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { clubFiguresOf, clubFiguresSql } from "../points/club-reviews.js";
import type { ClubFigures } from "../points/clubs.js";

/** A ledger transaction with what it concerns: its order's identifiers, its claim's reward. */
export interface HistoryTransactionRow {
  id: number;
  kind: LedgerKind;
  points: number;
  balance_after: number;
  order_external_id: string | null;
  order_external_reference: string | null;
  reward_id: number | null;
  voucher_code: string | null;
  referral_id: number | null;
  activity: { id: string; kind: string; label: string } | null;
  note: string | null;
  created_at: Date;
  pending_points: number;
  available_at: Date | null;
  /** A held earning whose lot the release job has not freed yet. */
  pending: boolean;
}

export interface CustomerHistoryPage {
  customer: {
    id: number;
    balance: number;
    pendingPoints: number;
    /** The club as last reviewed (kept until the end of its period by some policies). */
    held: { clubId: number | null; keptUntil: Date | null };
  };
  /** Newest first. */
  transactions: HistoryTransactionRow[];
  /** The customer's club figures, when asked for with their policy. */
  figures?: ClubFigures;
}

type PageRow = {
  position: number;
  customer_id: number;
  balance: number;
  customer_pending: number;
  held_club_id: number | null;
  held_kept_until: Date | null;
  figures_current?: number;
  figures_oldest?: Date | null;
  figures_previous?: number;
} & (HistoryTransactionRow | { [Column in keyof HistoryTransactionRow]: null });

/** A page of a customer's history: see customerHistoryPages. */
export interface HistoryPageQuery {
  storeId: number;
  externalId: number;
  beforeId: number | null;
  take: number | null;
}

/** One customer's history page (see customerHistoryPages). */
export async function customerHistoryPage(
  db: Queryable,
  query: HistoryPageQuery,
  clubs?: { policy: ClubPolicy; now: Date },
): Promise<CustomerHistoryPage | undefined> {
  const [page] = await customerHistoryPages(db, [query], clubs);
  return page;
}

/**
 * For each query, the customer's balance and up to `take` (all when null) of their
 * transactions older than `beforeId` (all when null), newest first, and with `clubs` their
 * club figures under that policy; undefined when the store has no such customer. One
 * statement, so they all come from the same snapshot, each customer's walking the
 * (customer_id, id DESC) index; many account pages asked for at once are read in one.
 */
export async function customerHistoryPages(
  db: Queryable,
  queries: readonly HistoryPageQuery[],
  clubs?: { policy: ClubPolicy; now: Date },
): Promise<(CustomerHistoryPage | undefined)[]> {
  const figures = clubs && clubFiguresSql(clubs.policy, clubs.now, "customer_id = c.id", 4);
  const { rows } = await db.query<PageRow>(
    `SELECT q.position, c.id AS customer_id, c.balance, c.pending_points AS customer_pending,
            c.club_id AS held_club_id, c.club_kept_until AS held_kept_until,
            ${figures ? "f.current AS figures_current, f.oldest AS figures_oldest, f.previous AS figures_previous," : ""}
            t.*
     FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[])
       WITH ORDINALITY AS q(store_id, external_id, before_id, take, position)
     JOIN customers c ON c.store_id = q.store_id AND c.external_id = q.external_id
     ${figures ? `CROSS JOIN LATERAL (SELECT ${figures.columns} FROM ${figures.from}) f` : ""}
     LEFT JOIN LATERAL (
       SELECT t.id, t.kind, t.points, t.balance_after, o.external_id AS order_external_id,
              o.external_reference AS order_external_reference, rc.reward_id,
              rc.code AS voucher_code, t.referral_id,
              CASE WHEN a.id IS NOT NULL THEN
                jsonb_build_object('id', a.activity_id, 'kind', a.kind, 'label', a.label)
              END AS activity,
              t.note, t.created_at, t.pending_points, t.available_at,
              lot.ledger_id IS NOT NULL AS pending
       FROM ledger_transactions t
       LEFT JOIN orders o ON o.id = t.order_id
       LEFT JOIN reward_claims rc ON rc.id = t.claim_id
       LEFT JOIN activities a ON a.id = t.activity_id
       LEFT JOIN earning_lots lot ON t.available_at IS NOT NULL AND lot.ledger_id = t.id
         AND lot.released_at IS NULL
       WHERE t.customer_id = c.id AND t.id < coalesce(q.before_id, 9223372036854775807)
       ORDER BY t.id DESC
       LIMIT q.take
     ) t ON true
     ORDER BY q.position, t.id DESC`,
    [
      queries.map((query) => query.storeId),
      queries.map((query) => query.externalId),
      queries.map((query) => query.beforeId),
      queries.map((query) => query.take),
      ...(figures?.values ?? []),
    ],
  );
  const pages: (CustomerHistoryPage | undefined)[] = queries.map(() => undefined);
  for (const {
    position,
    customer_id: id,
    balance,
    customer_pending: pendingPoints,
    held_club_id: clubId,
    held_kept_until: keptUntil,
    figures_current: current,
    figures_oldest: oldest,
    figures_previous: previous,
    ...row
  } of rows) {
    const index = Number(position) - 1;
    let page = pages[index];
    if (!page) {
      page = {
        customer: { id, balance, pendingPoints, held: { clubId, keptUntil } },
        transactions: [],
        ...(figures && {
          figures: clubFiguresOf({
            current: current ?? 0,
            oldest: oldest ?? null,
            previous: previous ?? 0,
          }),
        }),
      };
      pages[index] = page;
    }
    if (row.id !== null) page.transactions.push(row);
  }
  return pages;
}

/**
 * The transaction that took what the customer can spend below zero: their latest debit that is
 * neither a redemption (claims never overdraw) nor an expiry (never below zero).
 */
export async function latestOverdraft(
  db: Queryable,
  customerId: number,
): Promise<{ transactionId: number; kind: LedgerKind } | undefined> {
  const { rows } = await db.query<{ id: number; kind: LedgerKind }>(
    `SELECT id, kind FROM ledger_transactions
     WHERE customer_id = $1 AND points < 0 AND kind IN ('refund_deduction', 'manual_adjustment')
     ORDER BY id DESC LIMIT 1`,
    [customerId],
  );
  const row = rows[0];
  return row && { transactionId: row.id, kind: row.kind };
}

/** The external id of the store's customer with this email (any case), if the service knows one. */
export async function findCustomerIdByEmail(
  db: Queryable,
  storeId: number,
  email: string,
): Promise<number | undefined> {
  const { rows } = await db.query<{ external_id: number }>(
    `SELECT external_id FROM customers
     WHERE store_id = $1 AND lower(email) = lower($2) AND erased_at IS NULL
     ORDER BY id LIMIT 1`,
    [storeId, email],
  );
  return rows[0]?.external_id;
}

export interface CustomerRow {
  id: number;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

/**
 * The store's customer with this external id, created when the service meets them for the
 * first time through something other than an order (a referral they make).
 */
export async function ensureCustomer(
  db: Queryable,
  storeId: number,
  externalId: number,
): Promise<CustomerRow> {
  // DO UPDATE rather than DO NOTHING: the row comes back whoever created it, even when a
  // concurrent first referral of the same customer committed it meanwhile.
  const { rows } = await db.query<CustomerRow>(
    `INSERT INTO customers (store_id, external_id) VALUES ($1, $2)
     ON CONFLICT (store_id, external_id) DO UPDATE SET updated_at = customers.updated_at
     RETURNING id, email, first_name AS "firstName", last_name AS "lastName"`,
    [storeId, externalId],
  );
  return rows[0] as CustomerRow;
}
