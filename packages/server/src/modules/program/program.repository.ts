import {
  DEFAULT_CLUB_POLICY,
  type ActivityRule,
  type ClubPolicy,
  type ExpiryPolicy,
  type ProgramSettings,
} from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** Every setting at its default: the spec's behaviour, for a store that never set any. */
export const DEFAULT_PROGRAM_SETTINGS: ProgramSettings = {
  pendingDays: 0,
  expiry: { mode: "off" },
  activities: [],
  clubs: DEFAULT_CLUB_POLICY,
};

interface SettingsRow {
  pending_days: number;
  expiry_mode: ExpiryPolicy["mode"];
  expiry_months: number | null;
  expiry_warning_days: number;
  activities: ActivityRule[];
  club_basis: ClubPolicy["basis"];
  club_period: ClubPolicy["period"];
  club_downgrade: ClubPolicy["downgrade"];
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
  return {
    pendingDays: row.pending_days,
    expiry,
    activities: row.activities,
    clubs: { basis: row.club_basis, period: row.club_period, downgrade: row.club_downgrade },
  };
}

/** How the store's programme runs; the defaults while it has set nothing. */
export async function findProgramSettings(
  db: Queryable,
  storeId: number,
): Promise<ProgramSettings> {
  const { rows } = await db.query<SettingsRow>(
    `SELECT pending_days, expiry_mode, expiry_months, expiry_warning_days, activities,
       club_basis, club_period, club_downgrade
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
         (store_id, pending_days, expiry_mode, expiry_months, expiry_warning_days, activities,
        club_basis, club_period, club_downgrade)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (store_id) DO UPDATE SET pending_days = excluded.pending_days,
       expiry_mode = excluded.expiry_mode, expiry_months = excluded.expiry_months,
       expiry_warning_days = excluded.expiry_warning_days, activities = excluded.activities,
       club_basis = excluded.club_basis, club_period = excluded.club_period,
       club_downgrade = excluded.club_downgrade, updated_at = now()`,
    [
      storeId,
      settings.pendingDays,
      expiry.mode,
      expiry.mode === "off" ? null : expiry.months,
      expiry.mode === "off" ? 30 : expiry.warningDays,
      JSON.stringify(settings.activities),
      settings.clubs.basis,
      settings.clubs.period,
      settings.clubs.downgrade,
    ],
  );
}
