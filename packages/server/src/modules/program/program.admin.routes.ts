import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";

/** Back-office: how the store's points programme runs. */
export function programAdminRoutes({ program }: Pick<Services, "program">): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.getProgramSettings, ({ store }) => program.settings(store.id)),
    operationRoute(ADMIN_OPERATIONS.setProgramSettings, ({ store, body }) =>
      program.saveSettings(store.id, body),
    ),
  ];
}
