import {
  ADMIN_OPERATIONS,
  type AdminReward,
  type AdminVoucherVersion,
} from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
import type { AdminRewardRow, VoucherVersionRow } from "./rewards.admin.repository.js";

function rewardView(row: AdminRewardRow): AdminReward {
  return {
    ...row,
    voucher: { ...row.voucher, createdAt: row.voucher.createdAt.toISOString() },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function voucherVersionView({ voucher, current }: VoucherVersionRow): AdminVoucherVersion {
  return {
    ...voucher,
    createdAt: voucher.createdAt.toISOString(),
    codesRemaining:
      voucher.usageLimit === null ? null : Math.max(0, voucher.usageLimit - voucher.codesIssued),
    current,
  };
}

/**
 * Back-office: rewards and their vouchers. Writes answer once every process heard of them:
 * /reward/list is served from memory.
 */
export function rewardsAdminRoutes(context: AppContext): Router {
  const { rewardsAdmin } = context.services;
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.listAdminRewards, async ({ store }) =>
    (await rewardsAdmin.list(store.id)).map(rewardView),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.createReward,
    async ({ store, body }) => rewardView(await rewardsAdmin.create(store.id, body)),
    { propagates: true },
  );
  adminRoute(router, context, ADMIN_OPERATIONS.getAdminReward, async ({ store, params }) =>
    rewardView(await rewardsAdmin.get(store.id, params.rewardId)),
  );
  adminRoute(router, context, ADMIN_OPERATIONS.listVoucherVersions, async ({ store, params }) =>
    (await rewardsAdmin.versions(store.id, params.rewardId)).map(voucherVersionView),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.updateReward,
    async ({ store, params, body }) =>
      rewardView(await rewardsAdmin.update(store.id, params.rewardId, body)),
    { propagates: true },
  );
  return router;
}
