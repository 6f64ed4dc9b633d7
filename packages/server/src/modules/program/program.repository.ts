import type { ProgramSettings } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** Every setting at its default: the spec's behaviour, for a store that never set any. */
export const DEFAULT_PROGRAM_SETTINGS: ProgramSettings = { pendingDays: 0 };

/** How the store's programme runs; the defaults while it has set nothing. */
export async function findProgramSettings(
  db: Queryable,
  storeId: number,
): Promise<ProgramSettings> {
  const { rows } = await db.query<{ pending_days: number }>(
    `SELECT pending_days FROM program_settings WHERE store_id = $1`,
    [storeId],
  );
  const row = rows[0];
  return row ? { pendingDays: row.pending_days } : DEFAULT_PROGRAM_SETTINGS;
}

export async function saveProgramSettings(
  db: Queryable,
  storeId: number,
  settings: ProgramSettings,
): Promise<void> {
  await db.query(
    `INSERT INTO program_settings (store_id, pending_days) VALUES ($1, $2)
     ON CONFLICT (store_id) DO UPDATE SET pending_days = excluded.pending_days, updated_at = now()`,
    [storeId, settings.pendingDays],
  );
}
