import { ADMIN_OPERATIONS, type AttributionRule, type Club } from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
import type { ClubRow } from "./clubs.repository.js";
import { PointsPreviewService } from "./points.service.js";
import type { RuleRow } from "./rules.repository.js";

function ruleView(row: RuleRow): AttributionRule {
  return {
    id: row.id,
    kind: row.kind,
    targetId: row.targetId,
    name: row.name,
    rate: row.rate,
    pointsPerItem: row.pointsPerItem,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function clubView(row: ClubRow): Club {
  return {
    id: row.id,
    name: row.name,
    threshold: row.threshold,
    multiplier: row.multiplier,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Back-office: attribution rules, what a product earns under them, and clubs. Writes answer
 * once every process heard of them: `calculate` serves the rules from memory.
 */
export function pointsAdminRoutes(context: AppContext): Router {
  const { rules, clubs } = context.services;
  const points = new PointsPreviewService(context.pool);
  const router = Router();
  const propagates = { propagates: true };

  adminRoute(router, context, ADMIN_OPERATIONS.listRules, async ({ store }) =>
    (await rules.list(store.id)).map(ruleView),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.createRule,
    async ({ store, body }) => ruleView(await rules.create(store.id, body)),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.updateRule,
    async ({ store, params, body }) => ruleView(await rules.update(store.id, params.ruleId, body)),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.deleteRule,
    ({ store, params }) => rules.delete(store.id, params.ruleId),
    propagates,
  );
  adminRoute(router, context, ADMIN_OPERATIONS.previewProductPoints, ({ store, query }) =>
    points.preview(store.id, query),
  );

  adminRoute(router, context, ADMIN_OPERATIONS.listClubs, async ({ store }) =>
    (await clubs.list(store.id)).map(clubView),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.createClub,
    async ({ store, body }) => clubView(await clubs.create(store.id, body)),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.updateClub,
    async ({ store, params, body }) => clubView(await clubs.update(store.id, params.clubId, body)),
    propagates,
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.deleteClub,
    ({ store, params }) => clubs.delete(store.id, params.clubId),
    propagates,
  );
  return router;
}
