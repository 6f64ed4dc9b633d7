import type { Reward, Voucher, VoucherKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { STORE_CHANGED_CHANNEL } from "../../db/store-changes.js";
import { outboxCtes } from "../events/events.repository.js";

export interface VoucherColumns {
  voucher_id: number;
  version: number;
  kind: VoucherKind;
  value: string | null;
  currency: string | null;
  minimum_order_amount: string | null;
  validity_days: number | null;
  usage_limit: number | null;
}

export function toVoucher(row: VoucherColumns): Voucher {
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

export const VOUCHER_COLUMNS = `v.id AS voucher_id, v.version, v.kind, v.value, v.currency,
  v.minimum_order_amount, v.validity_days, v.usage_limit`;

/** Codes a voucher version has issued or is issuing: every claim not given back. */
export const ISSUED = `(SELECT count(*) FROM reward_claims c
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

type RewardColumns = Partial<VoucherColumns> & {
  reward_id: number | null;
  name: string;
  trigger_value: number;
  active: boolean;
};

/**
 * The rewards named by `source` (a relation with store_id, reward_id and position), each with
 * its current voucher version.
 */
function claimableRewards(source: string): string {
  return `SELECT i.position, r.id AS reward_id, r.name, r.trigger_value, v.active, ${VOUCHER_COLUMNS}
    FROM ${source} i
    JOIN rewards r ON r.store_id = i.store_id AND r.id = i.reward_id
    LEFT JOIN voucher_versions v ON v.reward_id = r.id AND v.superseded_at IS NULL`;
}

function toClaimableReward(row: RewardColumns | undefined): ClaimableReward | undefined {
  if (!row?.reward_id) return undefined;
  return {
    id: row.reward_id,
    name: row.name,
    triggerValue: row.trigger_value,
    voucher:
      row.voucher_id === null || row.voucher_id === undefined
        ? null
        : { ...toVoucher(row as VoucherColumns), id: row.voucher_id, active: row.active },
  };
}

export async function findClaimableReward(
  db: Queryable,
  storeId: number,
  rewardId: number,
): Promise<ClaimableReward | undefined> {
  const { rows } = await db.query<RewardColumns>(
    claimableRewards("(SELECT $1::bigint AS store_id, $2::bigint AS reward_id, 1 AS position)"),
    [storeId, rewardId],
  );
  return toClaimableReward(rows[0]);
}

export interface ReservedClaim {
  id: number;
  expiresAt: Date | null;
}

export interface ReserveAttempt {
  /** Whether the store has the customer; what they may spend is the UPDATE's to judge. */
  customer: Pick<ClaimingCustomer, "id" | "email"> | undefined;
  reward: ClaimableReward | undefined;
  /** Set when the points are held: the claim, reserved. */
  claim: ReservedClaim | undefined;
}

export interface ClaimRequest {
  storeId: number;
  externalId: number;
  rewardId: number;
  code: string;
}

/**
 * Claims of rewards whose voucher has no usage limit, in one statement for many requests, each
 * customer at most once: the customer's points are held if what they may spend covers the
 * cost (the UPDATE checks it again on the row it locks, so that concurrent claims never
 * overdraw), and the claim is recorded as reserved. Otherwise the attempt says what it found,
 * for the caller to say why: no customer, no reward, an inactive voucher, a limited one (see
 * lockAndCountIssued), or too few points. Results are in the order of `claims`.
 */
export async function reserveClaims(
  db: Queryable,
  claims: readonly ClaimRequest[],
): Promise<ReserveAttempt[]> {
  const { rows } = await db.query<
    RewardColumns & {
      position: number;
      customer_id: number | null;
      email: string | null;
      claim_id: number | null;
      expires_at: Date | null;
    }
  >({
    // Prepared once per connection: every claim runs it, and planning it costs as much as
    // running it.
    name: "reserve-claims",
    text: `WITH input AS (
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[])
         WITH ORDINALITY AS i(store_id, external_id, reward_id, code, position)
     ), reward AS (${claimableRewards("input")}),
     -- Customers locked in (store, externalId) order, as every statement locking several of
     -- them does (orders credited in groups too): two never wait on each other in a cycle.
     locked AS (
       SELECT c.id, i.position FROM customers c
       JOIN input i ON c.store_id = i.store_id AND c.external_id = i.external_id
       WHERE c.erased_at IS NULL
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     ), held AS (
       UPDATE customers c SET reserved_points = c.reserved_points + reward.trigger_value,
         updated_at = now()
       FROM locked JOIN reward ON reward.position = locked.position
       WHERE c.id = locked.id AND reward.active AND reward.usage_limit IS NULL
         AND c.balance - c.reserved_points >= reward.trigger_value
       RETURNING c.id, locked.position
     ), claim AS (
       INSERT INTO reward_claims
         (store_id, customer_id, reward_id, voucher_version_id, points, code, expires_at)
       SELECT i.store_id, held.id, reward.reward_id, reward.voucher_id, reward.trigger_value,
              i.code, now() + reward.validity_days * interval '1 day'
       FROM held
       JOIN input i ON i.position = held.position
       JOIN reward ON reward.position = held.position
       ORDER BY held.position
       RETURNING id, code, expires_at
     ), customer AS (
       SELECT i.position, c.id, c.email
       FROM input i
       JOIN customers c ON c.store_id = i.store_id AND c.external_id = i.external_id
       WHERE c.erased_at IS NULL
     )
     SELECT reward.*, i.position, customer.id AS customer_id, customer.email,
            claim.id AS claim_id, claim.expires_at
     FROM input i
     LEFT JOIN reward ON reward.position = i.position
     LEFT JOIN customer ON customer.position = i.position
     LEFT JOIN claim ON claim.code = i.code
     ORDER BY i.position`,
    values: [
      claims.map((claim) => claim.storeId),
      claims.map((claim) => claim.externalId),
      claims.map((claim) => claim.rewardId),
      claims.map((claim) => claim.code),
    ],
  });
  return rows.map((row) => ({
    customer: row.customer_id === null ? undefined : { id: row.customer_id, email: row.email },
    reward: toClaimableReward(row),
    claim: row.claim_id === null ? undefined : { id: row.claim_id, expiresAt: row.expires_at },
  }));
}

/**
 * Codes the voucher version has issued or is issuing, counted under a lock of the version: the
 * claims of a limited voucher take their turn, so that twenty at once never pass a limit of
 * five.
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

/** Holds the claim's points on the customer (locked by the caller) and records the claim. */
export async function insertReservedClaim(
  db: Queryable,
  claim: {
    storeId: number;
    customerId: number;
    reward: ClaimableReward & { voucher: NonNullable<ClaimableReward["voucher"]> };
    code: string;
  },
): Promise<ReservedClaim> {
  const { rows } = await db.query<{ id: number; expiresAt: Date | null }>(
    `WITH hold AS (
       UPDATE customers SET reserved_points = reserved_points + $5, updated_at = now()
       WHERE id = $2
     )
     INSERT INTO reward_claims
       (store_id, customer_id, reward_id, voucher_version_id, points, code, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 day')
     RETURNING id, expires_at AS "expiresAt"`,
    [
      claim.storeId,
      claim.customerId,
      claim.reward.id,
      claim.reward.voucher.id,
      claim.reward.triggerValue,
      claim.code,
      claim.reward.voucher.validityDays,
    ],
  );
  return rows[0] as ReservedClaim;
}

/**
 * Tells every process the store's reward list changed: a voucher issued its last code, or got
 * one back. Sent with the transaction's commit, like the triggers' notifications.
 */
export async function notifyRewardsChanged(db: Queryable, storeId: number): Promise<void> {
  await db.query(`SELECT pg_notify($1, $2)`, [STORE_CHANGED_CHANNEL, String(storeId)]);
}

export interface ReleasedClaim {
  storeId: number;
  /** Whether the claim's voucher has a usage limit (a release may put it back in the list). */
  limited: boolean;
}

/**
 * Gives a reserved claim's points back: the claim is released and its hold lifted, in one
 * statement. Undefined when the claim was no longer reserved: someone else settled it.
 */
export async function releaseClaim(
  db: Queryable,
  claimId: number,
  reason: string,
): Promise<ReleasedClaim | undefined> {
  const { rows } = await db.query<ReleasedClaim>(
    `WITH c AS (
       UPDATE reward_claims SET status = 'released', released_at = now(), updated_at = now(),
         failure_reason = $2
       WHERE id = $1 AND status = 'reserved'
       RETURNING store_id, customer_id, points, voucher_version_id
     ), lifted AS (
       UPDATE customers cu SET reserved_points = cu.reserved_points - c.points, updated_at = now()
       FROM c WHERE cu.id = c.customer_id
     )
     SELECT c.store_id AS "storeId", v.usage_limit IS NOT NULL AS limited
     FROM c JOIN voucher_versions v ON v.id = c.voucher_version_id`,
    [claimId, reason],
  );
  return rows[0] && { storeId: rows[0].storeId, limited: rows[0].limited };
}

/**
 * Confirms reserved claims in one statement: their held points become spent (each balance and
 * its reward_redemption ledger entries move together, as the ledger requires; a customer's
 * entries are chained in claim order), and REWARD_OBTAINED goes to the outbox. Returns the
 * balance after each claim, in the order of `claimIds`; undefined for a claim that was no
 * longer reserved.
 */
export async function confirmClaims(
  db: Queryable,
  claimIds: readonly number[],
): Promise<(number | undefined)[]> {
  const { rows } = await db.query<{ id: number; balance: number }>({
    // Prepared once per connection: every claim runs it, and planning it costs as much as
    // running it.
    name: "confirm-claims",
    text: `WITH claim AS (
       UPDATE reward_claims SET status = 'confirmed', confirmed_at = now(), updated_at = now()
       WHERE id = ANY ($1::bigint[]) AND status = 'reserved'
       RETURNING id, store_id, customer_id, reward_id, points
     ), spent AS (
       SELECT customer_id, sum(points) AS points FROM claim GROUP BY customer_id
     ), locked AS (
       -- In (store, externalId) order, as every statement locking several customers does.
       SELECT c.id, spent.points FROM customers c JOIN spent ON spent.customer_id = c.id
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     ), customer AS (
       UPDATE customers c SET balance = c.balance - locked.points,
         reserved_points = c.reserved_points - locked.points, updated_at = now()
       FROM locked WHERE c.id = locked.id
       RETURNING c.id, c.external_id, c.balance
     ), settled AS (
       -- From the balance after the last claim, back to the one after each.
       SELECT claim.*, customer.external_id,
              (customer.balance
                + sum(claim.points) OVER (PARTITION BY claim.customer_id)
                - sum(claim.points) OVER (PARTITION BY claim.customer_id ORDER BY claim.id)
              )::bigint AS balance_after
       FROM claim JOIN customer ON customer.id = claim.customer_id
     ), entries AS (
       INSERT INTO ledger_transactions
         (store_id, customer_id, kind, points, balance_after, claim_id)
       SELECT store_id, customer_id, 'reward_redemption', -points, balance_after, id
       FROM settled ORDER BY id
     ), obtained AS (
       SELECT store_id, 'REWARD_OBTAINED' AS type, id AS position,
              jsonb_build_object(
                'customer', jsonb_build_object('externalId', external_id),
                'rewardId', reward_id, 'points', points, 'balance', balance_after) AS payload
       FROM settled
     ), ${outboxCtes("obtained")}
     -- The REWARD_OBTAINED payload above is eventDataSchemas.REWARD_OBTAINED (tests parse it).
     SELECT id, balance_after AS balance, (SELECT count(*) FROM jobs) AS jobs
     FROM settled`,
    values: [claimIds],
  });
  const balances = new Map(rows.map((row) => [row.id, row.balance]));
  return claimIds.map((id) => balances.get(id));
}

export interface StaleClaim {
  id: number;
  storeId: number;
  storeDomain: string;
  code: string;
  createdAt: Date;
}

/**
 * Claims reserved longer ago than `olderThanMs`: their request died between reserving the
 * points and settling them. Those looked at least recently come first (see postponeClaim), so
 * claims whose platform keeps failing never stand in the way of the others. No lock is held
 * while the platform is asked about them: settling is conditional on the claim still being
 * reserved, so two reconciliations settle it once.
 */
export async function findStaleClaims(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<StaleClaim[]> {
  const { rows } = await db.query<StaleClaim>(
    `SELECT c.id, c.store_id AS "storeId", s.domain AS "storeDomain", c.code,
            c.created_at AS "createdAt"
     FROM reward_claims c JOIN stores s ON s.id = c.store_id
     WHERE c.status = 'reserved' AND c.created_at < now() - $1 * interval '1 millisecond'
     ORDER BY c.updated_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows;
}

/** Sends a stale claim its platform could not settle to the back of the reconciliation's line. */
export async function postponeClaim(db: Queryable, claimId: number): Promise<void> {
  await db.query(
    `UPDATE reward_claims SET updated_at = now() WHERE id = $1 AND status = 'reserved'`,
    [claimId],
  );
}
