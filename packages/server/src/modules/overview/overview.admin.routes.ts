import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";

/** Back-office: the programme overview (the merchant's dashboard). */
export function overviewAdminRoutes({ overview }: Pick<Services, "overview">): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.getProgramOverview, ({ store, query }) =>
      overview.overview(store, query),
    ),
  ];
}
