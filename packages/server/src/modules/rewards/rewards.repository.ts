import type { Reward, Voucher, VoucherKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { STORE_CHANGED_CHANNEL } from "../../db/store-changes.js";

interface VoucherColumns {
  voucher_id: number;
  version: number;
  kind: VoucherKind;
  value: string | null;
  currency: string | null;
  minimum_order_amount: string | null;
  validity_days: number | null;
  usage_limit: number | null;
}

function toVoucher(row: VoucherColumns): Voucher {
  return {
    version: row.version,
    kind: row.kind,
    value: row.value === null ? null : Number(row.value),
    currency: row.currency,
    minimumOrderAmount: row.minimum_order_amount === null ? null : Number(row.minimum_order_amount),
    validityDays: row.validity_days,
    usageLimit: row.usage_limit,
  };
}

const VOUCHER_COLUMNS = `v.id AS voucher_id, v.version, v.kind, v.value, v.currency,
  v.minimum_order_amount, v.validity_days, v.usage_limit`;

/** Codes a voucher version has issued or is issuing: every claim not given back. */
const ISSUED = `(SELECT count(*) FROM reward_claims c
                 WHERE c.voucher_version_id = v.id AND c.status <> 'released')`;

/**
 * The store's rewards a customer can obtain now, cheapest first: those whose current voucher
 * version is active and has codes left to issue.
 */
export async function listObtainableRewards(db: Queryable, storeId: number): Promise<Reward[]> {
  const { rows } = await db.query<
    VoucherColumns & {
      id: number;
      name: string;
      description: string | null;
      image_url: string | null;
      trigger_value: number;
    }
  >(
    `SELECT r.id, r.name, r.description, r.image_url, r.trigger_value, ${VOUCHER_COLUMNS}
     FROM rewards r
     JOIN voucher_versions v ON v.reward_id = r.id AND v.superseded_at IS NULL AND v.active
     WHERE r.store_id = $1 AND (v.usage_limit IS NULL OR v.usage_limit > ${ISSUED})
     ORDER BY r.trigger_value, r.id`,
    [storeId],
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    imageUrl: row.image_url,
    triggerValue: row.trigger_value,
    voucher: toVoucher(row),
  }));
}

export interface ClaimingCustomer {
  id: number;
  email: string | null;
  /** What the customer may spend: the balance less the points other claims hold. */
  available: number;
}

/** Locks the customer for a claim: claims of one customer take their turn. */
export async function lockClaimingCustomer(
  db: Queryable,
  storeId: number,
  externalId: number,
): Promise<ClaimingCustomer | undefined> {
  const { rows } = await db.query<ClaimingCustomer>(
    `SELECT id, email, balance - reserved_points AS available
     FROM customers WHERE store_id = $1 AND external_id = $2 AND erased_at IS NULL
     FOR NO KEY UPDATE`,
    [storeId, externalId],
  );
  return rows[0];
}

export interface ClaimableReward {
  id: number;
  name: string;
  triggerValue: number;
  /** The current version; null when the reward has none. */
  voucher: (Voucher & { id: number; active: boolean }) | null;
}

export async function findClaimableReward(
  db: Queryable,
  storeId: number,
  rewardId: number,
): Promise<ClaimableReward | undefined> {
  const { rows } = await db.query<
    Partial<VoucherColumns> & { id: number; name: string; trigger_value: number; active: boolean }
  >(
    `SELECT r.id, r.name, r.trigger_value, v.active, ${VOUCHER_COLUMNS}
     FROM rewards r
     LEFT JOIN voucher_versions v ON v.reward_id = r.id AND v.superseded_at IS NULL
     WHERE r.store_id = $1 AND r.id = $2`,
    [storeId, rewardId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    triggerValue: row.trigger_value,
    voucher:
      row.voucher_id === null || row.voucher_id === undefined
        ? null
        : { ...toVoucher(row as VoucherColumns), id: row.voucher_id, active: row.active },
  };
}

/**
 * Codes the voucher version has issued or is issuing, counted under a lock of the version: the
 * claims of a limited voucher take their turn, so that twenty at once never pass a limit of
 * five. Unlimited vouchers never come here.
 */
export async function lockAndCountIssued(db: Queryable, voucherId: number): Promise<number> {
  await db.query(`SELECT 1 FROM voucher_versions WHERE id = $1 FOR NO KEY UPDATE`, [voucherId]);
  // A statement of its own: one that waited for the lock would count with the snapshot it took
  // before waiting, blind to the claims committed meanwhile.
  const { rows } = await db.query<{ issued: number }>(
    `SELECT ${ISSUED} AS issued FROM voucher_versions v WHERE v.id = $1`,
    [voucherId],
  );
  return rows[0]?.issued ?? 0;
}

export interface NewClaim {
  storeId: number;
  customerId: number;
  rewardId: number;
  voucherId: number;
  points: number;
  code: string;
  expiresAt: Date | null;
}

/** Holds the claim's points on the customer and records the claim as reserved. */
export async function insertReservedClaim(db: Queryable, claim: NewClaim): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `WITH hold AS (
       UPDATE customers SET reserved_points = reserved_points + $5, updated_at = now()
       WHERE id = $2
     )
     INSERT INTO reward_claims
       (store_id, customer_id, reward_id, voucher_version_id, points, code, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING id`,
    [
      claim.storeId,
      claim.customerId,
      claim.rewardId,
      claim.voucherId,
      claim.points,
      claim.code,
      claim.expiresAt,
    ],
  );
  return (rows[0] as { id: number }).id;
}

/**
 * Tells every process the store's reward list changed: a voucher issued its last code, or got
 * one back. Sent with the transaction's commit, like the triggers' notifications.
 */
export async function notifyRewardsChanged(db: Queryable, storeId: number): Promise<void> {
  await db.query(`SELECT pg_notify($1, $2)`, [STORE_CHANGED_CHANNEL, String(storeId)]);
}

export interface SettledClaim {
  id: number;
  storeId: number;
  customerId: number;
  customerExternalId: number;
  rewardId: number;
  points: number;
  /** Whether the claim's voucher has a usage limit (a release may put it back in the list). */
  limited: boolean;
}

const SETTLED_COLUMNS = `c.id, c.store_id AS "storeId", c.customer_id AS "customerId",
  cu.external_id AS "customerExternalId", c.reward_id AS "rewardId", c.points,
  v.usage_limit IS NOT NULL AS limited`;

/**
 * Settles a reserved claim and lifts its hold on the customer's points, in one statement.
 * Undefined when the claim was no longer reserved: someone else settled it.
 */
async function settleClaim(
  db: Queryable,
  claimId: number,
  settlement: "confirmed" | "released",
  failureReason: string | null,
): Promise<SettledClaim | undefined> {
  const { rows } = await db.query<SettledClaim>(
    `WITH c AS (
       UPDATE reward_claims SET status = $2, updated_at = now(), failure_reason = $3,
         confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END,
         released_at = CASE WHEN $2 = 'released' THEN now() END
       WHERE id = $1 AND status = 'reserved'
       RETURNING *
     ), cu AS (
       UPDATE customers cu SET reserved_points = cu.reserved_points - c.points
       FROM c WHERE cu.id = c.customer_id
       RETURNING cu.id, cu.external_id
     )
     SELECT ${SETTLED_COLUMNS}
     FROM c JOIN cu ON cu.id = c.customer_id JOIN voucher_versions v ON v.id = c.voucher_version_id`,
    [claimId, settlement, failureReason],
  );
  return rows[0];
}

export function confirmClaim(db: Queryable, claimId: number): Promise<SettledClaim | undefined> {
  return settleClaim(db, claimId, "confirmed", null);
}

export function releaseClaim(
  db: Queryable,
  claimId: number,
  reason: string,
): Promise<SettledClaim | undefined> {
  return settleClaim(db, claimId, "released", reason);
}

export interface StaleClaim {
  id: number;
  storeId: number;
  code: string;
}

/**
 * Claims reserved longer ago than `olderThanMs`: their request died between reserving the
 * points and settling them. No lock is held while the platform is asked about them: settling
 * is conditional on the claim still being reserved, so two reconciliations settle it once.
 */
export async function findStaleClaims(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<StaleClaim[]> {
  const { rows } = await db.query<StaleClaim>(
    `SELECT id, store_id AS "storeId", code FROM reward_claims
     WHERE status = 'reserved' AND created_at < now() - $1 * interval '1 millisecond'
     ORDER BY created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows;
}
