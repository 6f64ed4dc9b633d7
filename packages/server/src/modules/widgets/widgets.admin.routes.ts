import { ADMIN_OPERATIONS, type WidgetKind } from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
import type { StoreRow } from "../stores/stores.repository.js";
import type { WidgetConfigs } from "./widgets.defaults.js";

/**
 * Back-office: widget configurations. A save or a reset answers once every process forgot the
 * one it served, so that the storefront read that follows, on any server, paints the new one.
 */
export function widgetsAdminRoutes(context: AppContext): Router {
  const { widgets } = context.services;
  const router = Router();
  const view = async <K extends WidgetKind>(store: StoreRow, kind: K) => {
    const { config, isDefault, updatedAt } = await widgets.stored(store, kind);
    return { kind, isDefault, updatedAt: updatedAt?.toISOString() ?? null, config };
  };
  // Answers with the configuration read back: what every read answers from now on.
  const save = async <K extends WidgetKind>(store: StoreRow, kind: K, config: WidgetConfigs[K]) => {
    await widgets.save(store.id, kind, config);
    return view(store, kind);
  };
  // Answers with the default now served, whether or not a configuration was saved.
  const reset = async <K extends WidgetKind>(store: StoreRow, kind: K) => {
    await widgets.reset(store.id, kind);
    return view(store, kind);
  };
  const propagates = { propagates: true };

  adminRoute(router, context, ADMIN_OPERATIONS.getCartWidgetConfiguration, ({ store }) =>
    view(store, "cart"),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.setCartWidgetConfiguration,
    ({ store, body }) => save(store, "cart", body),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.resetCartWidgetConfiguration,
    ({ store }) => reset(store, "cart"),
    propagates,
  );
  adminRoute(router, context, ADMIN_OPERATIONS.getProductPointsWidgetConfiguration, ({ store }) =>
    view(store, "product-points"),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.setProductPointsWidgetConfiguration,
    ({ store, body }) => save(store, "product-points", body),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.resetProductPointsWidgetConfiguration,
    ({ store }) => reset(store, "product-points"),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.getProgramPresentationWidgetConfiguration,
    ({ store }) => view(store, "program-presentation"),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.setProgramPresentationWidgetConfiguration,
    ({ store, body }) => save(store, "program-presentation", body),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.resetProgramPresentationWidgetConfiguration,
    ({ store }) => reset(store, "program-presentation"),
    propagates,
  );
  return router;
}
