import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import { clubView, ruleView } from "./points.views.js";

/**
 * Back-office: attribution rules, what a product earns under them, and clubs. Writes answer
 * once every process heard of them: `calculate` serves the rules from memory.
 */
export function pointsAdminRoutes({
  rules,
  clubs,
  pointsPreview,
}: Pick<Services, "rules" | "clubs" | "pointsPreview">): OperationRoute[] {
  const propagates = { propagates: true };

  return [
    operationRoute(ADMIN_OPERATIONS.listRules, async ({ store }) =>
      (await rules.list(store.id)).map(ruleView),
    ),
    operationRoute(
      ADMIN_OPERATIONS.createRule,
      async ({ store, body }) => ruleView(await rules.create(store.id, body)),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.updateRule,
      async ({ store, params, body }) =>
        ruleView(await rules.update(store.id, params.ruleId, body)),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.deleteRule,
      ({ store, params }) => rules.delete(store.id, params.ruleId),
      propagates,
    ),
    operationRoute(ADMIN_OPERATIONS.previewProductPoints, ({ store, query }) =>
      pointsPreview.preview(store.id, query),
    ),

    operationRoute(ADMIN_OPERATIONS.listClubs, async ({ store }) =>
      (await clubs.list(store.id)).map(clubView),
    ),
    operationRoute(
      ADMIN_OPERATIONS.createClub,
      async ({ store, body }) => clubView(await clubs.create(store.id, body)),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.updateClub,
      async ({ store, params, body }) =>
        clubView(await clubs.update(store.id, params.clubId, body)),
      propagates,
    ),
    operationRoute(
      ADMIN_OPERATIONS.deleteClub,
      ({ store, params }) => clubs.delete(store.id, params.clubId),
      propagates,
    ),
  ];
}
