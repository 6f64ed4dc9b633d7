import type { Router } from "express";
import { customersRoutes } from "./modules/customers/customers.routes.js";
import { CustomersService } from "./modules/customers/customers.service.js";
import { ordersRoutes } from "./modules/orders/orders.routes.js";
import type { AppContext } from "./runtime.js";

/** Every operation of the API, one router per module. */
export function apiRoutes(context: AppContext): Router[] {
  return [
    ordersRoutes(context),
    customersRoutes(context, new CustomersService(context.pool, context.clock)),
  ];
}
