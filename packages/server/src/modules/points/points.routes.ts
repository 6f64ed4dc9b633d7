import { calculatePointsQuerySchema, type CalculatePointsResponse } from "@loyalty/shared-types";
import type { IRouter, Response } from "express";
import { cacheableJson } from "../../http/cacheable.js";
import { foldIndexedKeys, parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";
import type { StorefrontCache } from "../storefront/storefront.cache.js";
import { PointsService } from "./points.service.js";

export function pointsRoutes(
  context: AppContext,
  storefront: StorefrontCache,
  /** The app: the storefront reads are its own routes (see `storefrontRoutes`). */
  router: IRouter,
): void {
  const points = new PointsService(context.pool, storefront);
  const sendCacheable = cacheableJson(context.config.storefrontMaxAge);
  // The body is made of these three values only: they are its etag, in every process.
  const sendCalculation = (res: Response, result: CalculatePointsResponse) =>
    sendCacheable(res, `W/"${result.points}-${result.type}-${result.id}"`, JSON.stringify(result));

  router.get("/point/product-points/calculate", (req, res) => {
    const query = parseRequest(
      calculatePointsQuerySchema,
      foldIndexedKeys(req.query as Record<string, unknown>),
      "query",
    );
    const result = points.calculate(query);
    if (result instanceof Promise) return result.then((loaded) => sendCalculation(res, loaded));
    sendCalculation(res, result);
  });
}
