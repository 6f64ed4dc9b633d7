import type { ActivityOutcome, ActivityPeriod } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

export interface ActivityRow {
  id: number;
  /** The customer it was credited to (or not), by the store's id for them. */
  customerExternalId: number;
  activityId: string;
  kind: string;
  outcome: ActivityOutcome;
  points: number;
  recordedAt: Date;
}

const COLUMNS = `id, activity_id AS "activityId", kind, outcome, points, recorded_at AS "recordedAt",
  (SELECT external_id FROM customers c WHERE c.id = customer_id) AS "customerExternalId"`;

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

/**
 * The store's customer, created when the service meets them first through an activity, and
 * locked: activities of one customer take their turn. Details fill only what the service does
 * not know yet, and never those of an erased customer: an activity brings no one back.
 */
export async function lockActivityCustomer(
  db: Queryable,
  storeId: number,
  customer: { externalId: number; email?: string; firstName?: string; lastName?: string },
): Promise<{ id: number; balance: number }> {
  const { rows } = await db.query<{ id: number; balance: number }>(
    `INSERT INTO customers (store_id, external_id, email, first_name, last_name)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (store_id, external_id) DO UPDATE SET
       email = CASE WHEN customers.erased_at IS NULL
                    THEN coalesce(customers.email, excluded.email) END,
       first_name = CASE WHEN customers.erased_at IS NULL
                         THEN coalesce(customers.first_name, excluded.first_name) END,
       last_name = CASE WHEN customers.erased_at IS NULL
                        THEN coalesce(customers.last_name, excluded.last_name) END
     RETURNING id, balance`,
    [
      storeId,
      customer.externalId,
      customer.email?.toLowerCase() ?? null,
      customer.firstName ?? null,
      customer.lastName ?? null,
    ],
  );
  return rows[0] as { id: number; balance: number };
}
