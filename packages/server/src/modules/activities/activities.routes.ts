import { OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";

/** POST /api/activity (Basic). */
export function activitiesRoutes({ activities }: Pick<Services, "activities">): OperationRoute[] {
  return [
    operationRoute(OPERATIONS.recordActivity, ({ store, body }) => activities.record(store, body)),
  ];
}
