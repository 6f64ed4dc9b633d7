import type { EventType } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** A delivery as the back-office's log shows it. */
export interface DeliveryRow {
  id: number;
  eventId: number;
  event: EventType;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", e.type AS event, d.status, d.attempts,
  d.last_status_code AS "lastStatusCode", d.last_error AS "lastError",
  d.next_attempt_at AS "nextAttemptAt", d.delivered_at AS "deliveredAt",
  d.created_at AS "createdAt"`;

/**
 * The endpoint's deliveries, newest first, from before `beforeId` when given, with `status`
 * when given: at most `limit` rows. The endpoint is the caller's to have checked.
 */
export async function listDeliveries(
  db: Queryable,
  endpointId: number,
  filter: { status: DeliveryStatus | null; beforeId: number | null; limit: number },
): Promise<DeliveryRow[]> {
  const values: unknown[] = [[endpointId], filter.limit];
  const conditions = ["d.endpoint_id = ANY ($1::bigint[])"];
  if (filter.status !== null) {
    values.push(filter.status);
    conditions.push(`d.status = $${values.length}`);
  }
  if (filter.beforeId !== null) {
    values.push(filter.beforeId);
    conditions.push(`d.id < $${values.length}`);
  }
  // The endpoint as a one-element array, and the order led by it: written `endpoint_id = $1`
  // and `ORDER BY d.id DESC`, the planner may walk the primary key backwards for an endpoint
  // holding many rows, through every newer delivery of every other endpoint, which for an
  // endpoint deleted a while ago is all of them (865 ms among 2.5 million rows, against
  // 0.1 ms). So the page is read from webhook_deliveries_by_endpoint, or with a status from
  // webhook_deliveries_by_endpoint_status, in the index's order: no more rows than it answers.
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS}
     FROM webhook_deliveries d
     JOIN outbox_events e ON e.id = d.event_id
     WHERE ${conditions.join(" AND ")}
     ORDER BY d.endpoint_id, d.id DESC
     LIMIT $2`,
    values,
  );
  return rows;
}

export async function findDelivery(
  db: Queryable,
  endpointId: number,
  deliveryId: number,
): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS}
     FROM webhook_deliveries d
     JOIN outbox_events e ON e.id = d.event_id
     WHERE d.endpoint_id = $1 AND d.id = $2`,
    [endpointId, deliveryId],
  );
  return rows[0];
}

/**
 * Makes a delivery due now, unless an attempt of it is already due or under way: one that is
 * pending with no retry scheduled (its first attempt) or a retry whose time has come. So of two
 * requests only the first applies; the second, waiting for the first's row lock, reads the row
 * the first wrote, whose `next_attempt_at` (the first's `now()`) is already past. The attempt
 * counter and the last attempt's outcome are kept: they describe what was tried. Returns
 * whether it applied.
 */
export async function scheduleRedelivery(
  db: Queryable,
  endpointId: number,
  deliveryId: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries
     SET status = 'pending', next_attempt_at = now(), updated_at = now()
     WHERE endpoint_id = $1 AND id = $2
       AND (status <> 'pending' OR next_attempt_at > clock_timestamp())`,
    [endpointId, deliveryId],
  );
  return rowCount === 1;
}
