import type { RuleKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import type { Club } from "./clubs.js";
import type { Rule } from "./points.engine.js";

interface RuleRow {
  id: number;
  kind: RuleKind;
  target_id: number | null;
  rate: string;
  points_per_item: number;
}

/** A store's active attribution rules. */
export async function activeRules(db: Queryable, storeId: number): Promise<Rule[]> {
  const { rows } = await db.query<RuleRow>(
    `SELECT id, kind, target_id, rate, points_per_item
     FROM attribution_rules WHERE store_id = $1 AND active ORDER BY id`,
    [storeId],
  );
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    targetId: row.target_id,
    rate: Number(row.rate),
    pointsPerItem: row.points_per_item,
  }));
}

/** A store's clubs, lowest threshold first. */
export async function listClubs(db: Queryable, storeId: number): Promise<Club[]> {
  const { rows } = await db.query<{
    id: number;
    name: string;
    threshold: number;
    multiplier: string;
  }>(`SELECT id, name, threshold, multiplier FROM clubs WHERE store_id = $1 ORDER BY threshold`, [
    storeId,
  ]);
  return rows.map((row) => ({ ...row, multiplier: Number(row.multiplier) }));
}
