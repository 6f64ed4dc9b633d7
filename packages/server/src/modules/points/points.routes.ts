import { createHash } from "node:crypto";
import {
  OPERATIONS,
  type CalculateManyPointsResponse,
  type CalculatePointsResponse,
} from "@loyalty/shared-types";
import { cacheableJson } from "../../http/cacheable.js";
import { operationRoute, Reply, type OperationRoute } from "../../http/operation.js";
import type { PointsService } from "./points.service.js";

/**
 * GET /point/product-points/calculate and …/calculate-many (public): storefront reads, served
 * from memory.
 */
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
  // A page's batch is kilobytes: its etag is a digest of the body, the same in every process.
  // The service answers a page asked again with the same object: encoded once.
  const encoded = new WeakMap<CalculateManyPointsResponse, { body: string; etag: string }>();
  const replyMany = (result: CalculateManyPointsResponse) => {
    let encoding = encoded.get(result);
    if (!encoding) {
      const body = JSON.stringify(result);
      const digest = createHash("sha1").update(body).digest("base64url").slice(0, 22);
      encoding = { body, etag: `W/"${digest}"` };
      encoded.set(result, encoding);
    }
    const { body, etag } = encoding;
    return new Reply((res) => sendCacheable(res, etag, body));
  };
  return [
    operationRoute(OPERATIONS.calculateProductPoints, ({ query }) => {
      const result = points.calculate(query);
      return result instanceof Promise ? result.then(reply) : reply(result);
    }),
    operationRoute(OPERATIONS.calculateManyProductPoints, ({ query }) => {
      const result = points.calculateMany(query);
      return result instanceof Promise ? result.then(replyMany) : replyMany(result);
    }),
  ];
}
