import type { RefundStatus } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** A customer as the back-office sees them. */
export interface AdminCustomerRow {
  id: number;
  externalId: number;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  language: string | null;
  balance: number;
  reservedPoints: number;
  pendingPoints: number;
  createdAt: Date;
  erasedAt: Date | null;
}

const CUSTOMER_COLUMNS = `id, external_id AS "externalId", email, first_name AS "firstName",
  last_name AS "lastName", language, balance, reserved_points AS "reservedPoints",
  pending_points AS "pendingPoints", created_at AS "createdAt", erased_at AS "erasedAt"`;

export async function findAdminCustomer(
  db: Queryable,
  storeId: number,
  externalId: number,
): Promise<AdminCustomerRow | undefined> {
  const { rows } = await db.query<AdminCustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE store_id = $1 AND external_id = $2`,
    [storeId, externalId],
  );
  return rows[0];
}

/** Which of a store's customers a back-office search asks for. */
export type CustomerFilter =
  | { by: "all" }
  /** The start of the address, taken literally and in any case. */
  | { by: "emailPrefix"; prefix: string }
  /** Digits: the customer with that id, and those whose address starts with them. */
  | { by: "externalIdOrEmailPrefix"; externalId: number; prefix: string };

/** `%`, `_` and the escape character itself match only themselves in a LIKE pattern. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

// Lower-cased by PostgreSQL, as the index is: the pattern operator class of customers_by_email
// turns the literal prefix into a range of that index. The pattern is a constant by the time
// the statement is planned: the search is sent unnamed (see `searchCustomers`), planned with its
// values each time, never with a generic plan that would walk the store's every customer.
const EMAIL_PREFIX = "lower(email) LIKE lower($4)";

/** Each filter's condition and its values, numbered from `$4`. */
function condition(filter: CustomerFilter): { sql: string; values: unknown[] } {
  switch (filter.by) {
    case "all":
      return { sql: "true", values: [] };
    case "emailPrefix":
      return { sql: EMAIL_PREFIX, values: [`${escapeLike(filter.prefix)}%`] };
    case "externalIdOrEmailPrefix":
      // Each side is a range of its own index ((store_id, external_id), customers_by_email): the
      // planner ORs the two and sorts the few rows found or, for a prefix many addresses share,
      // walks the store's ids backwards as it does for the prefix alone.
      return {
        sql: `(${EMAIL_PREFIX} OR external_id = $5)`,
        values: [`${escapeLike(filter.prefix)}%`, filter.externalId],
      };
  }
}

/**
 * A page of the store's customers matching `filter`, newest first: `take` of them older than
 * `beforeId` (from the newest when null). Erased customers are listed, without their email.
 */
export async function searchCustomers(
  db: Queryable,
  storeId: number,
  filter: CustomerFilter,
  page: { beforeId: number | null; take: number },
): Promise<AdminCustomerRow[]> {
  const { sql, values } = condition(filter);
  // As an object: the pool prepares statements given as text (db/pool.ts), not these.
  const { rows } = await db.query<AdminCustomerRow>({
    text: `SELECT ${CUSTOMER_COLUMNS} FROM customers
     WHERE store_id = $1 AND id < coalesce($2::bigint, 9223372036854775807) AND ${sql}
     ORDER BY id DESC
     LIMIT $3`,
    values: [storeId, page.beforeId, page.take, ...values],
  });
  return rows;
}

/**
 * The customer, locked until the caller's transaction ends: what they may spend is judged on
 * this row, and claims (which lock it the same way) wait for the decision.
 */
export async function lockAdminCustomer(
  db: Queryable,
  storeId: number,
  externalId: number,
): Promise<AdminCustomerRow | undefined> {
  const { rows } = await db.query<AdminCustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE store_id = $1 AND external_id = $2
     FOR NO KEY UPDATE`,
    [storeId, externalId],
  );
  return rows[0];
}

/**
 * Makes the caller's transaction (before its first query) read one snapshot, so that the
 * parts of an export agree with each other.
 */
export async function readOneSnapshot(db: Queryable): Promise<void> {
  await db.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
}

export interface CustomerOrderRow {
  externalId: string;
  externalReference: string | null;
  currency: string;
  orderedAt: Date;
  pointsEarned: number | null;
  pointsDeducted: number;
  refundStatus: RefundStatus | null;
  payload: unknown;
}

/** The customer's orders, newest first, pending ones (not yet tied to their row) included. */
export async function customerOrders(
  db: Queryable,
  storeId: number,
  externalId: number,
): Promise<CustomerOrderRow[]> {
  const { rows } = await db.query<CustomerOrderRow>(
    `SELECT external_id AS "externalId", external_reference AS "externalReference", currency,
            ordered_at AS "orderedAt", points_earned AS "pointsEarned",
            points_deducted AS "pointsDeducted", refund_status AS "refundStatus", payload
     FROM orders WHERE store_id = $1 AND customer_external_id = $2
     ORDER BY ordered_at DESC, id DESC`,
    [storeId, externalId],
  );
  return rows;
}

export interface CustomerClaimRow {
  rewardId: number;
  code: string;
  points: number;
  status: "reserved" | "confirmed" | "released";
  expiresAt: Date | null;
  createdAt: Date;
}

export async function customerClaims(
  db: Queryable,
  customerId: number,
): Promise<CustomerClaimRow[]> {
  const { rows } = await db.query<CustomerClaimRow>(
    `SELECT reward_id AS "rewardId", code, points, status, expires_at AS "expiresAt",
            created_at AS "createdAt"
     FROM reward_claims WHERE customer_id = $1 ORDER BY id DESC`,
    [customerId],
  );
  return rows;
}

export interface ReferralMadeRow {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  status: "pending" | "completed";
  createdAt: Date;
  completedAt: Date | null;
}

/** The invitations the customer sent. */
export async function referralsMadeBy(
  db: Queryable,
  customerId: number,
): Promise<ReferralMadeRow[]> {
  const { rows } = await db.query<ReferralMadeRow>(
    `SELECT id, email, first_name AS "firstName", last_name AS "lastName", status,
            created_at AS "createdAt", completed_at AS "completedAt"
     FROM referrals WHERE referrer_customer_id = $1 ORDER BY id DESC`,
    [customerId],
  );
  return rows;
}

export interface ReferredByRow {
  referralId: number;
  referrerExternalId: number;
  /** Only once the platform made it: until the referee asks, the code exists nowhere else. */
  refereeCode: string | null;
}

/**
 * The invitation the customer came by (it names them as its referee), or else the one still
 * pending for their address.
 */
export async function referralOfReferee(
  db: Queryable,
  customer: { storeId: number; id: number; email: string | null },
): Promise<ReferredByRow | undefined> {
  const { rows } = await db.query<ReferredByRow>(
    `SELECT r.id AS "referralId", referrer.external_id AS "referrerExternalId",
            CASE WHEN r.referee_code_issued_at IS NOT NULL THEN r.referee_code END
              AS "refereeCode"
     FROM referrals r JOIN customers referrer ON referrer.id = r.referrer_customer_id
     WHERE r.store_id = $1 AND (r.referee_customer_id = $2 OR r.email = lower($3))
     ORDER BY r.referee_customer_id = $2 DESC NULLS LAST, r.id
     LIMIT 1`,
    [customer.storeId, customer.id, customer.email],
  );
  return rows[0];
}

/**
 * Erases what the service holds about a customer, in the caller's transaction, and returns the
 * erased row; undefined when the store has no such customer. Running it again erases what came
 * since (an order registered meanwhile) and keeps the first erasure's time.
 *
 * What stays: the customer's row with its external id (the store's own identifier, needed to
 * apply refunds of their orders), balance and reserved points, the orders' amounts and lines,
 * and the ledger, which is append-only (a trigger refuses any UPDATE). A note an admin wrote on
 * a manual adjustment may hold personal data, and stays with it. Outbox events name customers
 * by external id only: nothing to erase there.
 */
export async function eraseCustomer(
  db: Queryable,
  storeId: number,
  externalId: number,
): Promise<AdminCustomerRow | undefined> {
  // The orders first, then the customer, then the referrals: the order worker locks them in
  // that order too, so the two never wait on each other in a cycle. A worker that was crediting
  // a pending order has committed what it copied from the payload by the time this runs on.
  const { rows: orderEmails } = await db.query<{ email: string }>(
    `WITH own AS (
       SELECT id, payload -> 'customer' ->> 'email' AS email FROM orders
       WHERE store_id = $1 AND customer_external_id = $2
       -- In id order, as the order and refund batches lock them.
       ORDER BY id
       FOR NO KEY UPDATE
     ), scrubbed AS (
       -- Processing and refunds read the lines and the customer's external id, nothing else
       -- of the customer.
       UPDATE orders o SET payload = jsonb_set(o.payload, '{customer}',
         jsonb_build_object('externalId', o.payload -> 'customer' -> 'externalId'))
       FROM own WHERE o.id = own.id
     )
     SELECT DISTINCT lower(email) AS email FROM own WHERE email IS NOT NULL`,
    [storeId, externalId],
  );
  const customer = await lockAdminCustomer(db, storeId, externalId);
  if (!customer) return undefined;
  const { rows: erased } = await db.query<AdminCustomerRow>(
    `UPDATE customers SET email = NULL, first_name = NULL, last_name = NULL, language = NULL,
       erased_at = coalesce(erased_at, now()), updated_at = now()
     WHERE id = $1
     RETURNING ${CUSTOMER_COLUMNS}`,
    [customer.id],
  );
  const emails = [
    ...new Set([
      ...orderEmails.map((row) => row.email),
      ...(customer.email ? [customer.email.toLowerCase()] : []),
    ]),
  ];
  // The invitations naming the customer as referee, by their row or by any address they used.
  // `email` is NOT NULL and unique per store: it becomes an address of the reserved `.invalid`
  // domain (RFC 2606), which nothing delivers to and no real address has, so that erasing again
  // leaves it alone. Without the sealed hash no invitation can be sent any more, and a new
  // digest unlinks the hash the referee holds from the record.
  const { rows: referrals } = await db.query<{ email: string; refereeCode: string | null }>(
    `WITH own AS (
       SELECT id, email, referee_code FROM referrals
       WHERE store_id = $1 AND (referee_customer_id = $2 OR email = ANY ($3::text[]))
         AND email NOT LIKE '%@invalid'
       FOR NO KEY UPDATE
     ), scrubbed AS (
       UPDATE referrals r SET
         email = 'erased-' || replace(gen_random_uuid()::text, '-', '') || '@invalid',
         first_name = NULL, last_name = NULL, language = NULL, hash_sealed = NULL,
         hash_digest = sha256(convert_to(gen_random_uuid()::text, 'UTF8'))
       FROM own WHERE r.id = own.id
     )
     SELECT email, referee_code AS "refereeCode" FROM own`,
    [storeId, customer.id, emails],
  );
  // The codes a sandbox store made for them: their claims' codes, and their referee code.
  await db.query(
    `UPDATE sandbox_discount_codes SET customer_email = NULL
     WHERE store_id = $1 AND customer_email IS NOT NULL
       AND (customer_external_id = $2 OR lower(customer_email) = ANY ($3::text[])
            OR code = ANY ($4::text[]))`,
    [
      storeId,
      externalId,
      [...emails, ...referrals.map((referral) => referral.email)],
      referrals.flatMap((referral) => (referral.refereeCode ? [referral.refereeCode] : [])),
    ],
  );
  return erased[0];
}
