import {
  OPERATIONS,
  claimRewardRequestSchema,
  rewardListQuerySchema,
  type ClaimRefusal,
} from "@loyalty/shared-types";
import { Router, type IRouter } from "express";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { hmacAuth } from "../../auth/hmac.middleware.js";
import { operationBody } from "../../http/body.js";
import { sendCachedSection } from "../../http/cacheable.js";
import { idempotentRequests } from "../../http/idempotency.middleware.js";
import { parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";
import type { RewardsService } from "./rewards.service.js";

/**
 * GET /reward/list (public, `domain`): a storefront read, served from memory. Its only errors
 * are not-found and the revision reasons: a missing or unknown domain is not-found.
 */
export function rewardListRoutes(
  context: AppContext,
  rewards: RewardsService,
  /** The app: the storefront reads are its own routes (see `storefrontRoutes`). */
  router: IRouter,
): void {
  const send = sendCachedSection(context.config.storefrontMaxAge);
  router.get("/reward/list", (req, res) => {
    const { domain } = parseRequest(rewardListQuerySchema, req.query, "query", "not-found");
    return send(res, rewards.list(domain));
  });
}

/**
 * POST /reward/claim/{externalId} (HMAC). 201 with the code; a refused exchange is 404 with
 * `application/json` and `code: null` (not a problem object), in every revision.
 */
export function rewardClaimRoutes(context: AppContext, rewards: RewardsService): Router {
  const router = Router();
  router.post(
    "/reward/claim/:externalId",
    context.services.rateLimits.guard(hmacAuth(context.services.apiKeys, "path")),
    ...operationBody(OPERATIONS.claimReward, context.config.bodyLimit),
    idempotentRequests(context.services.idempotency),
    async (req, res) => {
      const { rewardId } = parseRequest(claimRewardRequestSchema, req.body, "body");
      const outcome = await rewards.claim(
        req.store as AuthenticatedStore,
        req.customerExternalId as number,
        rewardId,
      );
      res.set("Cache-Control", "no-store");
      if ("refusal" in outcome) {
        const refusal: ClaimRefusal = outcome.refusal;
        res.status(404).json(refusal);
        return;
      }
      res.status(201).json(outcome.claim);
    },
  );
  return router;
}
