import {
  OPERATIONS,
  createReferralRequestSchema,
  refereeCodeRequestSchema,
} from "@loyalty/shared-types";
import { Router } from "express";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { hmacAuth } from "../../auth/hmac.middleware.js";
import { operationBody } from "../../http/body.js";
import { idempotentRequests } from "../../http/idempotency.middleware.js";
import { parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";
import type { ReferralsService } from "./referrals.service.js";

/**
 * POST /point/referral (HMAC, the referrer in the query) and
 * POST /reward/referral/get-referee-code (public: the referral hash is the credential).
 */
export function referralsRoutes(context: AppContext, referrals: ReferralsService): Router {
  const { apiKeys, idempotency, rateLimits } = context.services;
  const { bodyLimit } = context.config;
  const router = Router();
  const idempotent = idempotentRequests(idempotency);

  router.post(
    "/point/referral",
    rateLimits.guard(hmacAuth(apiKeys, "query")),
    ...operationBody(OPERATIONS.createReferral, bodyLimit),
    idempotent,
    async (req, res) => {
      const request = parseRequest(createReferralRequestSchema, req.body, "body");
      const referral = await referrals.create(
        req.store as AuthenticatedStore,
        req.customerExternalId as number,
        request,
      );
      res.set("Cache-Control", "no-store").status(201).json(referral);
    },
  );

  // The referral hash in the body is the credential: the body is read first, and small.
  router.post(
    "/reward/referral/get-referee-code",
    ...operationBody(OPERATIONS.getRefereeCode, bodyLimit),
    idempotent,
    async (req, res) => {
      const { referralHash } = parseRequest(refereeCodeRequestSchema, req.body, "body");
      const code = await referrals.refereeCode(referralHash);
      res.set("Cache-Control", "no-store").status(201).json(code);
    },
  );

  return router;
}
