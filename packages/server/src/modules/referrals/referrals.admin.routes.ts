import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";

/** Back-office: the referral programme. */
export function referralsAdminRoutes(context: AppContext): Router {
  const { referrals } = context.services;
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.getReferralProgram, ({ store }) =>
    referrals.program(store.id),
  );
  adminRoute(router, context, ADMIN_OPERATIONS.setReferralProgram, async ({ store, body }) => {
    await referrals.saveProgram(store.id, body);
    // Read back: amounts are kept to the cent, and the answer is what a GET answers from now on.
    return referrals.program(store.id);
  });
  return router;
}
