import { createReferralRequestSchema, refereeCodeRequestSchema } from "@loyalty/shared-types";
import { Router } from "express";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { hmacAuth } from "../../auth/hmac.middleware.js";
import { idempotentRequests } from "../../http/idempotency.middleware.js";
import { parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";
import type { ReferralsService } from "./referrals.service.js";

/**
 * POST /point/referral (HMAC, the referrer in the query) and
 * POST /reward/referral/get-referee-code (public: the referral hash is the credential).
 */
export function referralsRoutes(context: AppContext, referrals: ReferralsService): Router {
  const router = Router();
  const idempotent = idempotentRequests(context.services.idempotency);
  const referrer = [hmacAuth(context.services.apiKeys, "query"), idempotent];

  router.post("/point/referral", ...referrer, async (req, res) => {
    const request = parseRequest(createReferralRequestSchema, req.body, "body");
    const referral = await referrals.create(
      req.store as AuthenticatedStore,
      req.customerExternalId as number,
      request,
    );
    res.set("Cache-Control", "no-store").status(201).json(referral);
  });

  router.post("/reward/referral/get-referee-code", idempotent, async (req, res) => {
    const { referralHash } = parseRequest(refereeCodeRequestSchema, req.body, "body");
    const code = await referrals.refereeCode(referralHash);
    res.set("Cache-Control", "no-store").status(201).json(code);
  });

  return router;
}
