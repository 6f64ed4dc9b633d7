import { widgetConfigQuerySchema, widgetKindSchema } from "@loyalty/shared-types";
import type { IRouter } from "express";
import { sendCachedSection } from "../../http/cacheable.js";
import { parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";
import type { WidgetsService } from "./widgets.service.js";

/**
 * GET /store/widget/cart, /store/widget/product-points and /store/widget/program-presentation
 * (public, `domain`): storefront reads served from memory. Their only errors are not-found and
 * the revision reasons: a missing or unknown domain is not-found.
 */
export function widgetsRoutes(
  context: AppContext,
  widgets: WidgetsService,
  /** The app: the storefront reads are its own routes (see `storefrontRoutes`). */
  router: IRouter,
): void {
  const send = sendCachedSection(context.config.storefrontMaxAge);
  for (const kind of widgetKindSchema.options) {
    router.get(`/store/widget/${kind}`, (req, res) => {
      const { domain } = parseRequest(widgetConfigQuerySchema, req.query, "query", "not-found");
      return send(res, widgets.configuration(domain, kind));
    });
  }
}
