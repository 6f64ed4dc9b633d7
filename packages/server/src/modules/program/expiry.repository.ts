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
 * Lifetime expiry, step one: the customers with lots whose warning time has come (`warningDays`
 * before they expire), up to `limit` lots, each warned once per warning window of what expires
 * within it. Their lots are marked warned: they may expire `warningDays` from now, never sooner.
 * A customer warned within the last window waits for the next one, so that a frequent buyer
 * receives one warning per window, not one per order.
 */
export async function warnLifetimeExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Batch<ExpiryWarning>> {
  const { rows } = await db.query<ExpiryWarning & { points: string; lots: number }>(
    `WITH due AS (
       SELECT l.ledger_id, l.customer_id
       FROM earning_lots l
       JOIN program_settings p ON p.store_id = l.store_id AND p.expiry_mode = 'lifetime'
       JOIN customers c ON c.id = l.customer_id
       WHERE l.warned_at IS NULL
         AND l.earned_at <= $1::timestamptz + p.expiry_warning_days * interval '1 day'
                            - p.expiry_months * interval '1 month'
         AND (c.expiry_warned_at IS NULL
              OR c.expiry_warned_at <= $1::timestamptz - p.expiry_warning_days * interval '1 day')
       ORDER BY l.earned_at LIMIT $2
       FOR UPDATE OF l SKIP LOCKED
     ), customer AS (
       SELECT c.id, c.store_id, c.external_id, c.email, c.erased_at, p.expiry_months AS months,
              p.expiry_warning_days AS warning_days,
              $1::timestamptz + p.expiry_warning_days * interval '1 day'
                - p.expiry_months * interval '1 month' AS horizon,
              ${FIGURES}
       FROM customers c JOIN program_settings p ON p.store_id = c.store_id
       WHERE c.id IN (SELECT customer_id FROM due)
     ), judged AS (
       SELECT customer.*,
              least(greatest((SELECT coalesce(sum(a.points), 0) FROM earning_lots a
                              WHERE a.customer_id = customer.id
                                AND a.earned_at <= customer.horizon) - consumed, 0),
                    greatest(spendable, 0)) AS points,
              (SELECT min(o.earned_at) FROM (
                 SELECT a.earned_at,
                        sum(a.points) OVER (ORDER BY a.earned_at, a.ledger_id) AS reached
                 FROM earning_lots a WHERE a.customer_id = customer.id
               ) o WHERE o.reached > consumed) AS oldest
       FROM customer
     ), marked AS (
       -- Every lot within the window is covered by this warning, the due ones of this batch
       -- and those of the customer a later batch would find.
       UPDATE earning_lots l SET warned_at = $1
       FROM judged
       WHERE l.customer_id = judged.id AND l.warned_at IS NULL AND l.earned_at <= judged.horizon
       RETURNING l.ledger_id
     ), remembered AS (
       UPDATE customers c SET expiry_warned_at = $1
       FROM judged WHERE c.id = judged.id AND judged.points > 0
       RETURNING c.id
     )
     SELECT store_id AS "storeId", id AS "customerId", external_id AS "externalId", points,
            greatest(oldest + months * interval '1 month',
                     $1::timestamptz + warning_days * interval '1 day') AS "expiresAt",
            warning_days > 0 AS announce,
            CASE WHEN erased_at IS NULL THEN email END AS email,
            (SELECT count(*) FROM due)::int AS lots,
            (SELECT count(*) FROM marked) + (SELECT count(*) FROM remembered) AS writes
     FROM judged
     ORDER BY store_id, id`,
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
 * Lifetime expiry, step two: customers whose warned lots reached their date (their lifetime,
 * and `warningDays` after their warning), up to `limit` lots, in the caller's transaction.
 * The customers are locked first, in (store, externalId) order as every statement locking
 * several does; then a second statement, whose snapshot sees every change committed before the
 * locks, weighs their lots: the points of their lots up to the newest due one still there are
 * what expires. The lots are settled.
 */
export async function dueLifetimeExpiry(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Batch<Expiring>> {
  const { rows: due } = await db.query<{ ledger_id: number }>(
    `WITH due AS (
       SELECT l.ledger_id, l.customer_id
       FROM earning_lots l
       JOIN program_settings p ON p.store_id = l.store_id AND p.expiry_mode = 'lifetime'
       WHERE l.settled_at IS NULL AND l.warned_at IS NOT NULL
         AND l.earned_at <= $1::timestamptz - p.expiry_months * interval '1 month'
         AND l.warned_at <= $1::timestamptz - p.expiry_warning_days * interval '1 day'
       ORDER BY l.earned_at LIMIT $2
       FOR UPDATE OF l SKIP LOCKED
     ), locked AS (
       SELECT c.id FROM customers c WHERE c.id IN (SELECT customer_id FROM due)
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
              least(greatest((SELECT coalesce(sum(a.points), 0) FROM earning_lots a
                              WHERE a.customer_id = c.id AND a.earned_at <= due.newest)
                             - ((SELECT coalesce(sum(a.points), 0) FROM earning_lots a
                                 WHERE a.customer_id = c.id) - c.balance), 0),
                    greatest(c.balance - c.pending_points - c.reserved_points, 0)) AS points
       FROM customers c JOIN due ON due.customer_id = c.id
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
       SELECT c.id, c.store_id, c.external_id, c.email, c.erased_at, c.last_activity_at,
              p.expiry_months AS months, p.expiry_warning_days AS warning_days,
              c.balance - c.pending_points - c.reserved_points AS points
       FROM customers c
       JOIN program_settings p ON p.store_id = c.store_id AND p.expiry_mode = 'inactivity'
       WHERE c.last_activity_at <= $1::timestamptz + p.expiry_warning_days * interval '1 day'
                                   - p.expiry_months * interval '1 month'
         AND (c.expiry_warned_at IS NULL OR c.expiry_warned_at < c.last_activity_at)
         AND c.balance - c.pending_points - c.reserved_points > 0
       ORDER BY c.last_activity_at LIMIT $2
       FOR NO KEY UPDATE OF c SKIP LOCKED
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
       SELECT c.id FROM customers c
       JOIN program_settings p ON p.store_id = c.store_id AND p.expiry_mode = 'inactivity'
       WHERE c.last_activity_at <= $1::timestamptz - p.expiry_months * interval '1 month'
         AND c.expiry_warned_at >= c.last_activity_at
         AND c.expiry_warned_at <= $1::timestamptz - p.expiry_warning_days * interval '1 day'
         AND c.balance - c.pending_points - c.reserved_points > 0
       ORDER BY c.last_activity_at LIMIT $2
     )
     SELECT c.store_id AS "storeId", c.id AS "customerId", c.external_id AS "externalId",
            c.balance - c.pending_points - c.reserved_points AS points
     FROM customers c
     JOIN program_settings p ON p.store_id = c.store_id AND p.expiry_mode = 'inactivity'
     WHERE c.id IN (SELECT id FROM due)
       AND c.last_activity_at <= $1::timestamptz - p.expiry_months * interval '1 month'
       AND c.expiry_warned_at >= c.last_activity_at
       AND c.balance - c.pending_points - c.reserved_points > 0
     ORDER BY c.store_id, c.external_id
     FOR NO KEY UPDATE OF c`,
    [now, limit],
  );
  const items = rows.map(({ points, ...row }) => ({ ...row, points: Number(points) }));
  return { processed: items.length, items };
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
              greatest(a.earned_at + $2 * interval '1 month',
                       coalesce(a.warned_at,
                                greatest($4::timestamptz,
                                         a.earned_at + $2 * interval '1 month'
                                           - $3 * interval '1 day'))
                         + $3 * interval '1 day') AS expires_at
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
