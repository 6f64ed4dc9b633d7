import { type AttributionRule, type Club } from "@loyalty/shared-types";
import type { ClubRow } from "./clubs.repository.js";
import type { RuleRow } from "./rules.repository.js";

export function ruleView(row: RuleRow): AttributionRule {
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

export function clubView(row: ClubRow): Club {
  return {
    id: row.id,
    name: row.name,
    threshold: row.threshold,
    multiplier: row.multiplier,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
