import type { Queryable } from "../../db/pool.js";

/**
 * Expiry reads the customer's earning lots oldest first. Spending never touches a lot: what the
 * customer consumed (spent, had deducted, had expire) is the sum of their lots less their
 * balance, and the consumed points are the oldest. So the points of the lots earned up to a
 * date that are still there are that prefix's sum less what was consumed, never more than what
 * the customer can spend (pending points and points held by claims never expire).
 */
const FIGURES = `
  (SELECT coalesce(sum(a.points), 0) FROM earning_lots a WHERE a.customer_id = c.id)
    - c.balance AS consumed,
  c.balance - c.pending_points - c.reserved_points AS spendable`;

/** A warning to give: what expires when, for a customer of a store. */
export interface ExpiryWarning {
  storeId: number;
  customerId: number;
  externalId: number;
  points: number;
  expiresAt: Date;
  /** The store warns ahead (warning days above 0): an event and an email, else none. */
  announce: boolean;
  email: string | null;
}

/** What one batch found to do, and how many rows it went through (`limit`: there may be more). */
export interface Batch<T> {
  processed: number;
  items: T[];
}

/** Points to expire now, for a customer of a store. */
export interface Expiring {
  storeId: number;
  customerId: number;
  externalId: number;
  points: number;
}

/**
 * When a lot expires once warned: its lifetime, and never sooner than `warningDays` after its
 * warning (`a` the lot, `p` the store's settings, `$1` now). Kept on the lot when it is warned,
 * so that the date announced stands whatever the settings become.
 */
const ANNOUNCED = `greatest(a.earned_at + p.expiry_months * interval '1 month',
                            $1::timestamptz + p.expiry_warning_days * interval '1 day')`;

/**
 * Lifetime expiry, step one: the customers with lots whose warning time has come (`warningDays`
 * before their lifetime ends), up to `limit` lots, each customer warned once per warning window
 * of all that expires within it. Every lot the warning covers gets its date: the later of its
 * lifetime and `warningDays` from now. A customer warned within the last window waits for the
 * next, so that a frequent buyer gets one warning a window, not one an order; a customer warned
 * by an earlier batch of this run has their lots dated without a second warning.
 *
 * Locks: the due lots (skipping those another transaction holds), then the customers in
 * (store, externalId) order, as every statement locking several does. Only the locked lots are
 * written: the others are a later batch's.
 */
export async function warnLifetimeExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Batch<ExpiryWarning>> {
  const { rows } = await db.query<ExpiryWarning & { points: string; lots: number }>(
    `WITH due AS (
       -- Per store whose points expire by lifetime: its lots not warned yet whose warning time
       -- has come (the range on earned_at reads the index; the exact test follows).
       SELECT l.ledger_id, l.customer_id, p.store_id
       FROM program_settings p
       CROSS JOIN LATERAL (
         SELECT a.ledger_id, a.customer_id, a.earned_at FROM earning_lots a
         JOIN customers c ON c.id = a.customer_id
         WHERE a.store_id = p.store_id AND a.warned_at IS NULL
           AND a.earned_at <= $1::timestamptz + p.expiry_warning_days * interval '1 day'
                              - p.expiry_months * interval '1 month' + interval '3 days'
           AND a.earned_at + p.expiry_months * interval '1 month'
                 <= $1::timestamptz + p.expiry_warning_days * interval '1 day'
           AND (c.expiry_warned_at IS NULL OR c.expiry_warned_at = $1
                OR c.expiry_warned_at <= $1::timestamptz
                                         - p.expiry_warning_days * interval '1 day')
         ORDER BY a.earned_at LIMIT $2
         FOR UPDATE OF a SKIP LOCKED
       ) l
       WHERE p.expiry_mode = 'lifetime'
       LIMIT $2
     ), locked AS (
       SELECT c.id, c.store_id, c.external_id, c.email, c.erased_at, c.balance,
              c.expiry_warned_at = $1 AS already
       -- = ANY (ARRAY(...)): the primary key's index, whatever the estimate of the batch.
       FROM customers c WHERE c.id = ANY (ARRAY(SELECT customer_id FROM due))
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     ), announced AS (
       -- The date the warning gives each customer: the earliest of their due lots'.
       SELECT due.customer_id, min(${ANNOUNCED}) AS expires_at
       FROM due
       JOIN earning_lots a ON a.ledger_id = due.ledger_id
       JOIN program_settings p ON p.store_id = due.store_id
       GROUP BY due.customer_id
     ), judged AS (
       SELECT locked.*, p.expiry_months AS months, p.expiry_warning_days AS warning_days,
              -- What expires within the window unless spent: the lots earned up to its end
              -- less what was consumed (the oldest first), at most the balance. Points held by
              -- a claim or still pending count: they may be spendable by then.
              least(greatest(lots.within - (lots.earned - locked.balance), 0),
                    greatest(locked.balance, 0)) AS points,
              announced.expires_at
       FROM locked
       JOIN program_settings p ON p.store_id = locked.store_id
       JOIN announced ON announced.customer_id = locked.id
       -- One walk of the customer's lots for both sums.
       CROSS JOIN LATERAL (
         SELECT coalesce(sum(a.points), 0) AS earned,
                coalesce(sum(a.points) FILTER (
                  WHERE a.earned_at + p.expiry_months * interval '1 month'
                          <= $1::timestamptz + p.expiry_warning_days * interval '1 day'), 0)
                  AS within
         FROM earning_lots a WHERE a.customer_id = locked.id
       ) lots
     ), marked AS (
       UPDATE earning_lots a SET warned_at = $1, expires_at = ${ANNOUNCED}
       FROM due JOIN program_settings p ON p.store_id = due.store_id
       WHERE a.ledger_id = due.ledger_id
       RETURNING a.ledger_id
     ), remembered AS (
       UPDATE customers c SET expiry_warned_at = $1
       FROM judged WHERE c.id = judged.id AND judged.points > 0 AND NOT judged.already
       RETURNING c.id
     )
     SELECT store_id AS "storeId", id AS "customerId", external_id AS "externalId",
            CASE WHEN already THEN 0 ELSE points END AS points,
            expires_at AS "expiresAt", warning_days > 0 AS announce,
            CASE WHEN erased_at IS NULL THEN email END AS email,
            (SELECT count(*) FROM due)::int AS lots,
            (SELECT count(*) FROM marked) + (SELECT count(*) FROM remembered) AS writes
     FROM judged
     ORDER BY store_id, external_id`,
    [now, limit],
  );
  return {
    processed: rows[0]?.lots ?? 0,
    items: rows
      .map(({ points, lots: _lots, ...row }) => ({ ...row, points: Number(points) }))
      .filter((warning) => warning.points > 0),
  };
}

/**
 * Lifetime expiry, step two: customers whose warned lots reached the date their warning gave
 * (and their lifetime under the settings of now, should it have grown), up to `limit` lots, in
 * the caller's transaction. The customers are locked first, in (store, externalId) order; then
 * a second statement, whose snapshot sees every change committed before the locks, weighs their
 * lots: the points of their lots up to the newest due one still there are what expires, never
 * more than they can spend. The lots are settled.
 */
export async function dueLifetimeExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Batch<Expiring>> {
  const { rows: due } = await db.query<{ ledger_id: number }>(
    `WITH due AS (
       SELECT l.ledger_id, l.customer_id
       FROM program_settings p
       CROSS JOIN LATERAL (
         SELECT a.ledger_id, a.customer_id FROM earning_lots a
         WHERE a.store_id = p.store_id AND a.settled_at IS NULL AND a.expires_at <= $1
           AND a.earned_at <= $1::timestamptz - p.expiry_months * interval '1 month'
                              + interval '3 days'
           AND a.earned_at + p.expiry_months * interval '1 month' <= $1
         ORDER BY a.earned_at LIMIT $2
         FOR UPDATE OF a SKIP LOCKED
       ) l
       WHERE p.expiry_mode = 'lifetime'
       LIMIT $2
     ), locked AS (
       SELECT c.id FROM customers c WHERE c.id = ANY (ARRAY(SELECT customer_id FROM due))
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     )
     SELECT ledger_id, (SELECT count(*) FROM locked) AS customers FROM due`,
    [now, limit],
  );
  if (due.length === 0) return { processed: 0, items: [] };
  const { rows } = await db.query<Expiring & { points: string }>(
    `WITH due AS (
       SELECT l.customer_id, max(l.earned_at) AS newest
       FROM earning_lots l WHERE l.ledger_id = ANY ($2::bigint[])
       GROUP BY l.customer_id
     ), judged AS (
       SELECT c.id, c.store_id, c.external_id,
              least(greatest(lots.within - (lots.earned - c.balance), 0),
                    greatest(c.balance - c.pending_points - c.reserved_points, 0)) AS points
       FROM customers c JOIN due ON due.customer_id = c.id
       -- One walk of the customer's lots for both sums.
       CROSS JOIN LATERAL (
         SELECT coalesce(sum(a.points), 0) AS earned,
                coalesce(sum(a.points) FILTER (WHERE a.earned_at <= due.newest), 0) AS within
         FROM earning_lots a WHERE a.customer_id = c.id
       ) lots
     ), settled AS (
       UPDATE earning_lots l SET settled_at = $1 WHERE l.ledger_id = ANY ($2::bigint[])
       RETURNING l.ledger_id
     )
     SELECT store_id AS "storeId", id AS "customerId", external_id AS "externalId", points,
            (SELECT count(*) FROM settled) AS writes
     FROM judged WHERE points > 0
     ORDER BY store_id, external_id`,
    [now, due.map((lot) => lot.ledger_id)],
  );
  return {
    processed: due.length,
    items: rows.map(({ points, ...row }) => ({ ...row, points: Number(points) })),
  };
}

/**
 * Inactivity expiry, step one: customers with points to spend whose last activity is
 * `months − warningDays` old, not warned since it, up to `limit`. Warned once per inactive
 * spell: their points may expire `warningDays` from now, never sooner.
 */
export async function warnInactivityExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Batch<ExpiryWarning>> {
  const { rows } = await db.query<ExpiryWarning & { points: string }>(
    `WITH due AS (
       -- Per store whose points expire with inactivity: its customers (an index on the
       -- activity date would cost every balance update its HOT update).
       SELECT c.*, p.expiry_months AS months, p.expiry_warning_days AS warning_days
       FROM program_settings p
       CROSS JOIN LATERAL (
         SELECT c.id, c.store_id, c.external_id, c.email, c.erased_at, c.last_activity_at,
                c.balance - c.pending_points - c.reserved_points AS points
         FROM customers c
         WHERE c.store_id = p.store_id
           AND c.last_activity_at + p.expiry_months * interval '1 month'
                 <= $1::timestamptz + p.expiry_warning_days * interval '1 day'
           AND (c.expiry_warned_at IS NULL OR c.expiry_warned_at < c.last_activity_at)
           AND c.balance - c.pending_points - c.reserved_points > 0
         ORDER BY c.last_activity_at LIMIT $2
         -- Never waits: a customer busy now is warned by the next run.
         FOR NO KEY UPDATE OF c SKIP LOCKED
       ) c
       WHERE p.expiry_mode = 'inactivity'
       LIMIT $2
     ), remembered AS (
       UPDATE customers c SET expiry_warned_at = $1 FROM due WHERE c.id = due.id
       RETURNING c.id
     )
     SELECT store_id AS "storeId", id AS "customerId", external_id AS "externalId", points,
            greatest(last_activity_at + months * interval '1 month',
                     $1::timestamptz + warning_days * interval '1 day') AS "expiresAt",
            warning_days > 0 AS announce,
            CASE WHEN erased_at IS NULL THEN email END AS email,
            (SELECT count(*) FROM remembered) AS writes
     FROM due ORDER BY store_id, id`,
    [now, limit],
  );
  const items = rows.map(({ points, ...row }) => ({ ...row, points: Number(points) }));
  return { processed: items.length, items };
}

/**
 * Inactivity expiry, step two: customers warned of this inactive spell long enough ago whose
 * last activity is `months` old: every point they can spend expires. Up to `limit`, locked in
 * (store, externalId) order; the conditions are checked again on each row as the lock finds it
 * (a claim or an order meanwhile is activity, and stops it).
 */
export async function dueInactivityExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Batch<Expiring>> {
  const { rows } = await db.query<Expiring & { points: string }>(
    `WITH due AS (
       SELECT c.id
       FROM program_settings p
       CROSS JOIN LATERAL (
         SELECT c.id FROM customers c
         WHERE c.store_id = p.store_id
           AND c.last_activity_at + p.expiry_months * interval '1 month' <= $1
           AND c.expiry_warned_at >= c.last_activity_at
           AND c.expiry_warned_at <= $1::timestamptz - p.expiry_warning_days * interval '1 day'
           AND c.balance - c.pending_points - c.reserved_points > 0
         ORDER BY c.last_activity_at LIMIT $2
         -- Never waits: a customer busy now (or another lane's) is the next batch's.
         FOR NO KEY UPDATE OF c SKIP LOCKED
       ) c
       WHERE p.expiry_mode = 'inactivity'
       LIMIT $2
     )
     SELECT c.store_id AS "storeId", c.id AS "customerId", c.external_id AS "externalId",
            c.balance - c.pending_points - c.reserved_points AS points
     FROM customers c
     JOIN program_settings p ON p.store_id = c.store_id AND p.expiry_mode = 'inactivity'
     WHERE c.id = ANY (ARRAY(SELECT id FROM due))
       AND c.last_activity_at + p.expiry_months * interval '1 month' <= $1
       AND c.expiry_warned_at >= c.last_activity_at
       AND c.balance - c.pending_points - c.reserved_points > 0
     ORDER BY c.store_id, c.external_id
     FOR NO KEY UPDATE OF c`,
    [now, limit],
  );
  const items = rows.map(({ points, ...row }) => ({ ...row, points: Number(points) }));
  return { processed: items.length, items };
}

/** After an inactivity expiry: points the customers can spend later need a new warning. */
export async function clearInactivityWarnings(
  db: Queryable,
  customerIds: readonly number[],
): Promise<void> {
  if (customerIds.length === 0) return;
  await db.query(`UPDATE customers SET expiry_warned_at = NULL WHERE id = ANY ($1::bigint[])`, [
    customerIds,
  ]);
}

/**
 * The next points of a customer to expire, and when, under their store's policy; undefined
 * when none will.
 */
export async function nextExpiry(
  db: Queryable,
  customerId: number,
  policy: { mode: "lifetime" | "inactivity"; months: number; warningDays: number },
  now: Date,
): Promise<{ points: number; expiresAt: Date } | undefined> {
  if (policy.mode === "inactivity") {
    const { rows } = await db.query<{ points: string; expires_at: Date }>(
      `SELECT c.balance - c.pending_points - c.reserved_points AS points,
              greatest(c.last_activity_at + $2 * interval '1 month',
                       CASE WHEN c.expiry_warned_at >= c.last_activity_at THEN c.expiry_warned_at
                            ELSE greatest($4::timestamptz,
                                          c.last_activity_at + $2 * interval '1 month'
                                            - $3 * interval '1 day') END
                         + $3 * interval '1 day') AS expires_at
       FROM customers c WHERE c.id = $1`,
      [customerId, policy.months, policy.warningDays, now],
    );
    const row = rows[0];
    return row && Number(row.points) > 0
      ? { points: Number(row.points), expiresAt: row.expires_at }
      : undefined;
  }
  // Each lot's date: its lifetime, and never sooner than `warningDays` after its warning (a lot
  // not warned yet will be when its warning time comes, or now when that has passed).
  const { rows } = await db.query<{ points: string; expires_at: Date }>(
    `WITH c AS (
       SELECT c.id, ${FIGURES} FROM customers c WHERE c.id = $1
     ), lots AS (
       SELECT a.points,
              sum(a.points) OVER (ORDER BY a.earned_at, a.ledger_id) AS reached,
              -- The date its warning gave, else the one it will give.
              greatest(a.earned_at + $2 * interval '1 month',
                       coalesce(a.expires_at,
                                greatest($4::timestamptz,
                                         a.earned_at + $2 * interval '1 month'
                                           - $3 * interval '1 day')
                                  + $3 * interval '1 day')) AS expires_at
       FROM earning_lots a WHERE a.customer_id = $1
     ), left_over AS (
       SELECT expires_at,
              least(points, greatest(reached - (SELECT consumed FROM c), 0)) AS points
       FROM lots
     ), first AS (
       SELECT min(expires_at) AS expires_at FROM left_over WHERE points > 0
     )
     SELECT least(sum(left_over.points), greatest((SELECT spendable FROM c), 0)) AS points,
            (SELECT expires_at FROM first) AS expires_at
     FROM left_over
     WHERE left_over.points > 0
       AND left_over.expires_at < (SELECT expires_at FROM first) + interval '1 day'`,
    [customerId, policy.months, policy.warningDays, now],
  );
  const row = rows[0];
  return row && row.expires_at && Number(row.points) > 0
    ? { points: Number(row.points), expiresAt: row.expires_at }
    : undefined;
}

/** Who a warning email goes to, and in which words: undefined when it cannot go. */
export async function findExpiryRecipient(db: Queryable, customerId: number) {
  const { rows } = await db.query<{
    email: string;
    firstName: string | null;
    language: string;
    storeName: string;
    storeUrl: string;
  }>(
    `SELECT c.email, c.first_name AS "firstName",
            coalesce(c.language, s.language) AS language,
            coalesce(nullif(s.name, ''), split_part(s.domain, '://', 2)) AS "storeName",
            s.domain AS "storeUrl"
     FROM customers c JOIN stores s ON s.id = c.store_id
     WHERE c.id = $1 AND c.email IS NOT NULL AND c.erased_at IS NULL`,
    [customerId],
  );
  return rows[0];
}
