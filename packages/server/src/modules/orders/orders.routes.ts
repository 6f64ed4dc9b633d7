import { OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { OrdersService } from "./orders.service.js";
import { refundView, registrationView } from "./orders.views.js";

/**
 * POST /api/order/register and /api/order/refund (Basic). Both answer 201 once the request is
 * durably stored with its job; a worker computes the points.
 */
export function ordersRoutes({ orders }: { orders: OrdersService }): OperationRoute[] {
  return [
    operationRoute(OPERATIONS.registerOrder, async ({ store, body }) =>
      registrationView(body, await orders.register(store, body)),
    ),
    operationRoute(OPERATIONS.refundOrder, async ({ store, body }) =>
      refundView(body, await orders.refund(store, body)),
    ),
  ];
}
