import type { ActivityOutcome, ActivityPeriod } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

export interface ActivityRow {
  id: number;
  activityId: string;
  kind: string;
  outcome: ActivityOutcome;
  points: number;
  recordedAt: Date;
}

const COLUMNS = `id, activity_id AS "activityId", kind, outcome, points, recorded_at AS "recordedAt"`;

/** The store's activity of this id, as first recorded. */
export async function findActivity(
  db: Queryable,
  storeId: number,
  activityId: string,
): Promise<ActivityRow | undefined> {
  const { rows } = await db.query<ActivityRow>(
    `SELECT ${COLUMNS} FROM activities WHERE store_id = $1 AND activity_id = $2`,
    [storeId, activityId],
  );
  return rows[0];
}

/**
 * Records the activity with its outcome, unless the store already has one of this id (then
 * undefined: the first stands).
 */
export async function insertActivity(
  db: Queryable,
  activity: {
    storeId: number;
    customerId: number;
    activityId: string;
    kind: string;
    label: string;
    outcome: ActivityOutcome;
    points: number;
    occurredAt: Date | null;
    recordedAt: Date;
  },
): Promise<ActivityRow | undefined> {
  const { rows } = await db.query<ActivityRow>(
    `INSERT INTO activities
       (store_id, customer_id, activity_id, kind, label, outcome, points, occurred_at, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (store_id, activity_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      activity.storeId,
      activity.customerId,
      activity.activityId,
      activity.kind,
      activity.label,
      activity.outcome,
      activity.points,
      activity.occurredAt,
      activity.recordedAt,
    ],
  );
  return rows[0];
}

/**
 * The customer's credited activities of a kind in the calendar period (UTC) holding `now`:
 * what a limit counts. Read under the customer's row lock, so that two activities of one
 * customer are judged one after the other.
 */
export async function creditsInPeriod(
  db: Queryable,
  customerId: number,
  kind: string,
  period: ActivityPeriod,
  now: Date,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM activities
     WHERE customer_id = $1 AND kind = $2 AND outcome = 'credited'
       AND recorded_at >= CASE WHEN $3 = 'lifetime' THEN '-infinity'::timestamptz
                               ELSE date_trunc($3, $4::timestamptz, 'UTC') END`,
    [customerId, kind, period, now],
  );
  return rows[0]?.n ?? 0;
}

/** The customer's row, locked: activities of one customer take their turn. */
export async function lockCustomerBalance(db: Queryable, customerId: number): Promise<number> {
  const { rows } = await db.query<{ balance: number }>(
    `SELECT balance FROM customers WHERE id = $1 FOR NO KEY UPDATE`,
    [customerId],
  );
  return rows[0]?.balance ?? 0;
}
