import { OPERATIONS, type ClaimRefusal } from "@loyalty/shared-types";
import { cachedSectionReply } from "../../http/cacheable.js";
import { operationRoute, Reply, type OperationRoute } from "../../http/operation.js";
import type { RewardsService } from "./rewards.service.js";
import { customerCodesView } from "./rewards.views.js";

/**
 * GET /reward/list (public, `domain`): a storefront read, served from memory; a missing or
 * unknown domain is not-found. POST /reward/claim/{externalId} (HMAC): 201 with the code; a
 * refused exchange is 404 with `application/json` and `code: null` (not a problem object), in
 * every revision. GET /reward/codes/{externalId} (HMAC): the customer's usable codes; like the
 * history, its only errors are 401 and the revision reasons, and it is the customer's own data,
 * changing with every claim and order: private, revalidated with its ETag.
 */
export function rewardsRoutes(
  { rewards }: { rewards: RewardsService },
  storefrontMaxAge: number,
): OperationRoute[] {
  const cached = cachedSectionReply(storefrontMaxAge);
  return [
    operationRoute(OPERATIONS.listRewards, ({ query }) => cached(rewards.list(query.domain))),
    operationRoute(OPERATIONS.claimReward, async ({ store, customerId, body }) => {
      const outcome = await rewards.claim(store, customerId, body.rewardId);
      if (!("refusal" in outcome)) return outcome.claim;
      const refusal: ClaimRefusal = outcome.refusal;
      return new Reply((res) => {
        res.set("Cache-Control", "no-store").status(404).json(refusal);
      });
    }),
    operationRoute(
      OPERATIONS.listCustomerCodes,
      async ({ store, customerId }) => customerCodesView(await rewards.codes(store, customerId)),
      { cacheControl: "private, no-cache" },
    ),
  ];
}
