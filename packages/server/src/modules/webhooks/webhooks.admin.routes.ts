import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import type { Config } from "../../config.js";

import { deliveryView, endpointView } from "./webhooks.views.js";

/** Back-office: webhook endpoints. A signing secret is shown once, when its endpoint is made. */
export function webhooksAdminRoutes(
  { webhooks }: Pick<Services, "webhooks">,
  config: Pick<Config, "allowPrivateUrls">,
): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.listWebhookEndpoints, async ({ store }) =>
      (await webhooks.list(store.id)).map(endpointView),
    ),
    operationRoute(ADMIN_OPERATIONS.createWebhookEndpoint, async ({ store, body }) => {
      const { secret, endpoint } = await webhooks.create(store.id, body, {
        allowPrivateUrls: config.allowPrivateUrls,
      });
      return { ...endpointView(endpoint), secret };
    }),
    operationRoute(ADMIN_OPERATIONS.deleteWebhookEndpoint, async ({ store, params }) =>
      endpointView(await webhooks.deactivate(store.id, params.endpointId)),
    ),
    operationRoute(ADMIN_OPERATIONS.listWebhookDeliveries, async ({ store, params, query }) => {
      const page = await webhooks.deliveries(store.id, params.endpointId, query);
      return { deliveries: page.deliveries.map(deliveryView), nextCursor: page.nextCursor };
    }),
    operationRoute(ADMIN_OPERATIONS.redeliverWebhook, async ({ store, params }) =>
      deliveryView(await webhooks.redeliver(store.id, params.endpointId, params.deliveryId)),
    ),
  ];
}
