import { OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { ReferralsService } from "./referrals.service.js";

/**
 * POST /point/referral (HMAC, the referrer in the query) and
 * POST /reward/referral/get-referee-code (public: the referral hash in the body is the
 * credential, so the body is read first, and it is small).
 */
export function referralsRoutes({ referrals }: { referrals: ReferralsService }): OperationRoute[] {
  return [
    operationRoute(OPERATIONS.createReferral, ({ store, customerId, body }) =>
      referrals.create(store, customerId, body),
    ),
    operationRoute(OPERATIONS.getRefereeCode, ({ body }) =>
      referrals.refereeCode(body.referralHash),
    ),
  ];
}
