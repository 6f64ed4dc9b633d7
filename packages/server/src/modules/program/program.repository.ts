import type { ActivityRule, ExpiryPolicy, ProgramSettings } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** Every setting at its default: the spec's behaviour, for a store that never set any. */
export const DEFAULT_PROGRAM_SETTINGS: ProgramSettings = {
  pendingDays: 0,
  expiry: { mode: "off" },
  activities: [],
};

interface SettingsRow {
  pending_days: number;
  expiry_mode: ExpiryPolicy["mode"];
  expiry_months: number | null;
  expiry_warning_days: number;
  activities: ActivityRule[];
}

function settingsOf(row: SettingsRow): ProgramSettings {
  const expiry: ExpiryPolicy =
    row.expiry_mode === "off" || row.expiry_months === null
      ? { mode: "off" }
      : {
          mode: row.expiry_mode,
          months: row.expiry_months,
          warningDays: row.expiry_warning_days,
        };
  return { pendingDays: row.pending_days, expiry, activities: row.activities };
}

/** How the store's programme runs; the defaults while it has set nothing. */
export async function findProgramSettings(
  db: Queryable,
  storeId: number,
): Promise<ProgramSettings> {
  const { rows } = await db.query<SettingsRow>(
    `SELECT pending_days, expiry_mode, expiry_months, expiry_warning_days, activities
     FROM program_settings WHERE store_id = $1`,
    [storeId],
  );
  const row = rows[0];
  return row ? settingsOf(row) : DEFAULT_PROGRAM_SETTINGS;
}

export async function saveProgramSettings(
  db: Queryable,
  storeId: number,
  settings: ProgramSettings,
): Promise<void> {
  const { expiry } = settings;
  await db.query(
    `INSERT INTO program_settings
       (store_id, pending_days, expiry_mode, expiry_months, expiry_warning_days, activities)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (store_id) DO UPDATE SET pending_days = excluded.pending_days,
       expiry_mode = excluded.expiry_mode, expiry_months = excluded.expiry_months,
       expiry_warning_days = excluded.expiry_warning_days, activities = excluded.activities,
       updated_at = now()`,
    [
      storeId,
      settings.pendingDays,
      expiry.mode,
      expiry.mode === "off" ? null : expiry.months,
      expiry.mode === "off" ? 30 : expiry.warningDays,
      JSON.stringify(settings.activities),
    ],
  );
}
