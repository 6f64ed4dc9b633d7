import type { EventData, EventType } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";

export type OutboxEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/**
 * Writes events to the outbox in the caller's transaction, with one webhook delivery per
 * active endpoint of the store subscribed to the event's type and one job per delivery: the
 * events exist, and will be delivered, exactly when the change that caused them commits.
 * One statement, whatever the number of events.
 */
export async function recordEvents(
  db: Queryable,
  storeId: number,
  events: readonly OutboxEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `WITH events AS (
       INSERT INTO outbox_events (store_id, type, payload, dispatched_at)
       SELECT $1, e.type, e.payload, now()
       FROM unnest($2::text[], $3::jsonb[]) WITH ORDINALITY AS e(type, payload, position)
       ORDER BY e.position
       RETURNING id, type
     ), deliveries AS (
       INSERT INTO webhook_deliveries (event_id, endpoint_id)
       SELECT events.id, endpoint.id
       FROM events
       JOIN webhook_endpoints endpoint
         ON endpoint.store_id = $1
        AND endpoint.active
        AND (endpoint.events = '{}' OR events.type = ANY (endpoint.events))
       ORDER BY events.id, endpoint.id
       RETURNING id
     )
     SELECT graphile_worker.add_job('deliver-webhook', json_build_object('deliveryId', id))
     FROM deliveries`,
    [storeId, events.map((event) => event.type), events.map((event) => JSON.stringify(event.data))],
  );
}
