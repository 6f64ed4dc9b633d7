import type { EventType } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

/** An endpoint as reads show it: never its secret. */
export interface WebhookEndpointRow {
  id: number;
  storeId: number;
  url: string;
  /** Empty: every event type. */
  events: EventType[];
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const ENDPOINT_COLUMNS = `id, store_id AS "storeId", url, events, active,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export async function insertWebhookEndpoint(
  db: Queryable,
  endpoint: { storeId: number; url: string; events: readonly EventType[]; secret: Buffer },
): Promise<WebhookEndpointRow> {
  const { rows } = await db.query<WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (store_id, url, events, secret) VALUES ($1, $2, $3, $4)
     RETURNING ${ENDPOINT_COLUMNS}`,
    [endpoint.storeId, endpoint.url, endpoint.events, endpoint.secret],
  );
  return rows[0] as WebhookEndpointRow;
}

export async function listWebhookEndpoints(
  db: Queryable,
  storeId: number,
): Promise<WebhookEndpointRow[]> {
  const { rows } = await db.query<WebhookEndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE store_id = $1 ORDER BY id`,
    [storeId],
  );
  return rows;
}

/** One of the store's endpoints, active or not; undefined when the store has no such endpoint. */
export async function findWebhookEndpoint(
  db: Queryable,
  storeId: number,
  endpointId: number,
): Promise<WebhookEndpointRow | undefined> {
  const { rows } = await db.query<WebhookEndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE store_id = $1 AND id = $2`,
    [storeId, endpointId],
  );
  return rows[0];
}

/** Deactivates one of the store's endpoints; undefined when the store has no such endpoint. */
export async function deactivateWebhookEndpoint(
  db: Queryable,
  storeId: number,
  endpointId: number,
): Promise<WebhookEndpointRow | undefined> {
  const { rows } = await db.query<WebhookEndpointRow>(
    `UPDATE webhook_endpoints
     SET active = false, updated_at = CASE WHEN active THEN now() ELSE updated_at END
     WHERE store_id = $1 AND id = $2
     RETURNING ${ENDPOINT_COLUMNS}`,
    [storeId, endpointId],
  );
  return rows[0];
}

/** A delivery with everything needed to make its next attempt. */
export interface DeliveryToAttempt {
  id: number;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  event: { id: number; type: EventType; payload: unknown; createdAt: Date };
  endpoint: { id: number; storeId: number; url: string; secret: Buffer; active: boolean };
}

export async function findDeliveryToAttempt(
  db: Queryable,
  deliveryId: number,
): Promise<DeliveryToAttempt | undefined> {
  const { rows } = await db.query<{
    id: number;
    status: DeliveryToAttempt["status"];
    attempts: number;
    eventId: number;
    type: EventType;
    payload: unknown;
    createdAt: Date;
    endpointId: number;
    storeId: number;
    url: string;
    secret: Buffer;
    active: boolean;
  }>(
    `SELECT d.id, d.status, d.attempts,
       e.id AS "eventId", e.type, e.payload, e.created_at AS "createdAt",
       w.id AS "endpointId", w.store_id AS "storeId", w.url, w.secret, w.active
     FROM webhook_deliveries d
     JOIN outbox_events e ON e.id = d.event_id
     JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.id = $1`,
    [deliveryId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    status: row.status,
    attempts: row.attempts,
    event: { id: row.eventId, type: row.type, payload: row.payload, createdAt: row.createdAt },
    endpoint: {
      id: row.endpointId,
      storeId: row.storeId,
      url: row.url,
      secret: row.secret,
      active: row.active,
    },
  };
}

export async function markDeliveryDelivered(
  db: Queryable,
  deliveryId: number,
  statusCode: number,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
     SET status = 'delivered', attempts = attempts + 1, last_status_code = $2, last_error = NULL,
       next_attempt_at = NULL, delivered_at = now(), updated_at = now()
     WHERE id = $1 AND status = 'pending'`,
    [deliveryId, statusCode],
  );
}

/**
 * Records a failed attempt: pending again until `nextAttemptAt`, or failed for good when it is
 * null. Applies only if no other attempt was recorded since `previousAttempts` was read, so
 * that two runs of the same delivery never schedule two retries; returns whether it applied.
 */
export async function recordFailedAttempt(
  db: Queryable,
  deliveryId: number,
  attempt: {
    previousAttempts: number;
    statusCode: number | null;
    error: string;
    nextAttemptAt: Date | null;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries
     SET attempts = attempts + 1, last_status_code = $3, last_error = $4, next_attempt_at = $5,
       status = CASE WHEN $5::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
       updated_at = now()
     WHERE id = $1 AND status = 'pending' AND attempts = $2`,
    [
      deliveryId,
      attempt.previousAttempts,
      attempt.statusCode,
      attempt.error,
      attempt.nextAttemptAt,
    ],
  );
  return rowCount === 1;
}

/** Gives a delivery up without an attempt, when there is nobody to deliver it to. */
export async function abandonDelivery(
  db: Queryable,
  deliveryId: number,
  reason: string,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
     SET status = 'failed', last_error = $2, next_attempt_at = NULL, updated_at = now()
     WHERE id = $1 AND status = 'pending'`,
    [deliveryId, reason],
  );
}
