import { OPERATIONS, type CalculatePointsResponse } from "@loyalty/shared-types";
import { cacheableJson } from "../../http/cacheable.js";
import { operationRoute, Reply, type OperationRoute } from "../../http/operation.js";
import type { PointsService } from "./points.service.js";

/** GET /point/product-points/calculate (public): a storefront read, served from memory. */
export function pointsRoutes(
  { points }: { points: PointsService },
  storefrontMaxAge: number,
): OperationRoute[] {
  const sendCacheable = cacheableJson(storefrontMaxAge);
  // The body is made of these three values only: they are its etag, in every process.
  const reply = (result: CalculatePointsResponse) =>
    new Reply((res) =>
      sendCacheable(
        res,
        `W/"${result.points}-${result.type}-${result.id}"`,
        JSON.stringify(result),
      ),
    );
  return [
    operationRoute(OPERATIONS.calculateProductPoints, ({ query }) => {
      const result = points.calculate(query);
      return result instanceof Promise ? result.then(reply) : reply(result);
    }),
  ];
}
