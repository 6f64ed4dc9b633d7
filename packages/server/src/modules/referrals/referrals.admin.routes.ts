import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";

/** Back-office: the referral programme. */
export function referralsAdminRoutes({ referrals }: Pick<Services, "referrals">): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.getReferralProgram, ({ store }) => referrals.program(store.id)),
    operationRoute(
      ADMIN_OPERATIONS.setReferralProgram,
      async ({ store, body }) => {
        await referrals.saveProgram(store.id, body);
        // Read back: amounts are kept to the cent, and the answer is what a GET answers from now on.
        return referrals.program(store.id);
      },
      // The launcher's cached configuration carries the programme's offer: every process
      // forgets it before the answer, as for a widget's change.
      { propagates: true },
    ),
  ];
}
