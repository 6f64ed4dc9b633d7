import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";

/** Back-office: the platform connection. Credentials go in and never come out. */
export function platformsAdminRoutes(context: AppContext): Router {
  const { platforms } = context.services;
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.getPlatformConnection, ({ store }) =>
    platforms.connection(store.id),
  );
  // The connection lives on the store's row: its change makes every process drop the adapter
  // it holds for the store, so the next claim speaks to the new platform.
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.setPlatformConnection,
    async ({ store, body }) => {
      await platforms.connect(store.id, body, {
        allowPrivateUrls: context.config.allowPrivateUrls,
      });
      return platforms.connection(store.id);
    },
    { propagates: true },
  );
  adminRoute(router, context, ADMIN_OPERATIONS.testPlatformConnection, ({ store }) =>
    platforms.testConnection(store, context.logger),
  );
  return router;
}
