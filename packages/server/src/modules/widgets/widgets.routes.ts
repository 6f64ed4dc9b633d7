import { OPERATIONS, type WidgetKind } from "@loyalty/shared-types";
import { cachedSectionReply } from "../../http/cacheable.js";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { WidgetsService } from "./widgets.service.js";

/**
 * GET /store/widget/cart, /store/widget/product-points, /store/widget/program-presentation and
 * /store/widget/launcher (public, `domain`): storefront reads served from memory. Their only errors are not-found and
 * the revision reasons: a missing or unknown domain is not-found.
 */
export function widgetsRoutes(
  { widgets }: { widgets: WidgetsService },
  storefrontMaxAge: number,
): OperationRoute[] {
  const cached = cachedSectionReply(storefrontMaxAge);
  const read =
    (kind: WidgetKind) =>
    ({ query }: { query: { domain: string } }) =>
      cached(widgets.configuration(query.domain, kind));
  return [
    operationRoute(OPERATIONS.getCartWidget, read("cart")),
    operationRoute(OPERATIONS.getProductPointsWidget, read("product-points")),
    operationRoute(OPERATIONS.getProgramPresentationWidget, read("program-presentation")),
    operationRoute(OPERATIONS.getLauncherWidget, read("launcher")),
  ];
}
