import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import { rewardView, voucherVersionView } from "./rewards.views.js";

/**
 * Back-office: rewards and their vouchers. Writes answer once every process heard of them:
 * /reward/list is served from memory.
 */
export function rewardsAdminRoutes({
  rewardsAdmin,
}: Pick<Services, "rewardsAdmin">): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.listAdminRewards, async ({ store }) =>
      (await rewardsAdmin.list(store.id)).map(rewardView),
    ),
    operationRoute(
      ADMIN_OPERATIONS.createReward,
      async ({ store, body }) => rewardView(await rewardsAdmin.create(store.id, body)),
      { propagates: true },
    ),
    operationRoute(ADMIN_OPERATIONS.getAdminReward, async ({ store, params }) =>
      rewardView(await rewardsAdmin.get(store.id, params.rewardId)),
    ),
    operationRoute(ADMIN_OPERATIONS.listVoucherVersions, async ({ store, params }) =>
      (await rewardsAdmin.versions(store.id, params.rewardId)).map(voucherVersionView),
    ),
    operationRoute(
      ADMIN_OPERATIONS.updateReward,
      async ({ store, params, body }) =>
        rewardView(await rewardsAdmin.update(store.id, params.rewardId, body)),
      { propagates: true },
    ),
  ];
}
