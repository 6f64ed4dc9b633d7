import type { Router } from "express";
import { ordersRoutes } from "./modules/orders/orders.routes.js";
import type { AppContext } from "./runtime.js";

/** Every operation of the API, one router per module. */
export function apiRoutes(context: AppContext): Router[] {
  return [ordersRoutes(context)];
}
