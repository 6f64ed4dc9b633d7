import type { WidgetKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** The configuration the back-office saved for this widget, as stored (unvalidated). */
export async function findWidgetConfiguration(
  db: Queryable,
  storeId: number,
  kind: WidgetKind,
): Promise<unknown> {
  const { rows } = await db.query<{ config: unknown }>(
    `SELECT config FROM widget_configurations WHERE store_id = $1 AND kind = $2`,
    [storeId, kind],
  );
  return rows[0]?.config;
}

export async function saveWidgetConfiguration(
  db: Queryable,
  storeId: number,
  kind: WidgetKind,
  config: unknown,
): Promise<void> {
  await db.query(
    `INSERT INTO widget_configurations (store_id, kind, config) VALUES ($1, $2, $3)
     ON CONFLICT (store_id, kind) DO UPDATE SET config = excluded.config, updated_at = now()`,
    [storeId, kind, JSON.stringify(config)],
  );
}
