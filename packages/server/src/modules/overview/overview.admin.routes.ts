import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
import { OverviewService } from "./overview.service.js";

/** Back-office: the programme overview (the merchant's dashboard). */
export function overviewAdminRoutes(context: AppContext): Router {
  const overview = new OverviewService(context.pool, context.clock);
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.getProgramOverview, ({ store, query }) =>
    overview.overview(store, query),
  );
  return router;
}
