import type { ReferralProgram, VoucherKind, VoucherTerms } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { jobSql } from "../../jobs/queue.js";

export async function findReferralProgram(
  db: Queryable,
  storeId: number,
): Promise<ReferralProgram | undefined> {
  const { rows } = await db.query<{
    active: boolean;
    referrer_bonus: number;
    kind: VoucherKind;
    value: string | null;
    currency: string | null;
    minimum: string | null;
    validity_days: number | null;
    landing_url: string | null;
  }>(
    `SELECT active, referrer_bonus, referee_voucher_kind AS kind, referee_voucher_value AS value,
            referee_voucher_currency AS currency, referee_minimum_order_amount AS minimum,
            referee_validity_days AS validity_days, landing_url
     FROM referral_programs WHERE store_id = $1`,
    [storeId],
  );
  const row = rows[0];
  return (
    row && {
      active: row.active,
      referrerBonus: row.referrer_bonus,
      refereeVoucher: {
        kind: row.kind,
        value: row.value === null ? null : Number(row.value),
        currency: row.currency,
        minimumOrderAmount: row.minimum === null ? null : Number(row.minimum),
        validityDays: row.validity_days,
      },
      landingUrl: row.landing_url,
    }
  );
}

export async function saveReferralProgram(
  db: Queryable,
  storeId: number,
  program: ReferralProgram,
): Promise<void> {
  const voucher = program.refereeVoucher;
  await db.query(
    `INSERT INTO referral_programs
       (store_id, active, referrer_bonus, referee_voucher_kind, referee_voucher_value,
        referee_voucher_currency, referee_minimum_order_amount, referee_validity_days, landing_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (store_id) DO UPDATE SET active = excluded.active,
       referrer_bonus = excluded.referrer_bonus,
       referee_voucher_kind = excluded.referee_voucher_kind,
       referee_voucher_value = excluded.referee_voucher_value,
       referee_voucher_currency = excluded.referee_voucher_currency,
       referee_minimum_order_amount = excluded.referee_minimum_order_amount,
       referee_validity_days = excluded.referee_validity_days,
       landing_url = excluded.landing_url, updated_at = now()`,
    [
      storeId,
      program.active,
      program.referrerBonus,
      voucher.kind,
      voucher.value,
      voucher.currency,
      voucher.minimumOrderAmount,
      voucher.validityDays,
      program.landingUrl,
    ],
  );
}

/** The state of the store's referral of this (lower-cased) address, if there is one. */
export async function findReferralStatus(
  db: Queryable,
  storeId: number,
  email: string,
): Promise<"pending" | "completed" | undefined> {
  const { rows } = await db.query<{ status: "pending" | "completed" }>(
    `SELECT status FROM referrals WHERE store_id = $1 AND email = $2`,
    [storeId, email],
  );
  return rows[0]?.status;
}

export interface NewReferral {
  storeId: number;
  referrerCustomerId: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  language: string | null;
  hashDigest: Buffer;
  hashSealed: Buffer;
  refereeCode: string;
  referrerBonus: number;
  refereeVoucher: VoucherTerms;
}

const invitationJob = jobSql("send-referral-invitation", { referralId: "id" });

/**
 * Records a pending referral and the job that sends its invitation, in one statement. Undefined
 * when the address already has a referral (concurrent invitations: the unique index decides).
 */
export async function insertReferral(
  db: Queryable,
  referral: NewReferral,
): Promise<number | undefined> {
  const { rows } = await db.query<{ id: number }>(
    `WITH inserted AS (
       INSERT INTO referrals (store_id, referrer_customer_id, email, first_name, last_name,
         language, hash_digest, hash_sealed, referee_code, referrer_bonus, referee_voucher)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (store_id, email) DO NOTHING
       RETURNING id
     )
     SELECT id, graphile_worker.add_job($12::text, ${invitationJob.payload})
     FROM inserted`,
    [
      referral.storeId,
      referral.referrerCustomerId,
      referral.email,
      referral.firstName,
      referral.lastName,
      referral.language,
      referral.hashDigest,
      referral.hashSealed,
      referral.refereeCode,
      referral.referrerBonus,
      JSON.stringify(referral.refereeVoucher),
      invitationJob.task,
    ],
  );
  return rows[0]?.id;
}

export interface RefereeCodeRow {
  id: number;
  storeId: number;
  storeDomain: string;
  email: string;
  refereeCode: string;
  refereeVoucher: VoucherTerms;
  issuedAt: Date | null;
  expiresAt: Date | null;
}

const REFEREE_COLUMNS = `r.id, r.store_id AS "storeId", s.domain AS "storeDomain", r.email,
  r.referee_code AS "refereeCode", r.referee_voucher AS "refereeVoucher",
  r.referee_code_issued_at AS "issuedAt", r.referee_code_expires_at AS "expiresAt"`;

export async function findReferralByDigest(
  db: Queryable,
  digest: Buffer,
): Promise<RefereeCodeRow | undefined> {
  const { rows } = await db.query<RefereeCodeRow>(
    `SELECT ${REFEREE_COLUMNS} FROM referrals r JOIN stores s ON s.id = r.store_id
     WHERE r.hash_digest = $1`,
    [digest],
  );
  return rows[0];
}

/**
 * Records that the platform made the referee's code. The first record stands: a concurrent
 * request that made the same code again keeps the first expiry.
 */
export async function markRefereeCodeIssued(
  db: Queryable,
  referralId: number,
  expiresAt: Date | null,
): Promise<RefereeCodeRow> {
  const { rows } = await db.query<RefereeCodeRow>(
    `UPDATE referrals r SET
       referee_code_expires_at = CASE WHEN r.referee_code_issued_at IS NULL THEN $2
                                      ELSE r.referee_code_expires_at END,
       referee_code_issued_at = coalesce(r.referee_code_issued_at, now())
     FROM stores s
     WHERE r.id = $1 AND s.id = r.store_id
     RETURNING ${REFEREE_COLUMNS}`,
    [referralId, expiresAt],
  );
  return rows[0] as RefereeCodeRow;
}

export interface InvitationRow {
  id: number;
  email: string;
  firstName: string | null;
  language: string | null;
  hashSealed: Buffer | null;
  sentAt: Date | null;
  storeId: number;
  storeName: string;
  storeDomain: string;
  storeLanguage: string;
  landingUrl: string | null;
  referrerFirstName: string | null;
  refereeVoucher: VoucherTerms;
}

/** What the invitation email says, gathered in one query. */
export async function findInvitation(
  db: Queryable,
  referralId: number,
): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT r.id, r.email, r.first_name AS "firstName", r.language,
            r.hash_sealed AS "hashSealed", r.invitation_sent_at AS "sentAt",
            s.id AS "storeId", s.name AS "storeName", s.domain AS "storeDomain",
            s.language AS "storeLanguage", p.landing_url AS "landingUrl",
            c.first_name AS "referrerFirstName",
            r.referee_voucher AS "refereeVoucher"
     FROM referrals r
     JOIN stores s ON s.id = r.store_id
     JOIN customers c ON c.id = r.referrer_customer_id
     LEFT JOIN referral_programs p ON p.store_id = r.store_id
     WHERE r.id = $1`,
    [referralId],
  );
  return rows[0];
}

export async function markInvitationSent(db: Queryable, referralId: number): Promise<void> {
  await db.query(`UPDATE referrals SET invitation_sent_at = now() WHERE id = $1`, [referralId]);
}

const bonusJob = jobSql("credit-referral-bonus", { referralId: "id" });

/**
 * Completes the store's pending referrals of these customers' addresses, when the order being
 * credited is the referee's first, and queues the referrer's bonus (a job of its own: the
 * referrer's row is then locked alone, never among the buyers of the batch). A referrer who
 * ordered under the address they invited referred nobody: that referral stays pending.
 * Returns how many referrals completed.
 */
export async function completeReferrals(
  db: Queryable,
  storeId: number,
  referees: readonly { customerId: number; email: string }[],
): Promise<number> {
  if (referees.length === 0) return 0;
  const { rows } = await db.query<{ completed: number }>(
    `WITH completed AS (
       UPDATE referrals r SET status = 'completed', referee_customer_id = c.customer_id,
         completed_at = now()
       FROM unnest($2::bigint[], $3::text[]) AS c(customer_id, email)
       WHERE r.store_id = $1 AND r.status = 'pending' AND r.email = lower(c.email)
         AND r.referrer_customer_id <> c.customer_id
         -- The batch's own orders are still pending: a processed one came before.
         AND NOT EXISTS (SELECT 1 FROM orders o
                         WHERE o.customer_id = c.customer_id AND o.status = 'processed')
       RETURNING r.id, r.referrer_bonus
     ), jobs AS (
       SELECT graphile_worker.add_job($4::text, ${bonusJob.payload})
       FROM completed WHERE referrer_bonus > 0
     )
     SELECT (SELECT count(*) FROM completed)::int AS completed, (SELECT count(*) FROM jobs)`,
    [
      storeId,
      referees.map((referee) => referee.customerId),
      referees.map((r) => r.email),
      bonusJob.task,
    ],
  );
  return rows[0]?.completed ?? 0;
}

export interface BonusDue {
  storeId: number;
  referrerCustomerId: number;
  referrerBonus: number;
}

/**
 * The bonus a completed referral owes its referrer, locked, or undefined when it owes none (or
 * was credited already: the job runs at least once).
 */
export async function lockBonusDue(
  db: Queryable,
  referralId: number,
): Promise<BonusDue | undefined> {
  const { rows } = await db.query<BonusDue>(
    `SELECT r.store_id AS "storeId", r.referrer_customer_id AS "referrerCustomerId",
            r.referrer_bonus AS "referrerBonus"
     FROM referrals r
     WHERE r.id = $1 AND r.status = 'completed' AND r.referrer_bonus > 0
     FOR NO KEY UPDATE`,
    [referralId],
  );
  const due = rows[0];
  if (!due) return undefined;
  // After the lock: a job that waited for another one's credit sees it.
  const { rowCount } = await db.query(
    `SELECT 1 FROM ledger_transactions WHERE referral_id = $1 AND kind = 'referral_bonus'`,
    [referralId],
  );
  return rowCount === 0 ? due : undefined;
}
