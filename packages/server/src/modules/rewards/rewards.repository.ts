import type {
  ClaimRefusal,
  CustomerCode,
  Reward,
  Voucher,
  VoucherKind,
} from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { STORE_CHANGED_CHANNEL } from "../../db/store-changes.js";
import { outboxCtes, outboxJobTask } from "../events/events.repository.js";

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

/** VOUCHER_COLUMNS, as a relation of the statement that selected them names them. */
const VOUCHER_FIELDS = `voucher_id, version, kind, value, currency, minimum_order_amount,
  validity_days, usage_limit`;

export interface ClaimRequest {
  storeId: number;
  externalId: number;
  rewardId: number;
  /** The code the platform is asked for, generated beforehand (see reward_claims.code). */
  code: string;
}

/** The reward a claim holds points for, as its answer and the platform's code describe it. */
export interface ClaimedReward {
  id: number;
  name: string;
  triggerValue: number;
  voucher: Voucher;
}

/** A claim whose points are held, recorded as reserved. */
export interface ReservedClaim {
  id: number;
  expiresAt: Date | null;
  reward: ClaimedReward;
  customerEmail: string | null;
}

/** How reserveClaims judged a claim: held, refused, or naming what the store does not have. */
export type ReserveAttempt =
  | { outcome: "reserved"; claim: ReservedClaim }
  | { outcome: ClaimRefusal["reason"] }
  | { outcome: "unknown-customer" | "unknown-reward" };

/**
 * The claim rules, for many claims in one statement, each customer at most once (a customer's
 * several claims go in successive statements of one transaction, each judged on what the
 * previous left). In order, a claim:
 * - names a customer of the store (not erased) and a reward of the store;
 * - is refused `voucher-inactive` when the reward has no current voucher version or it is
 *   switched off;
 * - is refused `usage-limit-reached` when the version has a usage limit and every code it may
 *   issue is taken: by the claims not given back, then by the claims before it here;
 * - is refused `insufficient-balance` when what the customer may spend (the balance less the
 *   points other claims hold) is below the cost;
 * - else holds the cost on the customer and is recorded as reserved, expiring after the
 *   voucher's validity; the claim that takes a voucher's last code tells every process the
 *   store's reward list changed (sent with the commit).
 * Concurrent claims never overdraw nor pass a limit: the customers and the limited voucher
 * versions are locked, and what is judged is read once the locks are held. `group` is every
 * claim of the transaction: its first statement locks the vouchers of all of them, so that a
 * later one takes no lock on a voucher after a customer. Results are in the order of `claims`.
 */
export async function reserveClaims(
  db: Queryable,
  claims: readonly ClaimRequest[],
  group: readonly ClaimRequest[] = claims,
): Promise<ReserveAttempt[]> {
  const { rows } = await db.query<
    Partial<VoucherColumns> & {
      outcome: ReserveAttempt["outcome"];
      reward_id: number | null;
      name: string | null;
      trigger_value: number | null;
      email: string | null;
      claim_id: number | null;
      expires_at: Date | null;
    }
  >(
    `WITH input AS (
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[])
         WITH ORDINALITY AS i(store_id, external_id, reward_id, code, position)
     ), reward AS (
       SELECT i.position, r.id AS reward_id, r.name, r.trigger_value, v.active, ${VOUCHER_COLUMNS}
       FROM input i
       JOIN rewards r ON r.store_id = i.store_id AND r.id = i.reward_id
       LEFT JOIN voucher_versions v ON v.reward_id = r.id AND v.superseded_at IS NULL
     ),
     -- The current versions with a usage limit of the group's rewards, locked in id order before
     -- any customer: claims of one such voucher take their turn.
     limited AS (
       SELECT v.id FROM voucher_versions v
       WHERE v.id IN (
         SELECT current.id
         FROM unnest($5::bigint[], $6::bigint[]) AS g(store_id, reward_id)
         JOIN rewards r ON r.store_id = g.store_id AND r.id = g.reward_id
         JOIN voucher_versions current ON current.reward_id = r.id
           AND current.superseded_at IS NULL AND current.usage_limit IS NOT NULL
       )
       ORDER BY v.id
       FOR NO KEY UPDATE OF v
     ), codes AS (
       -- Counted once locked, with a snapshot of the count's own (see the migration): every
       -- claim committed before is in it.
       SELECT id AS voucher_id, voucher_codes_taken(id) AS codes_taken FROM limited
     ),
     -- Customers locked in (store, externalId) order, as every statement locking several of
     -- them does (orders credited in groups too): two never wait on each other in a cycle.
     -- After the vouchers, as in every transaction locking both: the sub-select reads all of
     -- limited before the first customer row. A row locked after waiting is read as the other
     -- transaction left it.
     locked AS (
       SELECT i.position, c.id, c.email, c.balance - c.reserved_points - c.pending_points AS available
       FROM customers c
       JOIN input i ON c.store_id = i.store_id AND c.external_id = i.external_id
       WHERE c.erased_at IS NULL AND (SELECT count(*) FROM limited) >= 0
       ORDER BY c.store_id, c.external_id
       FOR NO KEY UPDATE OF c
     ), facts AS (
       SELECT i.position, i.store_id, i.code, locked.id AS customer_id, locked.email,
              locked.available, reward.reward_id, reward.name, reward.trigger_value,
              reward.active, ${VOUCHER_FIELDS}, codes.codes_taken,
              reward.active AND locked.available >= reward.trigger_value AS payable
       FROM input i
       LEFT JOIN locked USING (position)
       LEFT JOIN reward USING (position)
       LEFT JOIN codes USING (voucher_id)
     ), counted AS (
       -- Codes taken before this claim: those not given back, then the claims before it here
       -- that could pay for theirs.
       SELECT facts.*,
              codes_taken + count(*) FILTER (WHERE payable) OVER (
                PARTITION BY voucher_id ORDER BY position
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS taken_before
       FROM facts
     ), judged AS (
       SELECT counted.*,
              CASE
                WHEN customer_id IS NULL THEN 'unknown-customer'
                WHEN reward_id IS NULL THEN 'unknown-reward'
                WHEN active IS NOT TRUE THEN 'voucher-inactive'
                WHEN taken_before >= usage_limit THEN 'usage-limit-reached'
                WHEN available < trigger_value THEN 'insufficient-balance'
                ELSE 'reserved'
              END AS outcome
       FROM counted
     ), held AS (
       UPDATE customers c SET reserved_points = c.reserved_points + judged.trigger_value,
         updated_at = now()
       FROM judged
       WHERE c.id = judged.customer_id AND judged.outcome = 'reserved'
       RETURNING judged.position
     ), claim AS (
       INSERT INTO reward_claims
         (store_id, customer_id, reward_id, voucher_version_id, points, code, expires_at)
       SELECT store_id, customer_id, reward_id, voucher_id, trigger_value, code,
              now() + validity_days * interval '1 day'
       FROM held JOIN judged USING (position)
       ORDER BY position
       RETURNING id, code, expires_at
     ), used_up AS (
       SELECT DISTINCT judged.store_id FROM judged JOIN claim USING (code)
       WHERE judged.taken_before + 1 >= judged.usage_limit
     ), notified AS (
       SELECT pg_notify($7, store_id::text) FROM used_up
     )
     SELECT outcome, reward_id, name, trigger_value, email, ${VOUCHER_FIELDS},
            claim.id AS claim_id, claim.expires_at,
            -- Reads notified, so that PostgreSQL runs it.
            (SELECT count(*) FROM notified) AS notified
     FROM judged LEFT JOIN claim USING (code)
     ORDER BY judged.position`,
    [
      claims.map((claim) => claim.storeId),
      claims.map((claim) => claim.externalId),
      claims.map((claim) => claim.rewardId),
      claims.map((claim) => claim.code),
      group.map((claim) => claim.storeId),
      group.map((claim) => claim.rewardId),
      STORE_CHANGED_CHANNEL,
    ],
  );
  return rows.map((row): ReserveAttempt => {
    if (row.outcome !== "reserved") return { outcome: row.outcome };
    return {
      outcome: "reserved",
      claim: {
        id: row.claim_id as number,
        expiresAt: row.expires_at,
        customerEmail: row.email,
        reward: {
          id: row.reward_id as number,
          name: row.name as string,
          triggerValue: row.trigger_value as number,
          voucher: toVoucher(row as VoucherColumns),
        },
      },
    };
  });
}

/**
 * Gives a reserved claim's points back: the claim is released and its hold lifted, in one
 * statement. A voucher with a usage limit got a code back: every process is told the store's
 * reward list may have changed. False when the claim was no longer reserved: someone else
 * settled it.
 */
export async function releaseClaim(
  db: Queryable,
  claimId: number,
  reason: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH c AS (
       UPDATE reward_claims SET status = 'released', released_at = now(), updated_at = now(),
         failure_reason = $2
       WHERE id = $1 AND status = 'reserved'
       RETURNING store_id, customer_id, points, voucher_version_id
     ), lifted AS (
       UPDATE customers cu SET reserved_points = cu.reserved_points - c.points, updated_at = now()
       FROM c WHERE cu.id = c.customer_id
     ), notified AS (
       SELECT pg_notify($3, c.store_id::text)
       FROM c JOIN voucher_versions v ON v.id = c.voucher_version_id
       WHERE v.usage_limit IS NOT NULL
     )
     -- Reads notified, so that PostgreSQL runs it.
     SELECT (SELECT count(*) FROM notified) FROM c`,
    [claimId, reason, STORE_CHANGED_CHANNEL],
  );
  return rowCount === 1;
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
  /** The service's clock: spending is the customers' activity. */
  now: Date,
): Promise<(number | undefined)[]> {
  const { rows } = await db.query<{ id: number; balance: number }>(
    `WITH claim AS (
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
         reserved_points = c.reserved_points - locked.points, last_activity_at = $3,
         updated_at = now()
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
     ), ${outboxCtes("obtained", 2)}
     -- The REWARD_OBTAINED payload above is eventDataSchemas.REWARD_OBTAINED (tests parse it).
     SELECT id, balance_after AS balance, (SELECT count(*) FROM jobs) AS jobs
     FROM settled`,
    [claimIds, outboxJobTask, now],
  );
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

/** A code a customer can still use, with its claim's dates. */
export type UsableCode = Omit<CustomerCode, "claimedAt" | "expiresAt"> & {
  claimedAt: Date;
  expiresAt: Date | null;
};

/**
 * The customer's codes still usable at `now`, newest first, at most `limit`: claims confirmed,
 * used by no order, not expired. Each with the terms of the voucher version it was issued with
 * and its reward's name. Read from the reward_claims_usable index; a customer the store does not
 * have has none.
 */
export async function listUsableCodes(
  db: Queryable,
  query: { storeId: number; externalId: number; now: Date; limit: number },
): Promise<UsableCode[]> {
  const { rows } = await db.query<{
    code: string;
    reward_id: number;
    reward_name: string;
    points: number;
    created_at: Date;
    expires_at: Date | null;
    kind: VoucherKind;
    value: string | null;
    currency: string | null;
    minimum_order_amount: string | null;
  }>(
    `SELECT rc.code, rc.reward_id, r.name AS reward_name, rc.points, rc.created_at,
            rc.expires_at, v.kind, v.value, v.currency, v.minimum_order_amount
     FROM customers c
     JOIN reward_claims rc ON rc.customer_id = c.id AND rc.status = 'confirmed'
       AND rc.used_at IS NULL
     JOIN rewards r ON r.id = rc.reward_id
     JOIN voucher_versions v ON v.id = rc.voucher_version_id
     WHERE c.store_id = $1 AND c.external_id = $2
       AND (rc.expires_at IS NULL OR rc.expires_at > $3)
     ORDER BY rc.created_at DESC, rc.id DESC
     LIMIT $4`,
    [query.storeId, query.externalId, query.now, query.limit],
  );
  return rows.map((row) => ({
    code: row.code,
    rewardId: row.reward_id,
    rewardName: row.reward_name,
    pointsSpent: row.points,
    claimedAt: row.created_at,
    expiresAt: row.expires_at,
    voucher: {
      kind: row.kind,
      value: row.value === null ? null : Number(row.value),
      currency: row.currency,
      minimumOrderAmount:
        row.minimum_order_amount === null ? null : Number(row.minimum_order_amount),
    },
  }));
}

/** A discount code an order named, with the order and its customer. */
export interface CodeUse {
  customerId: number;
  orderId: number;
  code: string;
  orderedAt: Date;
}

/**
 * Marks used the customers' confirmed claims whose code an order named, in any case (platforms
 * read codes so): each by the first of the orders naming it. A claim already used stays as it
 * was. Returns how many claims were marked.
 */
export async function markCodesUsed(db: Queryable, uses: readonly CodeUse[]): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE reward_claims rc SET used_at = u.ordered_at, used_order_id = u.order_id,
                                 updated_at = now()
     FROM (
       SELECT DISTINCT ON (customer_id, lower(code)) customer_id, order_id, lower(code) AS code,
              ordered_at
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::timestamptz[])
         AS i(customer_id, order_id, code, ordered_at)
       ORDER BY customer_id, lower(code), order_id
     ) u
     WHERE rc.customer_id = u.customer_id AND rc.status = 'confirmed' AND rc.used_at IS NULL
       AND lower(rc.code) = u.code`,
    [
      uses.map((use) => use.customerId),
      uses.map((use) => use.orderId),
      uses.map((use) => use.code),
      uses.map((use) => use.orderedAt),
    ],
  );
  return rowCount ?? 0;
}
