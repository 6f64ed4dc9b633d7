import { activitiesRoutes } from "./modules/activities/activities.routes.js";
import { adminAuthRoutes } from "./modules/admin/admin-auth.routes.js";
import { customersAdminRoutes } from "./modules/customers/customers.admin.routes.js";
import { customersRoutes } from "./modules/customers/customers.routes.js";
import { ordersRoutes } from "./modules/orders/orders.routes.js";
import { overviewAdminRoutes } from "./modules/overview/overview.admin.routes.js";
import { platformsAdminRoutes } from "./modules/platforms/platforms.admin.routes.js";
import { pointsAdminRoutes } from "./modules/points/points.admin.routes.js";
import { pointsRoutes } from "./modules/points/points.routes.js";
import { programAdminRoutes } from "./modules/program/program.admin.routes.js";
import { referralsAdminRoutes } from "./modules/referrals/referrals.admin.routes.js";
import { referralsRoutes } from "./modules/referrals/referrals.routes.js";
import { rewardsAdminRoutes } from "./modules/rewards/rewards.admin.routes.js";
import { rewardsRoutes } from "./modules/rewards/rewards.routes.js";
import { storesAdminRoutes } from "./modules/stores/stores.admin.routes.js";
import { webhooksAdminRoutes } from "./modules/webhooks/webhooks.admin.routes.js";
import { widgetsAdminRoutes } from "./modules/widgets/widgets.admin.routes.js";
import { widgetsRoutes } from "./modules/widgets/widgets.routes.js";
import type { OperationRoute } from "./http/operation.js";
import type { AppContext } from "./runtime.js";

/**
 * Every operation of the API (OPERATIONS) and of the back-office (ADMIN_OPERATIONS), each
 * bound to its handler by its module; `mountOperations` mounts them all the same way.
 */
export function operationRoutes({ config, logger, services }: AppContext): OperationRoute[] {
  const { storefrontMaxAge } = config;
  return [
    ...pointsRoutes(services, storefrontMaxAge),
    ...rewardsRoutes(services, storefrontMaxAge),
    ...widgetsRoutes(services, storefrontMaxAge),
    ...ordersRoutes(services),
    ...activitiesRoutes(services),
    ...customersRoutes(services),
    ...referralsRoutes(services),
    ...adminAuthRoutes(services),
    ...storesAdminRoutes(services),
    ...pointsAdminRoutes(services),
    ...rewardsAdminRoutes(services),
    ...widgetsAdminRoutes(services),
    ...platformsAdminRoutes(services, config, logger),
    ...webhooksAdminRoutes(services, config),
    ...programAdminRoutes(services),
    ...referralsAdminRoutes(services),
    ...customersAdminRoutes(services),
    ...overviewAdminRoutes(services),
  ];
}
