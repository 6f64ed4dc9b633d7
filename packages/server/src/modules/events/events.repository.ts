import type { EventData, EventType } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { jobSql } from "../../jobs/queue.js";

export type OutboxEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

const deliveryJob = jobSql("deliver-webhook", { deliveryId: "id" });
/** The task of the outbox's jobs: the value of outboxCtes' `taskParam`. */
export const outboxJobTask = deliveryJob.task;

/**
 * The common table expressions that write events to the outbox, with one webhook delivery per
 * active endpoint of the store subscribed to the event's type and one job per delivery: the
 * events exist, and will be delivered, exactly when the change that caused them commits.
 *
 * `source` names a relation of the statement with columns (store_id, type, payload, position).
 * The statement must read `jobs` (say `(SELECT count(*) FROM jobs)`): PostgreSQL runs a CTE
 * that modifies nothing only when it is read. `taskParam` numbers the statement's parameter
 * bound to `outboxJobTask`, `priorityParam` (when given) the one of the delivery jobs' priority.
 */
export function outboxCtes(source: string, taskParam: number, priorityParam?: number): string {
  const task = `$${taskParam}::text`;
  const priority = priorityParam === undefined ? "" : `, priority => $${priorityParam}::int`;
  return `events AS (
       INSERT INTO outbox_events (store_id, type, payload, dispatched_at)
       SELECT store_id, type, payload, now() FROM ${source} ORDER BY position
       RETURNING id, store_id, type
     ), deliveries AS (
       INSERT INTO webhook_deliveries (event_id, endpoint_id)
       SELECT events.id, endpoint.id
       FROM events
       JOIN webhook_endpoints endpoint
         ON endpoint.store_id = events.store_id
        AND endpoint.active
        AND (endpoint.events = '{}' OR events.type = ANY (endpoint.events))
       ORDER BY events.id, endpoint.id
       RETURNING id
     ), jobs AS (
       SELECT graphile_worker.add_job(${task}, ${deliveryJob.payload}${priority})
       FROM deliveries
     )`;
}

/**
 * The delivery jobs' priority for events a batch job writes by the hundred thousand (expiry,
 * club reviews): graphile-worker runs lower numbers first, 0 being the default, so that their
 * deliveries never hold the orders' crediting behind them.
 */
export const BACKGROUND_PRIORITY = 10;

/**
 * Writes events in the caller's transaction (see outboxCtes). One statement, whatever their
 * number. `background`: their deliveries wait behind other jobs (BACKGROUND_PRIORITY).
 */
export async function recordEvents(
  db: Queryable,
  storeId: number,
  events: readonly OutboxEvent[],
  { background = false }: { background?: boolean } = {},
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `WITH new_events AS (
       SELECT $1::bigint AS store_id, e.type, e.payload, e.position
       -- One JSON array, not a jsonb[]: node-postgres escapes every quote of every element of
       -- an array parameter.
       FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (type text, payload jsonb))
         WITH ORDINALITY AS e(type, payload, position)
     ), ${outboxCtes("new_events", 3, 4)}
     SELECT count(*) FROM jobs`,
    [
      storeId,
      JSON.stringify(events.map((event) => ({ type: event.type, payload: event.data }))),
      outboxJobTask,
      background ? BACKGROUND_PRIORITY : 0,
    ],
  );
}
