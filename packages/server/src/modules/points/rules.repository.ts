import type { RuleKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { setClause } from "../../db/set-clause.js";
import type { Rule } from "./points.engine.js";

/** An attribution rule as the back-office sees it: the engine's rule, named and dated. */
export interface RuleRow extends Rule {
  name: string;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The unique index allowing one active rule per product, per category, and one default. */
export const ONE_ACTIVE_RULE_INDEX = "attribution_rules_one_active";

const RULE_COLUMNS = `id, kind, target_id AS "targetId", name, rate,
  points_per_item AS "pointsPerItem", active, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** pg reads numeric as text, to keep it exact: the rate has 4 decimals, a number holds them. */
type StoredRule = Omit<RuleRow, "rate"> & { rate: string };

function toRule(row: StoredRule): RuleRow {
  return { ...row, rate: Number(row.rate) };
}

export async function listRules(db: Queryable, storeId: number): Promise<RuleRow[]> {
  const { rows } = await db.query<StoredRule>(
    `SELECT ${RULE_COLUMNS} FROM attribution_rules WHERE store_id = $1 ORDER BY id`,
    [storeId],
  );
  return rows.map(toRule);
}

export async function findRule(
  db: Queryable,
  storeId: number,
  ruleId: number,
): Promise<RuleRow | undefined> {
  const { rows } = await db.query<StoredRule>(
    `SELECT ${RULE_COLUMNS} FROM attribution_rules WHERE store_id = $1 AND id = $2`,
    [storeId, ruleId],
  );
  return rows[0] && toRule(rows[0]);
}

/** The id of the active rule for this product, category or default, other than `exceptId`. */
export async function findActiveRuleFor(
  db: Queryable,
  storeId: number,
  target: { kind: RuleKind; targetId: number | null },
  exceptId?: number,
): Promise<number | undefined> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM attribution_rules
     WHERE store_id = $1 AND kind = $2 AND target_id IS NOT DISTINCT FROM $3 AND active
       AND id IS DISTINCT FROM $4`,
    [storeId, target.kind, target.targetId, exceptId ?? null],
  );
  return rows[0]?.id;
}

export async function insertRule(
  db: Queryable,
  storeId: number,
  rule: Omit<RuleRow, "id" | "createdAt" | "updatedAt">,
): Promise<RuleRow> {
  const { rows } = await db.query<StoredRule>(
    `INSERT INTO attribution_rules (store_id, kind, target_id, name, rate, points_per_item, active)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${RULE_COLUMNS}`,
    [storeId, rule.kind, rule.targetId, rule.name, rule.rate, rule.pointsPerItem, rule.active],
  );
  return toRule(rows[0] as StoredRule);
}

/** The columns a back-office update may change, by field name. */
const UPDATABLE = {
  name: "name",
  rate: "rate",
  pointsPerItem: "points_per_item",
  active: "active",
} as const;

export type RuleUpdate = Partial<Pick<RuleRow, keyof typeof UPDATABLE>>;

export async function updateRule(
  db: Queryable,
  storeId: number,
  ruleId: number,
  changes: RuleUpdate,
): Promise<RuleRow | undefined> {
  const set = setClause(UPDATABLE, changes, 3);
  const { rows } = await db.query<StoredRule>(
    `UPDATE attribution_rules SET ${set.sql}
     WHERE store_id = $1 AND id = $2 RETURNING ${RULE_COLUMNS}`,
    [storeId, ruleId, ...set.values],
  );
  return rows[0] && toRule(rows[0]);
}

/** False when the store has no such rule. */
export async function deleteRule(db: Queryable, storeId: number, ruleId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM attribution_rules WHERE store_id = $1 AND id = $2`,
    [storeId, ruleId],
  );
  return rowCount === 1;
}
