import type { Voucher } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { setClause } from "../../db/set-clause.js";
import { ISSUED, toVoucher, VOUCHER_COLUMNS, type VoucherColumns } from "./rewards.repository.js";

/** A reward as the back-office sees it: active or not, with its current voucher version. */
export interface AdminRewardRow {
  id: number;
  name: string;
  description: string | null;
  imageUrl: string | null;
  triggerValue: number;
  /** The current version's flag: false leaves the reward out of the list and refuses claims. */
  active: boolean;
  voucher: Voucher & { codesIssued: number; createdAt: Date };
  createdAt: Date;
  updatedAt: Date;
}

/** A voucher as the back-office writes it: every version has these, and its own number. */
export type VoucherWrite = Omit<Voucher, "version">;

export type RewardFields = Pick<
  AdminRewardRow,
  "name" | "description" | "imageUrl" | "triggerValue"
>;

const ADMIN_REWARDS = `SELECT r.id, r.name, r.description, r.image_url, r.trigger_value,
    r.created_at, r.updated_at, v.active, v.created_at AS voucher_created_at,
    ${ISSUED} AS codes_issued, ${VOUCHER_COLUMNS}
  FROM rewards r
  JOIN voucher_versions v ON v.reward_id = r.id AND v.superseded_at IS NULL`;

type AdminRewardColumns = VoucherColumns & {
  id: number;
  name: string;
  description: string | null;
  image_url: string | null;
  trigger_value: number;
  created_at: Date;
  updated_at: Date;
  active: boolean;
  voucher_created_at: Date;
  codes_issued: number;
};

function toAdminReward(row: AdminRewardColumns): AdminRewardRow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    imageUrl: row.image_url,
    triggerValue: row.trigger_value,
    active: row.active,
    voucher: {
      ...toVoucher(row),
      codesIssued: row.codes_issued,
      createdAt: row.voucher_created_at,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every reward of the store, active or not, cheapest first as the storefront lists them. */
export async function listAdminRewards(db: Queryable, storeId: number): Promise<AdminRewardRow[]> {
  const { rows } = await db.query<AdminRewardColumns>(
    `${ADMIN_REWARDS} WHERE r.store_id = $1 ORDER BY r.trigger_value, r.id`,
    [storeId],
  );
  return rows.map(toAdminReward);
}

export async function findAdminReward(
  db: Queryable,
  storeId: number,
  rewardId: number,
): Promise<AdminRewardRow | undefined> {
  const { rows } = await db.query<AdminRewardColumns>(
    `${ADMIN_REWARDS} WHERE r.store_id = $1 AND r.id = $2`,
    [storeId, rewardId],
  );
  return rows[0] && toAdminReward(rows[0]);
}

/** The reward and version 1 of its voucher, in one statement; returns the reward's id. */
export async function insertReward(
  db: Queryable,
  storeId: number,
  reward: RewardFields & { voucher: VoucherWrite; active: boolean },
): Promise<number> {
  const { voucher } = reward;
  const { rows } = await db.query<{ id: number }>(
    `WITH r AS (
       INSERT INTO rewards (store_id, name, description, image_url, trigger_value)
       VALUES ($1, $2, $3, $4, $5) RETURNING id
     )
     INSERT INTO voucher_versions (reward_id, version, kind, value, currency,
                                   minimum_order_amount, validity_days, usage_limit, active)
     SELECT r.id, 1, $6, $7, $8, $9, $10, $11, $12 FROM r
     RETURNING reward_id AS id`,
    [
      storeId,
      reward.name,
      reward.description,
      reward.imageUrl,
      reward.triggerValue,
      voucher.kind,
      voucher.value,
      voucher.currency,
      voucher.minimumOrderAmount,
      voucher.validityDays,
      voucher.usageLimit,
      reward.active,
    ],
  );
  return (rows[0] as { id: number }).id;
}

/** The columns a back-office update may change, by field name. */
const UPDATABLE: Record<keyof RewardFields, string> = {
  name: "name",
  description: "description",
  imageUrl: "image_url",
  triggerValue: "trigger_value",
};

/**
 * Changes the reward's own fields and marks it updated, holding its row until the transaction
 * ends: edits of one reward's voucher take their turn. False when the store has no such reward.
 */
export async function updateRewardFields(
  db: Queryable,
  storeId: number,
  rewardId: number,
  changes: Partial<RewardFields>,
): Promise<boolean> {
  const set = setClause(UPDATABLE, changes, 3);
  const { rowCount } = await db.query(
    `UPDATE rewards SET ${set.sql} WHERE store_id = $1 AND id = $2`,
    [storeId, rewardId, ...set.values],
  );
  return rowCount === 1;
}

/**
 * Supersedes the current voucher version with the next one, which keeps the current one's
 * `active` flag unless `active` says otherwise. Claims keep the version they were made with.
 */
export async function insertVoucherVersion(
  db: Queryable,
  rewardId: number,
  voucher: VoucherWrite,
  active: boolean | undefined,
): Promise<void> {
  await db.query(
    `WITH superseded AS (
       UPDATE voucher_versions SET superseded_at = now()
       WHERE reward_id = $1 AND superseded_at IS NULL
       RETURNING version, active
     )
     INSERT INTO voucher_versions (reward_id, version, kind, value, currency,
                                   minimum_order_amount, validity_days, usage_limit, active)
     SELECT $1, version + 1, $2, $3, $4, $5, $6, $7, coalesce($8, active) FROM superseded`,
    [
      rewardId,
      voucher.kind,
      voucher.value,
      voucher.currency,
      voucher.minimumOrderAmount,
      voucher.validityDays,
      voucher.usageLimit,
      active ?? null,
    ],
  );
}

/** Deactivates or reactivates the current voucher version. */
export async function setVoucherActive(
  db: Queryable,
  rewardId: number,
  active: boolean,
): Promise<void> {
  await db.query(
    `UPDATE voucher_versions SET active = $2 WHERE reward_id = $1 AND superseded_at IS NULL`,
    [rewardId, active],
  );
}

/** One version of a reward's voucher, as the back-office's history of its terms shows it. */
export interface VoucherVersionRow {
  voucher: Voucher & { codesIssued: number; createdAt: Date };
  /** Whether claims issue codes from it: the version no edit has superseded yet. */
  current: boolean;
}

/**
 * Every version of the reward's voucher, newest first; undefined when the store has no such
 * reward (every reward has at least its version 1). Codes issued count as the reward view
 * counts them.
 */
export async function listVoucherVersions(
  db: Queryable,
  storeId: number,
  rewardId: number,
): Promise<VoucherVersionRow[] | undefined> {
  const { rows } = await db.query<
    VoucherColumns & {
      created_at: Date;
      current: boolean;
      codes_issued: number;
    }
  >(
    `SELECT ${VOUCHER_COLUMNS}, v.created_at, v.superseded_at IS NULL AS current,
            ${ISSUED} AS codes_issued
     FROM rewards r
     JOIN voucher_versions v ON v.reward_id = r.id
     WHERE r.store_id = $1 AND r.id = $2
     ORDER BY v.version DESC`,
    [storeId, rewardId],
  );
  if (rows.length === 0) return undefined;
  return rows.map((row) => ({
    voucher: { ...toVoucher(row), codesIssued: row.codes_issued, createdAt: row.created_at },
    current: row.current,
  }));
}
