import { MAX_EXTERNAL_ID, type ClubPolicy, type LedgerKind } from "@loyalty/shared-types";
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

/** A page's header row in the statements of customerHistoryPages and storefrontHistoryPages. */
type HeaderRow = {
  position: number;
  customer_id: number;
  balance: number;
  customer_pending: number;
  held_club_id: number | null;
  held_kept_until: Date | null;
  figures_current?: number;
  figures_oldest?: Date | null;
  figures_previous?: number;
};

type PageRow = HeaderRow &
  (HistoryTransactionRow | { [Column in keyof HistoryTransactionRow]: null });

/** A page of a customer's history to read: see customerHistoryPages. */
export interface HistoryPageQuery {
  storeId: number;
  externalId: number;
  beforeId: number | null;
  take: number | null;
}

/** One customer's history page, as the back-office shows it (see customerHistoryPages). */
export async function customerHistoryPage(
  db: Queryable,
  query: HistoryPageQuery,
  clubs?: { policy: ClubPolicy; now: Date },
): Promise<CustomerHistoryPage | undefined> {
  const [page] = await customerHistoryPages(db, [query], clubs);
  return page;
}

/**
 * The statement both page reads share: the queries' customers (found by store and external id,
 * with their club figures under `clubs`' policy), each joined to `transactions`, a LATERAL
 * subquery over their transactions (`t`) older than the query's `before_id`, newest first, with
 * what each concerns. `q` also has the query's `take`, and the `extra` columns' arrays follow.
 */
function pagesStatement(
  queries: readonly HistoryPageQuery[],
  clubs: { policy: ClubPolicy; now: Date } | undefined,
  select: string,
  transactions: (from: string) => string,
  extra: { column: string; type: string; values: unknown[] }[] = [],
): { text: string; values: unknown[] } {
  const figures =
    clubs && clubFiguresSql(clubs.policy, clubs.now, "customer_id = c.id", 4 + extra.length);
  const columns = ["store_id", "external_id", "before_id", "take", ...extra.map((e) => e.column)];
  const arrays = ["bigint", "bigint", "bigint", "int", ...extra.map((e) => e.type)]
    .map((type, index) => `$${index + 1}::${type}[]`)
    .join(", ");
  return {
    text: `SELECT q.position, c.id AS customer_id, c.balance, c.pending_points AS customer_pending,
            c.club_id AS held_club_id, c.club_kept_until AS held_kept_until,
            ${figures ? "f.current AS figures_current, f.oldest AS figures_oldest, f.previous AS figures_previous," : ""}
            ${select}
     FROM unnest(${arrays})
       WITH ORDINALITY AS q(${columns.join(", ")}, position)
     JOIN customers c ON c.store_id = q.store_id AND c.external_id = q.external_id
     ${figures ? `CROSS JOIN LATERAL (SELECT ${figures.columns} FROM ${figures.from}) f` : ""}
     ${transactions(`ledger_transactions t
       LEFT JOIN orders o ON o.id = t.order_id
       LEFT JOIN reward_claims rc ON rc.id = t.claim_id
       LEFT JOIN activities a ON a.id = t.activity_id
       LEFT JOIN earning_lots lot ON t.available_at IS NOT NULL AND lot.ledger_id = t.id
         AND lot.released_at IS NULL
       WHERE t.customer_id = c.id AND t.id < coalesce(q.before_id, 9223372036854775807)`)}`,
    values: [
      queries.map((query) => query.storeId),
      queries.map((query) => query.externalId),
      queries.map((query) => query.beforeId),
      queries.map((query) => query.take),
      ...extra.map((e) => e.values),
      ...(figures?.values ?? []),
    ],
  };
}

/** A page's customer, from its statement's header columns. */
function pageCustomer(
  row: HeaderRow,
  clubs: { policy: ClubPolicy; now: Date } | undefined,
): Omit<CustomerHistoryPage, "transactions"> {
  return {
    customer: {
      id: row.customer_id,
      balance: row.balance,
      pendingPoints: row.customer_pending,
      held: { clubId: row.held_club_id, keptUntil: row.held_kept_until },
    },
    ...(clubs && {
      figures: clubFiguresOf({
        current: row.figures_current ?? 0,
        oldest: row.figures_oldest ?? null,
        previous: row.figures_previous ?? 0,
      }),
    }),
  };
}

/**
 * For each query, the customer's balance and up to `take` (all when null) of their
 * transactions older than `beforeId` (all when null), newest first, and with `clubs` their
 * club figures under that policy; undefined when the store has no such customer. One
 * statement, so they all come from the same snapshot, each customer's walking the
 * (customer_id, id DESC) index. The back-office's reads; the storefront's are
 * storefrontHistoryPages.
 */
export async function customerHistoryPages(
  db: Queryable,
  queries: readonly HistoryPageQuery[],
  clubs?: { policy: ClubPolicy; now: Date },
): Promise<(CustomerHistoryPage | undefined)[]> {
  const { text, values } = pagesStatement(
    queries,
    clubs,
    "t.*",
    (from) => `LEFT JOIN LATERAL (
       SELECT t.id, t.kind, t.points, t.balance_after, o.external_id AS order_external_id,
              o.external_reference AS order_external_reference, rc.reward_id,
              rc.code AS voucher_code, t.referral_id,
              CASE WHEN a.id IS NOT NULL THEN
                jsonb_build_object('id', a.activity_id, 'kind', a.kind, 'label', a.label)
              END AS activity,
              t.note, t.created_at, t.pending_points, t.available_at,
              lot.ledger_id IS NOT NULL AS pending
       FROM ${from}
       ORDER BY t.id DESC
       LIMIT q.take
     ) t ON true
     ORDER BY q.position, t.id DESC`,
  );
  const { rows } = await db.query<PageRow>(text, values);
  const pages: (CustomerHistoryPage | undefined)[] = queries.map(() => undefined);
  for (const row of rows) {
    const index = Number(row.position) - 1;
    let page = pages[index];
    if (!page) {
      page = { ...pageCustomer(row, clubs), transactions: [] };
      pages[index] = page;
    }
    if (row.id !== null) {
      const {
        position: _position,
        customer_id: _customer,
        balance: _balance,
        customer_pending: _pending,
        held_club_id: _club,
        held_kept_until: _kept,
        figures_current: _current,
        figures_oldest: _oldest,
        figures_previous: _previous,
        ...transaction
      } = row;
      page.transactions.push(transaction);
    }
  }
  return pages;
}

/** A storefront account page to read: `limit` transactions at most (0: none). */
export interface StorefrontPageQuery extends Omit<HistoryPageQuery, "take"> {
  limit: number;
  /** Revision 2026-01-01 names an order by `externalRef`, later ones by number and reference. */
  legacyOrderRef: boolean;
}

/** A storefront account page: its transactions as the JSON array the history answers with. */
export interface StorefrontHistoryPage extends Omit<CustomerHistoryPage, "transactions"> {
  /** The page's transactions, newest first: a JSON array, written by PostgreSQL. */
  transactionsJson: string;
  /** The last transaction of the page, when a next page exists (older transactions remain). */
  nextBeforeId: number | null;
}

/** An instant as JSON gives it (Date's toISOString: UTC, milliseconds, `Z`). */
const ISO_INSTANT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * storefrontHistoryPages' transaction, in the order and with the names of the history's
 * transactions (CustomerHistoryResponse): from 2026-06-18 an order is named by number (an
 * identifier stored as a plainly written whole number, within MAX_EXTERNAL_ID) and reference;
 * in 2026-01-01 by `externalRef`.
 */
const TRANSACTION_JSON = `row_to_json((SELECT x FROM (SELECT
         t.id, t.kind, t.points, t.balance_after AS "balanceAfter", rc.reward_id AS "rewardId",
         rc.code AS "voucherCode", t.referral_id AS "referralId",
         CASE WHEN a.id IS NOT NULL THEN
           (SELECT row_to_json(y) FROM (SELECT a.activity_id AS id, a.kind, a.label) y)
         END AS activity,
         t.note, to_char(t.created_at AT TIME ZONE 'UTC', ${ISO_INSTANT}) AS "createdAt",
         t.pending_points AS "pendingPoints",
         to_char(t.available_at AT TIME ZONE 'UTC', ${ISO_INSTANT}) AS "availableAt",
         lot.ledger_id IS NOT NULL AS pending,
         CASE WHEN o.id IS NULL THEN NULL
           WHEN q.legacy THEN (SELECT row_to_json(y) FROM (SELECT o.external_id AS "externalRef") y)
           ELSE (SELECT row_to_json(y) FROM (SELECT
             -- A CASE tries its conditions in turn: only a plain number of 16 digits or fewer
             -- is cast (an AND would not promise to test the pattern first).
             CASE WHEN o.external_id !~ '^(0|[1-9][0-9]{0,15})$' THEN to_json(o.external_id)
               WHEN o.external_id::bigint <= ${MAX_EXTERNAL_ID} THEN to_json(o.external_id::bigint)
               ELSE to_json(o.external_id) END AS "externalId",
             o.external_reference AS "externalReference") y)
         END AS "order") x))::text`;

/**
 * The storefront's account pages (GET user-history), as customerHistoryPages reads them, with
 * each page's transactions written by PostgreSQL as the JSON the history answers with: a
 * page's 20 rows are one text value, which node neither parses nor maps nor serialises again
 * (in a profile of the history under load, that work was a third of the server's time).
 */
export async function storefrontHistoryPages(
  db: Queryable,
  queries: readonly StorefrontPageQuery[],
  clubs: { policy: ClubPolicy; now: Date },
): Promise<(StorefrontHistoryPage | undefined)[]> {
  const { text, values } = pagesStatement(
    // One more than the page: whether a next page exists.
    queries.map((query) => ({ ...query, take: query.limit === 0 ? 0 : query.limit + 1 })),
    clubs,
    "p.items, p.fetched, p.last_id",
    (from) => `CROSS JOIN LATERAL (
       SELECT '[' || coalesce(string_agg(p.item, ',' ORDER BY p.id DESC)
                                FILTER (WHERE p.n < q.take), '') || ']' AS items,
              count(*) AS fetched, min(p.id) FILTER (WHERE p.n < q.take) AS last_id
       FROM (
         SELECT t.id, row_number() OVER (ORDER BY t.id DESC) AS n, ${TRANSACTION_JSON} AS item
         FROM ${from}
         ORDER BY t.id DESC
         LIMIT q.take
       ) p
     ) p
     ORDER BY q.position`,
    [{ column: "legacy", type: "boolean", values: queries.map((query) => query.legacyOrderRef) }],
  );
  const { rows } = await db.query<
    HeaderRow & { items: string; fetched: number; last_id: number | null }
  >(text, values);
  const pages: (StorefrontHistoryPage | undefined)[] = queries.map(() => undefined);
  for (const row of rows) {
    const index = Number(row.position) - 1;
    const { limit } = queries[index] as StorefrontPageQuery;
    pages[index] = {
      ...pageCustomer(row, clubs),
      transactionsJson: row.items,
      nextBeforeId: limit > 0 && row.fetched > limit ? row.last_id : null,
    };
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
