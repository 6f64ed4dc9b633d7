import { ADMIN_OPERATIONS, type WidgetKind } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import type { StoreRow } from "../stores/stores.repository.js";
import type { WidgetConfigs } from "./widgets.defaults.js";
import { widgetConfigurationView } from "./widgets.views.js";

/**
 * Back-office: widget configurations. A save or a reset answers once every process forgot the
 * one it served, so that the storefront read that follows, on any server, paints the new one.
 */
export function widgetsAdminRoutes({ widgets }: Pick<Services, "widgets">): OperationRoute[] {
  const view = async <K extends WidgetKind>(store: StoreRow, kind: K) =>
    widgetConfigurationView(kind, await widgets.stored(store, kind));
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

  return [
    operationRoute(ADMIN_OPERATIONS.getCartWidgetConfiguration, ({ store }) => view(store, "cart")),
    operationRoute(
      ADMIN_OPERATIONS.setCartWidgetConfiguration,
      ({ store, body }) => save(store, "cart", body),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.resetCartWidgetConfiguration,
      ({ store }) => reset(store, "cart"),
      propagates,
    ),
    operationRoute(ADMIN_OPERATIONS.getProductPointsWidgetConfiguration, ({ store }) =>
      view(store, "product-points"),
    ),
    operationRoute(
      ADMIN_OPERATIONS.setProductPointsWidgetConfiguration,
      ({ store, body }) => save(store, "product-points", body),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.resetProductPointsWidgetConfiguration,
      ({ store }) => reset(store, "product-points"),
      propagates,
    ),
    operationRoute(ADMIN_OPERATIONS.getProgramPresentationWidgetConfiguration, ({ store }) =>
      view(store, "program-presentation"),
    ),
    operationRoute(
      ADMIN_OPERATIONS.setProgramPresentationWidgetConfiguration,
      ({ store, body }) => save(store, "program-presentation", body),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.resetProgramPresentationWidgetConfiguration,
      ({ store }) => reset(store, "program-presentation"),
      propagates,
    ),
    operationRoute(ADMIN_OPERATIONS.getLauncherWidgetConfiguration, ({ store }) =>
      view(store, "launcher"),
    ),
    operationRoute(
      ADMIN_OPERATIONS.setLauncherWidgetConfiguration,
      ({ store, body }) => save(store, "launcher", body),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.resetLauncherWidgetConfiguration,
      ({ store }) => reset(store, "launcher"),
      propagates,
    ),
  ];
}
