import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, startTestApp, TEST_MASTER_KEY, type TestApp } from "./support/app.js";
import { addRule, pointsOf, storeWithKey } from "./support/fixtures.js";
import { environment, exitOf } from "./support/processes.js";

/** Workers start when each test says so: what happens before and after them is the point. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const LATEST = { revision: "2026-08-26" };

function post(path: string, body: unknown, authorization: string) {
  return fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization, ...LATEST },
    body: JSON.stringify(body),
  });
}

function order(externalId: number) {
  return {
    externalId,
    customer: { externalId: 7 },
    currency: "EUR",
    lines: [
      { lineId: 1, productId: 1, quantity: 2, unitPrice: 10 },
      { lineId: 2, productId: 2, quantity: 1, unitPrice: 30 },
    ],
  };
}

async function orderStatus(storeId: number, externalId: string) {
  const { rows } = await app.context.pool.query<{ status: string }>(
    `SELECT status FROM orders WHERE store_id = $1 AND external_id = $2`,
    [storeId, externalId],
  );
  return rows[0]?.status;
}

/**
 * A store earning a point per unit spent, with `count` orders registered (1, 2, ...) and
 * pending: the store and its orders' ids, in order.
 */
async function storeWithPendingOrders(domain: string, count: number) {
  const s = await storeWithKey(app, domain);
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  for (let id = 1; id <= count; id++) {
    expect((await post("/api/order/register", order(id), s.authorization)).status).toBe(201);
  }
  const { rows } = await app.context.pool.query<{ id: number }>(
    `SELECT id FROM orders WHERE store_id = $1 ORDER BY id`,
    [s.store.id],
  );
  return { s, ids: rows.map((row) => Number(row.id)) };
}

it("applies credit notes that arrived before their order was processed, in order, once", async () => {
  const s = await storeWithKey(app, "https://early.example");
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  expect((await post("/api/order/register", order(1), s.authorization)).status).toBe(201);
  const partial = {
    externalId: 1,
    status: "partially_refunded",
    lines: [{ lineId: 1, quantity: 1 }],
  };
  expect((await post("/api/order/refund", partial, s.authorization)).status).toBe(201);
  expect((await post("/api/order/refund", partial, s.authorization)).status).toBe(201);
  const more = { externalId: 1, status: "partially_refunded", lines: [{ lineId: 1, quantity: 2 }] };
  expect((await post("/api/order/refund", more, s.authorization)).status).toBe(201);
  expect(await orderStatus(s.store.id, "1")).toBe("pending");

  const workers = await app.startWorkers();
  try {
    await eventually(async () => {
      const { rows } = await app.context.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM refunds WHERE store_id = $1 AND processing_status = 'processed'`,
        [s.store.id],
      );
      return rows[0]?.n === 3 ? true : undefined;
    });
  } finally {
    await workers.stop();
  }
  // 50 earned; the first note takes 10, its replay nothing, the next one 10 more.
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 30,
    ledger: 30,
    entries: 3,
  });
  const { rows } = await app.context.pool.query<{ outcome: string; points_deducted: number }>(
    `SELECT outcome, points_deducted FROM refunds WHERE store_id = $1 ORDER BY id`,
    [s.store.id],
  );
  expect(rows).toEqual([
    { outcome: "deducted", points_deducted: 10 },
    { outcome: "no_change", points_deducted: 0 },
    { outcome: "deducted", points_deducted: 10 },
  ]);
});

it("credits nothing twice when a job runs again after its work committed", async () => {
  const s = await storeWithKey(app, "https://rerun.example");
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  await post("/api/order/register", order(2), s.authorization);
  const { rows } = await app.context.pool.query<{ id: number }>(
    `SELECT id FROM orders WHERE store_id = $1`,
    [s.store.id],
  );
  const orderId = (rows[0] as { id: number }).id;
  // As if a worker had committed the credit and died before telling the queue.
  await app.context.services.orders.processOrder(orderId);
  const workers = await app.startWorkers();
  try {
    await eventually(async () => {
      const pending = await app.context.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'credit-store-orders'`,
      );
      return pending.rows[0]?.n === 0 ? true : undefined;
    });
  } finally {
    await workers.stop();
  }
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 50,
    ledger: 50,
    entries: 1,
  });
});

it("retries the job of a worker killed in the middle of it, and credits the order once", async () => {
  const s = await storeWithKey(app, "https://killed.example");
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  await post("/api/order/register", order(3), s.authorization);

  // Hold the order's row so the worker's job is stuck inside its transaction when it dies.
  const blocker = new pg.Client({ connectionString: app.database.url });
  await blocker.connect();
  await blocker.query("BEGIN");
  await blocker.query(`SELECT id FROM orders WHERE store_id = $1 FOR UPDATE`, [s.store.id]);

  const worker = spawn(
    process.execPath,
    ["--conditions=@loyalty/source", "--import", "tsx", "src/cli.ts", "worker"],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: environment({
        DATABASE_URL: app.database.url,
        LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
        WORKER_HEARTBEAT_MS: "200",
      }),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  worker.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const lockedBy = await eventually(async () => {
      const { rows } = await app.context.pool.query<{ locked_by: string | null }>(
        `SELECT locked_by FROM graphile_worker.jobs WHERE task_identifier = 'credit-store-orders'`,
      );
      return rows[0]?.locked_by ?? undefined;
    }, 30_000).catch((error: unknown) => {
      throw new Error(`the worker did not take the job: ${String(error)}\n${stderr}`);
    });
    expect(lockedBy).toMatch(/^pool-/);
    worker.kill("SIGKILL");
    await exitOf(worker);
  } finally {
    await blocker.query("ROLLBACK");
    await blocker.end();
  }
  expect(await orderStatus(s.store.id, "3")).toBe("pending");

  // A new worker finds the dead one's heartbeat, unlocks its job, and runs it.
  const workers = await app.startWorkers();
  try {
    await eventually(async () =>
      (await orderStatus(s.store.id, "3")) === "processed" ? true : undefined,
    );
  } finally {
    await workers.stop();
  }
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 50,
    ledger: 50,
    entries: 1,
  });
  expect(app.logs.join("")).toContain("unlocked the jobs of workers that stopped beating");
}, 60_000);

it("keeps an order that always fails out of other orders' batches, and credits those", async () => {
  const s = await storeWithKey(app, "https://poison.example");
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  // A row no registration could write (no customer in its payload), with its job.
  await app.context.pool.query(
    `WITH o AS (
       INSERT INTO orders (store_id, external_id, customer_external_id, currency, ordered_at, payload)
       VALUES ($1, 'broken', 7, 'EUR', now(), '{}') RETURNING id
     )
     SELECT graphile_worker.add_job('process-order', json_build_object('orderId', id), max_attempts => 1)
     FROM o`,
    [s.store.id],
  );
  await post("/api/order/register", order(11), s.authorization);
  const workers = await app.startWorkers();
  try {
    await eventually(async () =>
      (await orderStatus(s.store.id, "11")) === "processed" ? true : undefined,
    );
    const failures = async () =>
      (
        await app.context.pool.query<{ processing_failures: number }>(
          `SELECT processing_failures FROM orders WHERE store_id = $1 AND external_id = 'broken'`,
          [s.store.id],
        )
      ).rows[0]?.processing_failures ?? 0;
    await eventually(async () => ((await failures()) > 0 ? true : undefined));
    // Once it has failed alone, the next order's batch leaves it out and does not fail (its
    // own job's retries go on failing, alone).
    const failedBatches = () => app.logs.join("").split("a batch of orders failed").length;
    const before = failedBatches();
    await post("/api/order/register", order(12), s.authorization);
    await eventually(async () =>
      (await orderStatus(s.store.id, "12")) === "processed" ? true : undefined,
    );
    expect(failedBatches()).toBe(before);
  } finally {
    await workers.stop();
  }
  expect(await orderStatus(s.store.id, "broken")).toBe("pending");
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 100,
    ledger: 100,
    entries: 2,
  });
});

it("answers the jobs of orders its own batch credited without asking the database", async () => {
  const { s, ids } = await storeWithPendingOrders("https://batched.example", 5);
  const [first, ...others] = ids;
  const { orders } = app.context.services;
  // The first order's job takes every pending order of the store into its batch.
  expect(await orders.processOrder(first as number)).toBe(5);

  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const sent: unknown[] = [];
  prototype.query = function (this: object, ...args: unknown[]) {
    sent.push(args[0]);
    return original.apply(this, args);
  };
  try {
    for (const id of others) expect(await orders.processOrder(id)).toBe(0);
  } finally {
    prototype.query = original;
  }
  expect(sent).toEqual([]);
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 250,
    ledger: 250,
    entries: 5,
  });
});

/** The order and store jobs queued (task, payload), and whether a worker holds each. */
async function queuedJobs(storeId: number, orderIds: number[]) {
  const { rows } = await app.context.pool.query<{ task: string; payload: object; held: boolean }>(
    `SELECT t.identifier AS task, j.payload, j.locked_at IS NOT NULL AS held
     FROM graphile_worker._private_jobs j
     JOIN graphile_worker._private_tasks t ON t.id = j.task_id
     WHERE (t.identifier = 'process-order' AND (j.payload->>'orderId')::bigint = ANY ($2))
        OR (t.identifier = 'credit-store-orders' AND (j.payload->>'storeId')::bigint = $1)
     ORDER BY 1, (j.payload->>'orderId')::bigint`,
    [storeId, orderIds],
  );
  return rows;
}

async function deleteJobs(storeId: number, orderIds: number[]) {
  await app.context.pool.query(
    `DELETE FROM graphile_worker._private_jobs
     WHERE (payload->>'orderId')::bigint = ANY ($2) OR (payload->>'storeId')::bigint = $1`,
    [storeId, orderIds],
  );
}

it("adds one crediting job for a store, however many orders it registers", async () => {
  const { s, ids } = await storeWithPendingOrders("https://one-job.example", 5);
  try {
    expect(await queuedJobs(s.store.id, ids)).toEqual([
      { task: "credit-store-orders", payload: { storeId: s.store.id }, held: false },
    ]);
  } finally {
    await deleteJobs(s.store.id, ids);
  }
});

it("runs one crediting job of a store at a time in a process, the next one after it", async () => {
  const { s, ids } = await storeWithPendingOrders("https://one-at-a-time.example", 2);
  /** The sessions waiting to lock orders: each running job's last batch waits for the held one. */
  const waiting = async () => {
    const { rows } = await app.context.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'
         AND query LIKE '%FROM orders%FOR NO KEY UPDATE%'`,
    );
    return rows[0]?.n ?? 0;
  };
  // The first order held: the store's job waits for it (up to 2 s), running all along.
  const holder = new pg.Client({ connectionString: app.database.url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query(`SELECT id FROM orders WHERE id = $1 FOR UPDATE`, [ids[0]]);
  const workers = await app.startWorkers();
  try {
    await eventually(async () => ((await waiting()) === 1 ? true : undefined));
    // Orders registered meanwhile add the store's next jobs: they wait for the first.
    for (const id of [3, 4]) {
      expect((await post("/api/order/register", order(id), s.authorization)).status).toBe(201);
    }
    const seen = new Set<number>();
    for (let look = 0; look < 20; look++) {
      seen.add(await waiting());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Math.max(...seen)).toBe(1);
    await holder.query("ROLLBACK");
    await eventually(async () =>
      (await pointsOf(app.context.pool, s.store.id, 7))?.entries === 4 ? true : undefined,
    );
  } finally {
    await holder.query("ROLLBACK");
    await holder.end();
    await workers.stop();
    await deleteJobs(s.store.id, ids);
  }
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 200,
    ledger: 200,
    entries: 4,
  });
});

it("does not let a stuck run hold a store's next job for long", async () => {
  const { s, ids } = await storeWithPendingOrders("https://stuck-run.example", 1);
  const orders = app.context.services.orders;
  // Customer 7 known, then a second order of theirs whose run gets stuck on their row.
  await orders.creditStore(s.store.id);
  expect((await post("/api/order/register", order(2), s.authorization)).status).toBe(201);
  const holder = new pg.Client({ connectionString: app.database.url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query(`SELECT id FROM customers WHERE store_id = $1 FOR UPDATE`, [s.store.id]);
  try {
    const stuck = orders.creditStore(s.store.id);
    await eventually(async () =>
      (
        await app.context.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
             AND datname = current_database()`,
        )
      ).rowCount === 1
        ? true
        : undefined,
    );
    const other = { ...order(3), customer: { externalId: 8 } };
    expect((await post("/api/order/register", other, s.authorization)).status).toBe(201);
    // The next job gives up waiting for the stuck run and credits the order it can.
    expect(await orders.creditStore(s.store.id)).toBe(1);
    expect(await orderStatus(s.store.id, "3")).toBe("processed");
    expect(await orderStatus(s.store.id, "2")).toBe("pending");
    await holder.query("ROLLBACK");
    expect(await stuck).toBe(1);
  } finally {
    await holder.query("ROLLBACK");
    await holder.end();
    await deleteJobs(s.store.id, ids);
  }
  expect(await orderStatus(s.store.id, "2")).toBe("processed");
}, 30_000);

it("credits every pending order of a store in batches, each once", async () => {
  const s = await storeWithKey(app, "https://drained.example");
  await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
  // More than a batch takes, registered 20 at a time, by 13 customers in mixed order: the
  // parallel batches lock the same customers.
  const count = 450;
  const byCustomer = (id: number) => ({
    ...order(id),
    customer: { externalId: ((id * 7) % 13) + 1 },
  });
  for (let first = 1; first <= count; first += 20) {
    const statuses = await Promise.all(
      Array.from({ length: Math.min(20, count - first + 1) }, (_, i) =>
        post("/api/order/register", byCustomer(first + i), s.authorization).then((r) => r.status),
      ),
    );
    expect(statuses.every((status) => status === 201)).toBe(true);
  }
  const { rows } = await app.context.pool.query<{ id: string }>(
    `SELECT id FROM orders WHERE store_id = $1`,
    [s.store.id],
  );
  const ids = rows.map((row) => Number(row.id));
  try {
    expect(await app.context.services.orders.creditStore(s.store.id)).toBe(count);
    expect(await app.context.services.orders.creditStore(s.store.id)).toBe(0);
  } finally {
    await deleteJobs(s.store.id, ids);
  }
  // Each order earned once; each customer holds what their orders earned.
  const { rows: earned } = await app.context.pool.query<{ orders: number; entries: number }>(
    `SELECT count(DISTINCT o.id)::int AS orders, count(l.id)::int AS entries
     FROM orders o JOIN ledger_transactions l ON l.order_id = o.id AND l.kind = 'earn'
     WHERE o.store_id = $1`,
    [s.store.id],
  );
  expect(earned).toEqual([{ orders: count, entries: count }]);
  for (let customer = 1; customer <= 13; customer++) {
    const orders = Array.from({ length: count }, (_, i) => i + 1).filter(
      (id) => ((id * 7) % 13) + 1 === customer,
    ).length;
    expect(await pointsOf(app.context.pool, s.store.id, customer)).toEqual({
      balance: 50 * orders,
      ledger: 50 * orders,
      entries: orders,
    });
  }
});

it("credits an order another transaction held once it is let go, not leaving it behind", async () => {
  const { s, ids } = await storeWithPendingOrders("https://held.example", 3);
  const holder = new pg.Client({ connectionString: app.database.url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(`SELECT id FROM orders WHERE id = $1 FOR UPDATE`, [ids[1]]);
    const crediting = app.context.services.orders.creditStore(s.store.id);
    // The others are credited meanwhile; the held one waits for its lock.
    await eventually(async () =>
      (await orderStatus(s.store.id, "3")) === "processed" ? true : undefined,
    );
    expect(await orderStatus(s.store.id, "2")).toBe("pending");
    await holder.query("ROLLBACK");
    expect(await crediting).toBe(3);
  } finally {
    await holder.end();
    await deleteJobs(s.store.id, ids);
  }
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 150,
    ledger: 150,
    entries: 3,
  });
});

it("leaves an order held too long to a new job of the store", async () => {
  const { s, ids } = await storeWithPendingOrders("https://held-long.example", 2);
  await deleteJobs(s.store.id, ids);
  const holder = new pg.Client({ connectionString: app.database.url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(`SELECT id FROM orders WHERE id = $1 FOR UPDATE`, [ids[0]]);
    // The other is credited; the held one is waited for, then left to the store's next job.
    expect(await app.context.services.orders.creditStore(s.store.id)).toBe(1);
    expect(await orderStatus(s.store.id, "1")).toBe("pending");
    expect(await queuedJobs(s.store.id, ids)).toEqual([
      { task: "credit-store-orders", payload: { storeId: s.store.id }, held: false },
    ]);
  } finally {
    await holder.query("ROLLBACK");
    await holder.end();
    await deleteJobs(s.store.id, ids);
  }
});

it("leaves the rest to a new job of the store once its time is up", async () => {
  const { s, ids } = await storeWithPendingOrders("https://timed-out.example", 2);
  await deleteJobs(s.store.id, ids);
  try {
    expect(await app.context.services.orders.creditStore(s.store.id, { drainMs: 0 })).toBe(0);
    expect(await queuedJobs(s.store.id, ids)).toEqual([
      { task: "credit-store-orders", payload: { storeId: s.store.id }, held: false },
    ]);
  } finally {
    await deleteJobs(s.store.id, ids);
  }
});

it("hands each order of a batch that failed to a job of its own, and credits nothing", async () => {
  const { s, ids } = await storeWithPendingOrders("https://rolled-back.example", 3);
  await deleteJobs(s.store.id, ids);
  // The batch fails at its events, after its orders were marked processed: that must roll
  // back with it.
  await app.context.pool.query(
    `CREATE FUNCTION refuse_events() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'events refused'; END $$;
     CREATE TRIGGER refuse_events BEFORE INSERT ON outbox_events FOR EACH ROW
       WHEN (NEW.store_id = ${Number(s.store.id)}) EXECUTE FUNCTION refuse_events();`,
  );
  try {
    expect(await app.context.services.orders.creditStore(s.store.id)).toBe(0);
    expect(await queuedJobs(s.store.id, ids)).toEqual(
      ids.map((orderId) => ({
        task: "process-order",
        payload: { orderId, alone: true },
        held: false,
      })),
    );
    for (const id of ["1", "2", "3"]) expect(await orderStatus(s.store.id, id)).toBe("pending");
  } finally {
    await app.context.pool.query(
      `DROP TRIGGER refuse_events ON outbox_events; DROP FUNCTION refuse_events();`,
    );
  }
  // Their own jobs credit them, once the cause is gone.
  const workers = await app.startWorkers();
  try {
    await eventually(async () =>
      (await queuedJobs(s.store.id, ids)).length === 0 ? true : undefined,
    );
  } finally {
    await workers.stop();
  }
  expect(await pointsOf(app.context.pool, s.store.id, 7)).toEqual({
    balance: 150,
    ledger: 150,
    entries: 3,
  });
});

it("gives a job to a store whose pending orders waited a minute without one, and clears spent jobs", async () => {
  const stranded = await storeWithPendingOrders("https://stranded.example", 2);
  const recent = await storeWithPendingOrders("https://recent.example", 1);
  const failing = await storeWithPendingOrders("https://failing.example", 1);
  for (const { s, ids } of [stranded, recent, failing]) await deleteJobs(s.store.id, ids);
  await app.context.pool.query(
    `UPDATE orders SET received_at = now() - interval '2 minutes' WHERE store_id = ANY ($1)`,
    [[stranded.s.store.id, failing.s.store.id]],
  );
  await app.context.pool.query(`UPDATE orders SET processing_failures = 1 WHERE store_id = $1`, [
    failing.s.store.id,
  ]);
  // A job graphile-worker superseded, left by a worker that died running it: it will never
  // run again, and is deleted.
  const { rows: added } = await app.context.pool.query<{ id: string }>(
    `SELECT (graphile_worker.add_job('credit-store-orders',
                                     json_build_object('storeId', $1::bigint))).id`,
    [recent.s.store.id],
  );
  await app.context.pool.query(
    `UPDATE graphile_worker._private_jobs SET key = NULL, attempts = max_attempts WHERE id = $1`,
    [added[0]?.id],
  );
  expect(await queuedJobs(recent.s.store.id, recent.ids)).toHaveLength(1);
  try {
    expect(await app.context.services.orders.creditStrandedOrders()).toBeGreaterThanOrEqual(1);
    expect(await queuedJobs(stranded.s.store.id, stranded.ids)).toEqual([
      { task: "credit-store-orders", payload: { storeId: stranded.s.store.id }, held: false },
    ]);
    expect(await queuedJobs(recent.s.store.id, recent.ids)).toEqual([]);
    expect(await queuedJobs(failing.s.store.id, failing.ids)).toEqual([]);
  } finally {
    for (const { s, ids } of [stranded, recent, failing]) await deleteJobs(s.store.id, ids);
  }
});
