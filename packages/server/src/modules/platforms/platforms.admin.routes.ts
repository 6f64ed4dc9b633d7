import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import type { Config } from "../../config.js";
import type { Logger } from "pino";

/** Back-office: the platform connection. Credentials go in and never come out. */
export function platformsAdminRoutes(
  { platforms }: Pick<Services, "platforms">,
  config: Pick<Config, "allowPrivateUrls">,
  logger: Logger,
): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.getPlatformConnection, ({ store }) =>
      platforms.connection(store.id),
    ),
    // The connection lives on the store's row: its change makes every process drop the adapter
    // it holds for the store, so the next claim speaks to the new platform.
    operationRoute(
      ADMIN_OPERATIONS.setPlatformConnection,
      async ({ store, body }) => {
        await platforms.connect(store.id, body, {
          allowPrivateUrls: config.allowPrivateUrls,
        });
        return platforms.connection(store.id);
      },
      { propagates: true },
    ),
    operationRoute(ADMIN_OPERATIONS.testPlatformConnection, ({ store }) =>
      platforms.testConnection(store, logger),
    ),
  ];
}
