import type { RefundStatus } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { jobSql } from "../../jobs/queue.js";
import type { EarnSnapshot, RefundDeclaration } from "../points/points.engine.js";

/** An order as the request stored it: what the worker needs to credit it. */
export interface StoredOrderPayload {
  customer: {
    externalId: number;
    email?: string | undefined;
    firstName?: string | undefined;
    lastName?: string | undefined;
    language?: string | undefined;
  };
  currency: string;
  orderedAt?: string | undefined;
  lines: {
    lineId: string | number;
    productId: number;
    variantId?: number | undefined;
    categoryIds: number[];
    quantity: number;
    unitPrice: number;
    totalPaid: number;
  }[];
  shippingAmount?: number | undefined;
  discountAmount?: number | undefined;
  totalPaid?: number | undefined;
  /** Kept only when the order names some: an order without codes is stored as it always was. */
  discountCodes?: string[] | undefined;
}

export interface OrderRow {
  id: number;
  store_id: number;
  external_id: string;
  external_reference: string | null;
  customer_external_id: number;
  customer_id: number | null;
  currency: string;
  ordered_at: Date;
  payload: StoredOrderPayload;
  status: "pending" | "processed";
  points_earned: number | null;
  points_deducted: number;
  refund_status: RefundStatus | null;
  rule_snapshot: EarnSnapshot | null;
  received_at: Date;
}

const ORDER_COLUMNS = `id, store_id, external_id, external_reference, customer_external_id,
  customer_id, currency, ordered_at, payload, status, points_earned, points_deducted,
  refund_status, rule_snapshot, received_at`;

export interface Registration {
  status: "pending" | "processed";
  receivedAt: Date;
  /** False when the order was already known: nothing was stored or enqueued. */
  created: boolean;
  /** False when a known order came back with another payload (the first one stands). */
  samePayload: boolean;
}

export interface NewOrder {
  storeId: number;
  externalId: string;
  externalReference: string | null;
  payload: StoredOrderPayload;
}

const processOrderJob = jobSql("process-order", { orderId: "id", alone: "true" });
const creditStoreJob = jobSql("credit-store-orders", { storeId: "store_id" });

/** What an order's own job is keyed by: this and the order's id (one job however often asked). */
const ORDER_JOB_KEY = `${processOrderJob.task}:`;

/**
 * What a store's crediting job is keyed by: this and the store's id. Registrations credit
 * their orders, and refund declarations are applied, through one job per store, not one per
 * order or refund: a job's own insert, fetch and completion cost about what a batch spends
 * crediting an order. While the store's job waits,
 * a registration's add_jobs updates it (keeping its run_at); once a worker runs it,
 * graphile-worker adds another, so an order registered after the running job read the
 * store's pending orders has a job that will.
 */
const CREDIT_STORE_JOB_KEY = `${creditStoreJob.task}:`;

/**
 * The store crediting jobs of the `store_id` of each row of a query, for add_jobs (with
 * `job_key_preserve_run_at`): `$task` and `$key` are the parameters binding creditStoreJob.task
 * and CREDIT_STORE_JOB_KEY. In store order, so two statements update jobs in the same order.
 */
function creditStoreSpecs(task: string, key: string): string {
  return `array_agg(ROW(${task}::text, ${creditStoreJob.payload}, NULL, NULL, NULL,
    ${key}::text || store_id, NULL, NULL)::graphile_worker.job_spec ORDER BY store_id)`;
}

/**
 * Adds (or updates) the crediting job of each store of `stores` (a query of `store_id`s): a
 * row per job, with `stores`, the number of stores. The stores' jobs are locked first, in store
 * order. add_jobs runs two statements: one clears the key of a job a worker runs, the next
 * updates the job or inserts one. Unlocked, a job a worker took between the two is neither
 * updated nor replaced, and an order committed after the worker read the store's pending
 * orders would have no job; and two statements clearing keys in different orders could
 * deadlock. Locked, no worker takes it meanwhile (it fetches with SKIP LOCKED). A store with no
 * job yet has no row to lock: that narrower miss is the sweep's (enqueueStoreCredits).
 */
function addStoreCredits(stores: string, task: string, key: string): string {
  return `SELECT count(*)::int AS stores, graphile_worker.add_jobs(${creditStoreSpecs(task, key)}, true)
     FROM (${stores}) stores
     CROSS JOIN (
       SELECT count(*) FROM (
         SELECT j.id FROM (${stores}) s
         JOIN graphile_worker._private_jobs j ON j.key = ${key}::text || s.store_id
         ORDER BY s.store_id
         FOR UPDATE OF j
       ) store_jobs
     ) locked
     HAVING count(*) > 0`;
}

/**
 * Stores orders and enqueues their processing in one statement (so one transaction): each
 * order and its store's crediting job, or neither. A known order (same store and identifier) stores and enqueues
 * nothing; concurrent registrations of one order wait on the unique index and all but one find
 * it known. Results are in the order of `orders`.
 */
export async function registerOrders(
  db: Queryable,
  orders: readonly NewOrder[],
): Promise<Registration[]> {
  const payloads = orders.map((order) => JSON.stringify(order.payload));
  const { rows: inserted } = await db.query<{
    position: number;
    status: "pending";
    received_at: Date;
  }>(
    `WITH input AS (
       -- The payloads as one JSON array, not a jsonb[]: node-postgres escapes every quote of
       -- every element of an array parameter, and PostgreSQL parses the escaped array first.
       SELECT store_id, external_id, external_reference, customer_external_id, currency,
              ordered_at, payload, position
       FROM ROWS FROM (
         unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::timestamptz[]),
         jsonb_array_elements($7::jsonb)
       ) WITH ORDINALITY AS i(store_id, external_id, external_reference, customer_external_id,
                              currency, ordered_at, payload, position)
     ), inserted AS (
       INSERT INTO orders (store_id, external_id, external_reference, customer_external_id,
                           currency, ordered_at, payload)
       SELECT store_id, external_id, external_reference, customer_external_id, currency,
              coalesce(ordered_at, now()), payload
       -- Key order, not arrival order: two batches holding the same orders take their index
       -- entries in the same order and never wait on each other in a cycle.
       FROM input ORDER BY store_id, external_id, position
       ON CONFLICT (store_id, external_id) DO NOTHING
       RETURNING id, store_id, external_id, status, received_at
     ), jobs AS (
       ${addStoreCredits("SELECT DISTINCT store_id FROM inserted", "$8", "$9")}
     )
     -- The jobs CTE runs through this subquery, once, whenever an order was inserted (and there
     -- is no job to add otherwise). Rows come in arrival order: the first of duplicates wins.
     SELECT input.position, inserted.status, inserted.received_at, (SELECT count(*) FROM jobs)
     FROM inserted JOIN input USING (store_id, external_id)
     ORDER BY input.position`,
    [
      orders.map((o) => o.storeId),
      orders.map((o) => o.externalId),
      orders.map((o) => o.externalReference),
      orders.map((o) => o.payload.customer.externalId),
      orders.map((o) => o.payload.currency),
      orders.map((o) => o.payload.orderedAt ?? null),
      `[${payloads.join(",")}]`,
      creditStoreJob.task,
      CREDIT_STORE_JOB_KEY,
    ],
  );
  const results: (Registration | undefined)[] = orders.map(() => undefined);
  // The same order twice in one batch: the first is inserted, the others are known.
  const taken = new Set<string>();
  for (const row of inserted) {
    const index = row.position - 1;
    const order = orders[index] as NewOrder;
    const key = `${order.storeId}:${order.externalId}`;
    if (taken.has(key)) continue;
    taken.add(key);
    results[index] = {
      status: row.status,
      receivedAt: row.received_at,
      created: true,
      samePayload: true,
    };
  }
  const known = orders.map((_, index) => index).filter((index) => !results[index]);
  if (known.length > 0) {
    const { rows } = await db.query<{
      position: number;
      status: "pending" | "processed";
      received_at: Date;
      same: boolean;
    }>(
      `SELECT i.position, o.status, o.received_at,
              o.payload = i.payload AND o.external_reference IS NOT DISTINCT FROM i.external_reference
                AS same
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::jsonb[], $5::int[])
         AS i(store_id, external_id, external_reference, payload, position)
       JOIN orders o ON o.store_id = i.store_id AND o.external_id = i.external_id`,
      [
        known.map((i) => orders[i]?.storeId),
        known.map((i) => orders[i]?.externalId),
        known.map((i) => orders[i]?.externalReference),
        known.map((i) => payloads[i]),
        known.map((i) => i + 1),
      ],
    );
    for (const row of rows) {
      results[row.position - 1] = {
        status: row.status,
        receivedAt: row.received_at,
        created: false,
        samePayload: row.same,
      };
    }
  }
  return results.map((result, index) => {
    if (!result) throw new Error(`order ${orders[index]?.externalId} neither inserted nor found`);
    return result;
  });
}

export interface NewRefund {
  storeId: number;
  orderExternalId: string;
  status: RefundStatus;
  creditNoteId: string | null;
  declaration: RefundDeclaration & { refundedAt?: string | undefined };
}

export interface RefundReceipt {
  receivedAt: Date;
  /** False when the store never registered the order (the refund is kept all the same). */
  orderKnown: boolean;
}

const processRefundJob = jobSql("process-refund", { refundId: "id" });

/** What a refund's own job is keyed by: this and the refund's id (see enqueueRefundJobs). */
const REFUND_JOB_KEY = `${processRefundJob.task}:`;

/**
 * Stores refund declarations and adds (or updates) their stores' crediting jobs in one
 * statement, as registrations do: the store's job applies them (see OrdersService.drainStore),
 * rather than a job each.
 */
export async function declareRefunds(
  db: Queryable,
  refunds: readonly NewRefund[],
): Promise<RefundReceipt[]> {
  const { rows } = await db.query<{ position: number; received_at: Date; order_known: boolean }>(
    `WITH input AS (
       SELECT i.store_id, i.order_external_id, i.status, i.credit_note_id,
              i.payload, i.position, o.id AS order_id
       -- The declarations as one JSON array (see registerOrders).
       FROM ROWS FROM (
         unnest($1::bigint[], $2::text[], $3::text[], $4::text[]), jsonb_array_elements($5::jsonb)
       ) WITH ORDINALITY AS i(store_id, order_external_id, status, credit_note_id, payload, position)
       LEFT JOIN orders o ON o.store_id = i.store_id AND o.external_id = i.order_external_id
     ), inserted AS (
       INSERT INTO refunds (store_id, order_external_id, order_id, status, credit_note_id, payload)
       SELECT store_id, order_external_id, order_id, status, credit_note_id, payload
       FROM input ORDER BY position
       RETURNING store_id
     ), jobs AS (
       ${addStoreCredits("SELECT DISTINCT store_id FROM inserted", "$6", "$7")}
     )
     -- received_at defaults to now(): the same instant for every row of the statement.
     SELECT position, now() AS received_at, order_id IS NOT NULL AS order_known,
            (SELECT count(*) FROM jobs) AS jobs
     FROM input ORDER BY position`,
    [
      refunds.map((r) => r.storeId),
      refunds.map((r) => r.orderExternalId),
      refunds.map((r) => r.status),
      refunds.map((r) => r.creditNoteId),
      JSON.stringify(refunds.map((r) => r.declaration)),
      creditStoreJob.task,
      CREDIT_STORE_JOB_KEY,
    ],
  );
  return rows.map((row) => ({ receivedAt: row.received_at, orderKnown: row.order_known }));
}

export async function orderStatus(
  db: Queryable,
  orderId: number,
): Promise<OrderRow["status"] | undefined> {
  const { rows } = await db.query<Pick<OrderRow, "status">>(
    `SELECT status FROM orders WHERE id = $1`,
    [orderId],
  );
  return rows[0]?.status;
}

/** Counts a failed attempt at crediting an order alone (outside of any transaction). */
export async function recordProcessingFailure(db: Queryable, orderId: number): Promise<void> {
  await db.query(`UPDATE orders SET processing_failures = processing_failures + 1 WHERE id = $1`, [
    orderId,
  ]);
}

/** Locks an order for processing; undefined when it does not exist. */
export async function lockOrder(db: Queryable, orderId: number): Promise<OrderRow | undefined> {
  const { rows } = await db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1 FOR NO KEY UPDATE`,
    [orderId],
  );
  return rows[0];
}

/**
 * Other pending orders of the store that no one else is processing, to process in the same
 * transaction: under load one job credits many orders, and takes their jobs off the queue
 * (markOrdersProcessed); those a worker had fetched already find their orders done.
 */
export async function lockPendingOrders(
  db: Queryable,
  storeId: number,
  exceptIds: readonly number[],
  limit: number,
  { wait = false }: { wait?: boolean } = {},
): Promise<OrderRow[]> {
  if (limit <= 0) return [];
  // `wait`: an order another transaction holds is waited for, then taken if still pending.
  const { rows } = await db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM orders
     WHERE store_id = $1 AND status = 'pending' AND id <> ALL ($2::bigint[])
       AND processing_failures = 0
     ORDER BY id LIMIT $3
     FOR NO KEY UPDATE${wait ? "" : " SKIP LOCKED"}`,
    [storeId, exceptIds, limit],
  );
  return rows;
}

/**
 * Creates or updates the customers of a batch of orders and returns their ids. Rows are
 * written (so locked) in external id order: two batches never wait on each other in a cycle.
 * A customer whose details the orders do not change is locked, not rewritten: most of a
 * batch's customers are known and unchanged, and the balance update that follows writes their
 * row anyway (one version of the row a batch rather than two).
 */
export async function upsertCustomers(
  db: Queryable,
  storeId: number,
  customers: readonly StoredOrderPayload["customer"][],
): Promise<Map<number, number>> {
  const latest = new Map(customers.map((customer) => [customer.externalId, customer]));
  const sorted = [...latest.values()].sort((a, b) => a.externalId - b.externalId);
  const externalIds = sorted.map((c) => c.externalId);
  const { rows } = await db.query<{ id: number; external_id: number }>(
    `WITH upserted AS (
       INSERT INTO customers AS c (store_id, external_id, email, first_name, last_name, language)
       SELECT $1, i.external_id, i.email, i.first_name, i.last_name, i.language
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])
         WITH ORDINALITY AS i(external_id, email, first_name, last_name, language, position)
       ORDER BY i.position
       ON CONFLICT (store_id, external_id) DO UPDATE SET
         email = coalesce(excluded.email, c.email),
         first_name = coalesce(excluded.first_name, c.first_name),
         last_name = coalesce(excluded.last_name, c.last_name),
         language = coalesce(excluded.language, c.language),
         -- An erased customer who orders again with their details is a customer again (claims
         -- and referral checks see them); an order scrubbed by the erasure brings no email.
         erased_at = CASE WHEN excluded.email IS NULL THEN c.erased_at END,
         updated_at = now()
       -- Every conflicting row is locked, updated or not.
       WHERE (c.email, c.first_name, c.last_name, c.language, c.erased_at) IS DISTINCT FROM
         (coalesce(excluded.email, c.email), coalesce(excluded.first_name, c.first_name),
          coalesce(excluded.last_name, c.last_name), coalesce(excluded.language, c.language),
          CASE WHEN excluded.email IS NULL THEN c.erased_at END)
       RETURNING c.id, c.external_id
     )
     SELECT id, external_id FROM upserted
     UNION ALL
     -- Those left as they were, as the statement's snapshot has them (a customer's store and
     -- external id never change, so the row found is the one locked).
     SELECT id, external_id FROM customers
     WHERE store_id = $1 AND external_id = ANY ($2::bigint[])
       AND external_id NOT IN (SELECT external_id FROM upserted)`,
    [
      storeId,
      externalIds,
      sorted.map((c) => c.email?.toLowerCase() ?? null),
      sorted.map((c) => c.firstName ?? null),
      sorted.map((c) => c.lastName ?? null),
      sorted.map((c) => c.language ?? null),
    ],
  );
  const ids = new Map(rows.map((row) => [row.external_id, row.id]));
  if (ids.size < externalIds.length) {
    // A customer another transaction created after this statement's snapshot was taken: the
    // upsert waited for it and locked it, but the snapshot does not show it. A new one does.
    const missing = await db.query<{ id: number; external_id: number }>(
      `SELECT id, external_id FROM customers WHERE store_id = $1 AND external_id = ANY ($2::bigint[])`,
      [storeId, externalIds.filter((externalId) => !ids.has(externalId))],
    );
    for (const row of missing.rows) ids.set(row.external_id, row.id);
  }
  return ids;
}

export async function markOrdersProcessed(
  db: Queryable,
  orders: readonly { id: number; customerId: number; points: number; snapshot: EarnSnapshot }[],
): Promise<void> {
  await db.query(
    `UPDATE orders o SET status = 'processed', customer_id = u.customer_id,
       points_earned = u.points, rule_snapshot = u.snapshot, processed_at = now()
     -- One JSON array (see registerOrders): the snapshots are JSON themselves.
     FROM jsonb_to_recordset($1::jsonb) AS u(id bigint, customer_id bigint, points bigint,
                                          snapshot jsonb)
     WHERE o.id = u.id`,
    [
      JSON.stringify(
        orders.map((o) => ({
          id: o.id,
          customer_id: o.customerId,
          points: o.points,
          snapshot: o.snapshot,
        })),
      ),
    ],
  );
}

/**
 * A crediting job for each store (see CREDIT_STORE_JOB_KEY): for a store whose job stopped
 * with orders or refunds left, and for stores whose pending orders or refunds have waited
 * longer than `olderThanMs` with no job (`storeIds` null). The latter is a safety net:
 * graphile-worker's add_jobs can miss, by a hair, a store's job that a worker locks between
 * its statements, and a worker that dies holds its jobs until they are released. Returns how
 * many stores.
 */
export async function enqueueStoreCredits(
  db: Queryable,
  selection: { storeIds: readonly number[] } | { olderThanMs: number },
): Promise<number> {
  // The sweep leaves out a store whose job waits, or a worker took within the minute: it
  // needs none, and replacing a running job would only start a second one beside it.
  const stores =
    "storeIds" in selection
      ? `SELECT DISTINCT store_id FROM unnest($3::bigint[]) AS s(store_id)`
      : `SELECT store_id FROM (
           SELECT store_id FROM orders
           WHERE status = 'pending' AND processing_failures = 0
             AND received_at < now() - $3 * interval '1 millisecond'
           UNION
           -- Refunds a crediting job applies (see pendingRefunds); those of a pending order
           -- wait for it, and its store is here for the order.
           SELECT r.store_id FROM refunds r
           LEFT JOIN orders o ON o.store_id = r.store_id AND o.external_id = r.order_external_id
           WHERE r.processing_status = 'pending' AND r.processing_failures = 0
             AND r.received_at < now() - $3 * interval '1 millisecond'
             AND o.status IS DISTINCT FROM 'pending'
             AND NOT EXISTS (
               SELECT 1 FROM refunds e
               WHERE e.store_id = r.store_id AND e.order_external_id = r.order_external_id
                 AND e.processing_status = 'pending' AND e.processing_failures > 0
                 AND e.id < r.id
             )
         ) waiting
         WHERE NOT EXISTS (
           SELECT 1 FROM graphile_worker.jobs j
           WHERE j.key = $2::text || waiting.store_id
             AND (j.locked_at IS NULL OR j.locked_at > now() - $3 * interval '1 millisecond')
         )`;
  const { rows } = await db.query<{ stores: number }>(
    `WITH stores AS MATERIALIZED (${stores})
     ${addStoreCredits("SELECT store_id FROM stores", "$1", "$2")}`,
    [
      creditStoreJob.task,
      CREDIT_STORE_JOB_KEY,
      "storeIds" in selection ? selection.storeIds : selection.olderThanMs,
    ],
  );
  return rows[0]?.stores ?? 0;
}

/**
 * Deletes the store crediting jobs that will never run again: those graphile-worker
 * superseded (a registration found the job running, cleared its key, used up its attempts
 * and added another) and whose worker died before finishing them, left unlocked by the
 * heartbeat, and those that failed all their attempts. The store's newer job, or the sweep
 * (enqueueStoreCredits), covers their orders. Returns how many.
 */
export async function deleteSpentStoreCredits(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ deleted: number }>(
    `SELECT count(*)::int AS deleted FROM graphile_worker.complete_jobs(ARRAY(
       SELECT id FROM graphile_worker.jobs
       WHERE task_identifier = $1 AND locked_at IS NULL AND attempts >= max_attempts
     ))`,
    [creditStoreJob.task],
  );
  return rows[0]?.deleted ?? 0;
}

/**
 * A job of its own for each order (keyed by it: one job per order however often it is asked):
 * orders of a batch that failed are credited alone, each with the queue's retries.
 */
export async function enqueueOrderJobs(db: Queryable, orderIds: readonly number[]): Promise<void> {
  await enqueueJobsById(db, processOrderJob, ORDER_JOB_KEY, orderIds);
}

/** A job of `job`'s task for each of `ids` (its payload reads `id`), keyed by `key` and it. */
async function enqueueJobsById(
  db: Queryable,
  job: { task: string; payload: string },
  key: string,
  ids: readonly number[],
): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_jobs(array_agg(
       ROW($2::text, ${job.payload}, NULL, NULL, NULL, $3::text || id, NULL,
           NULL)::graphile_worker.job_spec ORDER BY id), true)
     FROM unnest($1::bigint[]) AS i(id)`,
    [ids, job.task, key],
  );
}

export interface RefundRow {
  id: number;
  store_id: number;
  order_external_id: string;
  status: RefundStatus;
  credit_note_id: string | null;
  payload: RefundDeclaration;
  processing_status: "pending" | "processed";
  outcome: RefundOutcome | null;
}
export type RefundOutcome = "deducted" | "no_change" | "lower_than_applied" | "unknown_order";

const REFUND_COLUMNS = `id, store_id, order_external_id, status, credit_note_id, payload,
  processing_status, outcome`;

/**
 * A refund still pending, with its store and its order's id (null when the store has none of
 * that identifier), whatever its failures: what its own job applies. `waits` says why it cannot
 * be applied yet: its order is pending (its crediting applies the refund), or an earlier refund
 * of its order is still pending (declarations are cumulative). Undefined once applied.
 */
export async function findRefundToApply(
  db: Queryable,
  refundId: number,
): Promise<
  | { id: number; store_id: number; order_id: number | null; waits: "order" | "earlier" | null }
  | undefined
> {
  const { rows } = await db.query<{
    id: number;
    store_id: number;
    order_id: number | null;
    waits: "order" | "earlier" | null;
  }>(
    `SELECT r.id, r.store_id, o.id AS order_id,
            CASE WHEN o.status = 'pending' THEN 'order'
                 WHEN EXISTS (
                   SELECT 1 FROM refunds e
                   WHERE e.store_id = r.store_id AND e.order_external_id = r.order_external_id
                     AND e.id < r.id AND e.processing_status = 'pending'
                 ) THEN 'earlier'
            END AS waits
     FROM refunds r
     LEFT JOIN orders o ON o.store_id = r.store_id AND o.external_id = r.order_external_id
     WHERE r.id = $1 AND r.processing_status = 'pending'`,
    [refundId],
  );
  return rows[0];
}

/**
 * The store's refunds a crediting job applies next, oldest first, unlocked, with the id of
 * their order (null when the store has none of that identifier): those pending whose order is
 * credited or unknown (a refund of a pending order waits for it: its crediting applies the
 * refund), that have not failed alone, and that no refund of their order before them holds
 * back: one that failed alone, or in `exceptIds` (declarations are cumulative: each is
 * applied on what the ones before it left). Each refund's order is found by its key, and the
 * held-back orders are read once (those that failed from a partial index of them), whatever the
 * statistics say: a plan that looked for each refund's earlier ones by walking the store's
 * refunds took half a second a batch under load.
 */
export async function pendingRefunds(
  db: Queryable,
  storeId: number,
  exceptIds: readonly number[],
  limit: number,
): Promise<{ id: number; order_id: number | null }[]> {
  const { rows } = await db.query<{ id: number; order_id: number | null }>(
    `WITH held AS MATERIALIZED (
       SELECT order_external_id, min(id) AS first_id FROM (
         -- Each by its primary key: on a plan generic to the store, the store's index looked
         -- like a few rows, and each batch of a big backlog read all of its refunds (30 ms).
         SELECT r.order_external_id, r.id FROM unnest($2::bigint[]) AS e(id)
         CROSS JOIN LATERAL (
           SELECT order_external_id, id FROM refunds WHERE id = e.id AND store_id = $1
         ) r
         UNION ALL
         SELECT order_external_id, id FROM refunds
         WHERE store_id = $1 AND processing_status = 'pending' AND processing_failures > 0
       ) h
       GROUP BY order_external_id
     )
     SELECT r.id, o.id AS order_id FROM refunds r
     LEFT JOIN orders o ON o.store_id = r.store_id AND o.external_id = r.order_external_id
     WHERE r.store_id = $1 AND r.processing_status = 'pending' AND r.processing_failures = 0
       AND r.id <> ALL ($2::bigint[]) AND o.status IS DISTINCT FROM 'pending'
       AND NOT EXISTS (
         SELECT 1 FROM held
         WHERE held.order_external_id = r.order_external_id AND held.first_id < r.id
       )
     ORDER BY r.id LIMIT $3`,
    [storeId, exceptIds, limit],
  );
  return rows;
}

/** Distinct ids, smallest first: rows locked one by one in that order, as the other jobs lock them. */
function ascending(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * Locks these orders of the store in id order (as batches of orders do), skipping those another
 * transaction holds unless `wait`.
 */
export async function lockOrdersById(
  db: Queryable,
  storeId: number,
  orderIds: readonly number[],
  { wait }: { wait: boolean },
): Promise<OrderRow[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query<OrderRow>(
    `SELECT o.* FROM unnest($2::bigint[]) AS e(id)
     -- Each by its primary key, in id order: on a plan generic to the store, its index looked
     -- like a few rows, and each batch of a big store read all of its orders (15 ms).
     CROSS JOIN LATERAL (
       SELECT ${ORDER_COLUMNS} FROM orders WHERE id = e.id AND store_id = $1
       FOR NO KEY UPDATE${wait ? "" : " SKIP LOCKED"}
     ) o
     ORDER BY o.id`,
    [storeId, ascending(orderIds)],
  );
  return rows;
}

/**
 * Locks the earning lots of these orders that still hold points (a refund's deduction lowers
 * its order's first one), in ledger order: lots before customers, as appendLedgerEntries, the
 * release and expiry jobs take them.
 */
export async function lockOrderLots(
  db: Queryable,
  storeId: number,
  orderIds: readonly number[],
): Promise<void> {
  if (orderIds.length === 0) return;
  await db.query(
    `SELECT ledger_id FROM earning_lots
     WHERE store_id = $1 AND order_id = ANY ($2::bigint[]) AND points > 0
     ORDER BY ledger_id FOR UPDATE`,
    [storeId, orderIds],
  );
}

/** Locks those of these refunds of the store still pending, oldest first. */
export async function lockPendingRefunds(
  db: Queryable,
  storeId: number,
  ids: readonly number[],
): Promise<RefundRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<RefundRow>(
    `SELECT r.* FROM unnest($2::bigint[]) AS e(id)
     -- Each by its primary key, in id order (see lockOrdersById).
     CROSS JOIN LATERAL (
       SELECT ${REFUND_COLUMNS} FROM refunds
       WHERE id = e.id AND store_id = $1 AND processing_status = 'pending'
       FOR NO KEY UPDATE
     ) r
     ORDER BY r.id`,
    [storeId, ascending(ids)],
  );
  return rows;
}

/** Counts a failed attempt at applying a refund alone (outside of any transaction). */
export async function recordRefundFailure(db: Queryable, refundId: number): Promise<void> {
  await db.query(`UPDATE refunds SET processing_failures = processing_failures + 1 WHERE id = $1`, [
    refundId,
  ]);
}

/**
 * A job of its own for each refund (keyed by it): refunds of a batch that failed are applied
 * alone, each with the queue's retries.
 */
export async function enqueueRefundJobs(
  db: Queryable,
  refundIds: readonly number[],
): Promise<void> {
  await enqueueJobsById(db, processRefundJob, REFUND_JOB_KEY, refundIds);
}

/** Declarations still to apply to these orders, oldest first (they arrived before the order). */
export async function lockUnappliedRefunds(
  db: Queryable,
  storeId: number,
  orderExternalIds: readonly string[],
): Promise<RefundRow[]> {
  const { rows } = await db.query<RefundRow>(
    `SELECT ${REFUND_COLUMNS} FROM refunds
     WHERE store_id = $1 AND order_external_id = ANY ($2::text[])
       AND (processing_status = 'pending' OR outcome = 'unknown_order')
     ORDER BY id
     FOR NO KEY UPDATE`,
    [storeId, orderExternalIds],
  );
  return rows;
}

/** How a refund declaration was applied (markRefundsProcessed). */
export interface RefundMark {
  id: number;
  orderId: number | null;
  outcome: RefundOutcome;
  pointsDeducted: number;
}

/** Marks refund declarations applied, in one statement. */
export async function markRefundsProcessed(
  db: Queryable,
  refunds: readonly RefundMark[],
): Promise<void> {
  if (refunds.length === 0) return;
  await db.query(
    `UPDATE refunds r SET processing_status = 'processed', outcome = m.outcome,
       order_id = m.order_id, points_deducted = m.points_deducted, processed_at = now()
     FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
       AS m(id, outcome, order_id, points_deducted)
     -- = ANY: the refunds by their primary key's index, however many the plan expects.
     WHERE r.id = m.id AND r.id = ANY ($1::bigint[])`,
    [
      refunds.map((refund) => refund.id),
      refunds.map((refund) => refund.outcome),
      refunds.map((refund) => refund.orderId),
      refunds.map((refund) => refund.pointsDeducted),
    ],
  );
}

/** Where refunds left an order (updateOrdersRefundState). */
export interface OrderRefundState {
  orderId: number;
  pointsDeducted: number;
  refundStatus: RefundStatus;
  /** The most any of its declarations refunded; "all" for a whole refund or cancellation. */
  amountRefunded: number | "all";
}

/** Sets each order's refund state, in one statement (the caller holds the orders' locks). */
export async function updateOrdersRefundState(
  db: Queryable,
  states: readonly OrderRefundState[],
): Promise<void> {
  if (states.length === 0) return;
  // Cumulative, capped by what was paid; never lowered (a lower declaration is refused before).
  await db.query(
    `UPDATE orders o SET points_deducted = u.points_deducted, refund_status = u.refund_status,
       amount_refunded = greatest(o.amount_refunded, least(order_amount_spent(o.payload),
         coalesce(u.amount_refunded, order_amount_spent(o.payload))))
     FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::numeric[])
       AS u(id, points_deducted, refund_status, amount_refunded)
     -- = ANY: the orders by their primary key's index, however many the plan expects.
     WHERE o.id = u.id AND o.id = ANY ($1::bigint[])`,
    [
      states.map((state) => state.orderId),
      states.map((state) => state.pointsDeducted),
      states.map((state) => state.refundStatus),
      states.map((state) => (state.amountRefunded === "all" ? null : state.amountRefunded)),
    ],
  );
}
