import type { WidgetKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** A widget's configuration as stored: unvalidated, as it was written. */
export interface StoredWidgetConfiguration {
  config: unknown;
  updatedAt: Date;
}

/** The configuration the back-office saved for this widget, if any. */
export async function findWidgetConfiguration(
  db: Queryable,
  storeId: number,
  kind: WidgetKind,
): Promise<StoredWidgetConfiguration | undefined> {
  const { rows } = await db.query<StoredWidgetConfiguration>(
    `SELECT config, updated_at AS "updatedAt" FROM widget_configurations
     WHERE store_id = $1 AND kind = $2`,
    [storeId, kind],
  );
  return rows[0];
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

/** Forgets the configuration the back-office saved for this widget; none saved is no error. */
export async function deleteWidgetConfiguration(
  db: Queryable,
  storeId: number,
  kind: WidgetKind,
): Promise<void> {
  await db.query(`DELETE FROM widget_configurations WHERE store_id = $1 AND kind = $2`, [
    storeId,
    kind,
  ]);
}
