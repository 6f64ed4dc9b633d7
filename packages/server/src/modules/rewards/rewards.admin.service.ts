import {
  createRewardRequestSchema,
  updateRewardRequestSchema,
  type CreateRewardRequest,
  type UpdateRewardRequest,
} from "@loyalty/shared-types";
import type pg from "pg";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { parseRequest } from "../../http/validate.js";
import {
  findAdminReward,
  insertReward,
  insertVoucherVersion,
  listAdminRewards,
  listVoucherVersions,
  setVoucherActive,
  updateRewardFields,
  type AdminRewardRow,
  type VoucherVersionRow,
} from "./rewards.admin.repository.js";

function notFound(rewardId: number): AppError {
  return new AppError("not-found", `The store has no reward with the id ${rewardId}.`);
}

/**
 * The back-office's rewards and their vouchers. A voucher is never edited in place: an edit
 * supersedes the current version with a new one, so that codes already issued keep the terms
 * they were issued with, and only the new version is listed. A reward is never deleted (its
 * claims name it): a merchant withdraws one by deactivating it.
 */
export class RewardsAdminService {
  constructor(private readonly pool: pg.Pool) {}

  list(storeId: number): Promise<AdminRewardRow[]> {
    return listAdminRewards(this.pool, storeId);
  }

  async get(storeId: number, rewardId: number): Promise<AdminRewardRow> {
    const reward = await findAdminReward(this.pool, storeId, rewardId);
    if (!reward) throw notFound(rewardId);
    return reward;
  }

  /** Every version of the reward's voucher, newest first: the history of its terms. */
  async versions(storeId: number, rewardId: number): Promise<VoucherVersionRow[]> {
    const versions = await listVoucherVersions(this.pool, storeId, rewardId);
    if (!versions) throw notFound(rewardId);
    return versions;
  }

  /**
   * Creates a reward with version 1 of its voucher; `db` lets a caller make it part of a larger
   * transaction.
   */
  async create(
    storeId: number,
    input: CreateRewardRequest,
    db: Queryable = this.pool,
  ): Promise<AdminRewardRow> {
    const reward = parseRequest(createRewardRequestSchema, input, "body");
    const rewardId = await insertReward(db, storeId, reward);
    return (await findAdminReward(db, storeId, rewardId)) as AdminRewardRow;
  }

  /**
   * Changes the reward's fields; a `voucher` supersedes the current version with a new one
   * (carrying its `active` flag); `active` alone deactivates or reactivates the current one.
   */
  async update(
    storeId: number,
    rewardId: number,
    input: UpdateRewardRequest,
  ): Promise<AdminRewardRow> {
    const { voucher, active, ...fields } = parseRequest(updateRewardRequestSchema, input, "body");
    return withTransaction(this.pool, async (tx) => {
      if (!(await updateRewardFields(tx, storeId, rewardId, fields))) throw notFound(rewardId);
      if (voucher) await insertVoucherVersion(tx, rewardId, voucher, active);
      else if (active !== undefined) await setVoucherActive(tx, rewardId, active);
      return (await findAdminReward(tx, storeId, rewardId)) as AdminRewardRow;
    });
  }
}
