import {
  ADMIN_OPERATIONS,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
import type { DeliveryRow } from "./webhook-deliveries.repository.js";
import type { WebhookEndpointRow } from "./webhook-endpoints.repository.js";

function endpointView(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function deliveryView(row: DeliveryRow): WebhookDelivery {
  return {
    ...row,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Back-office: webhook endpoints. A signing secret is shown once, when its endpoint is made. */
export function webhooksAdminRoutes(context: AppContext): Router {
  const { webhooks } = context.services;
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.listWebhookEndpoints, async ({ store }) =>
    (await webhooks.list(store.id)).map(endpointView),
  );
  adminRoute(router, context, ADMIN_OPERATIONS.createWebhookEndpoint, async ({ store, body }) => {
    const { secret, endpoint } = await webhooks.create(store.id, body, {
      allowPrivateUrls: context.config.allowPrivateUrls,
    });
    return { ...endpointView(endpoint), secret };
  });
  adminRoute(router, context, ADMIN_OPERATIONS.deleteWebhookEndpoint, async ({ store, params }) =>
    endpointView(await webhooks.deactivate(store.id, params.endpointId)),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.listWebhookDeliveries,
    async ({ store, params, query }) => {
      const page = await webhooks.deliveries(store.id, params.endpointId, query);
      return { deliveries: page.deliveries.map(deliveryView), nextCursor: page.nextCursor };
    },
  );
  adminRoute(router, context, ADMIN_OPERATIONS.redeliverWebhook, async ({ store, params }) =>
    deliveryView(await webhooks.redeliver(store.id, params.endpointId, params.deliveryId)),
  );
  return router;
}
