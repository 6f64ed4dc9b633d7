import type { IRouter, Router } from "express";
import { customersAdminRoutes } from "./modules/customers/customers.admin.routes.js";
import { platformsAdminRoutes } from "./modules/platforms/platforms.admin.routes.js";
import { pointsAdminRoutes } from "./modules/points/points.admin.routes.js";
import { referralsAdminRoutes } from "./modules/referrals/referrals.admin.routes.js";
import { rewardsAdminRoutes } from "./modules/rewards/rewards.admin.routes.js";
import { webhooksAdminRoutes } from "./modules/webhooks/webhooks.admin.routes.js";
import { widgetsAdminRoutes } from "./modules/widgets/widgets.admin.routes.js";
import { adminAuthRoutes } from "./modules/admin/admin-auth.routes.js";
import { customersRoutes } from "./modules/customers/customers.routes.js";
import { CustomersService } from "./modules/customers/customers.service.js";
import { ordersRoutes } from "./modules/orders/orders.routes.js";
import { overviewAdminRoutes } from "./modules/overview/overview.admin.routes.js";
import { pointsRoutes } from "./modules/points/points.routes.js";
import { referralsRoutes } from "./modules/referrals/referrals.routes.js";
import { rewardClaimRoutes, rewardListRoutes } from "./modules/rewards/rewards.routes.js";
import { storesAdminRoutes } from "./modules/stores/stores.admin.routes.js";
import { widgetsRoutes } from "./modules/widgets/widgets.routes.js";
import type { AppContext } from "./runtime.js";

/**
 * The public storefront reads: every product page view of every store calls them. They are
 * served from memory, take no body, and write no access log line (failures are logged). They
 * are routes of the app itself, not of a router mounted in it: walking a nested router cost
 * every read about 6 % of its throughput (calculate 0.69x of a bare Express against 0.74x).
 */
export function storefrontRoutes(context: AppContext, app: IRouter): void {
  const { rewards, widgets, storefront } = context.services;
  pointsRoutes(context, storefront, app);
  rewardListRoutes(context, rewards, app);
  widgetsRoutes(context, widgets, app);
}

/** Every other operation of the API, one router per module. */
export function apiRoutes(context: AppContext): Router[] {
  return [
    ordersRoutes(context),
    customersRoutes(
      context,
      new CustomersService(context.pool, context.clock, context.services.storefront),
    ),
    rewardClaimRoutes(context, context.services.rewards),
    referralsRoutes(context, context.services.referrals),
  ];
}

/** The back-office (Bearer JWT, under /admin), one router per module. */
export function adminRoutes(context: AppContext): Router[] {
  return [
    adminAuthRoutes(context.services.adminAuth, context.config.bodyLimit),
    storesAdminRoutes(context),
    pointsAdminRoutes(context),
    rewardsAdminRoutes(context),
    widgetsAdminRoutes(context),
    platformsAdminRoutes(context),
    webhooksAdminRoutes(context),
    referralsAdminRoutes(context),
    customersAdminRoutes(context),
    overviewAdminRoutes(context),
  ];
}
