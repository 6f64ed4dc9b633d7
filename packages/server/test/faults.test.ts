import { performance } from "node:perf_hooks";
import { problemSchema } from "@loyalty/shared-types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startThrowawayPostgres, type ThrowawayPostgres } from "../src/db/embedded.js";
import { migrate } from "../src/db/migrate.js";
import { createLogger } from "../src/http/logger.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addRule, storeWithKey } from "./support/fixtures.js";
import { startWorkerProcess, type WorkerProcess } from "./support/worker-process.js";

/**
 * Faults the service must survive without losing or doubling a point: a worker process killed
 * (SIGKILL) in the middle of a backlog of orders, and PostgreSQL restarted under load.
 *
 * The two other faults of the suite are covered where their features are tested:
 * - a platform that times out answers 502 and gives the points back: claims-platforms.test.ts,
 *   "answers platform-unavailable to a platform that does not answer in time and gives the
 *   points back" (for WooCommerce, Shopify and PrestaShop);
 * - an SMTP server that is down delays the invitation until it is back: referrals.test.ts,
 *   "an SMTP server that is down > delays the invitation until it is back, through the job
 *   queue's retries".
 */

const LATEST = "2026-08-26";
const LEGACY = "2026-01-01";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The rules of the store: product 100 earns 2 points per euro; category 10 earns 1.5 points per
// euro and 1 per item; anything else earns 1 point per euro. No club: an order's points do not
// depend on the order in which the workers credit them.
const PRODUCTS = [
  { productId: 100, categoryIds: [10] }, // its product rule wins over its category's
  { productId: 200, categoryIds: [10] },
  { productId: 300, categoryIds: [20] }, // no rule for category 20: the default
  { productId: 400, categoryIds: [] },
] as const;

async function addRules(pool: pg.Pool, storeId: number): Promise<void> {
  await addRule(pool, storeId, { kind: "default", rate: 1 });
  await addRule(pool, storeId, { kind: "product", targetId: 100, rate: 2 });
  await addRule(pool, storeId, { kind: "category", targetId: 10, rate: 1.5, pointsPerItem: 1 });
}

interface Line {
  lineId: number;
  productId: number;
  categoryIds: number[];
  quantity: number;
  unitPrice: number;
}

/** Order `n`: one to four lines, prices from 1.00 to 99.99, one of `customers` customers. */
function orderFor(n: number, customers: number) {
  const lines: Line[] = Array.from({ length: 1 + (n % 4) }, (_, index) => {
    const product = PRODUCTS[(n + index) % PRODUCTS.length] as (typeof PRODUCTS)[number];
    return {
      lineId: index + 1,
      productId: product.productId,
      categoryIds: [...product.categoryIds],
      quantity: 1 + ((n + index) % 3),
      unitPrice: (100 + ((n * 131 + index * 977) % 9900)) / 100,
    };
  });
  return {
    externalId: n,
    customer: { externalId: 1 + ((n * 7919) % customers) },
    currency: "EUR",
    lines,
  };
}

/** The points an order earns under those rules, in whole cents: independent of the engine. */
function expectedPoints(order: ReturnType<typeof orderFor>): number {
  return order.lines.reduce((sum, line) => {
    const cents = Math.round(line.unitPrice * 100) * line.quantity;
    if (line.productId === 100) return sum + Math.floor((cents * 2) / 100);
    if (line.categoryIds.includes(10)) return sum + Math.floor((cents * 3) / 200) + line.quantity;
    return sum + Math.floor(cents / 100);
  }, 0);
}

async function count(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

/** Every customer's balance, the sum of their ledger, and their earn entries. */
async function balances(pool: pg.Pool, storeId: number) {
  const { rows } = await pool.query<{
    external_id: number;
    balance: number;
    ledger: number;
    earns: number;
  }>(
    `SELECT c.external_id, c.balance, coalesce(sum(l.points), 0)::bigint AS ledger,
            count(l.id) FILTER (WHERE l.kind = 'earn')::int AS earns
     FROM customers c LEFT JOIN ledger_transactions l ON l.customer_id = c.id
     WHERE c.store_id = $1 GROUP BY c.id ORDER BY c.external_id`,
    [storeId],
  );
  return rows;
}

/** Orders credited more than once, or whose ledger does not hold what the order says it earned. */
async function miscredited(pool: pg.Pool, storeId: number) {
  const { rows } = await pool.query<{ external_id: string; earns: number }>(
    `SELECT o.external_id, count(l.id)::int AS earns
     FROM orders o LEFT JOIN ledger_transactions l ON l.order_id = o.id AND l.kind = 'earn'
     WHERE o.store_id = $1
     GROUP BY o.id
     HAVING count(l.id) <> 1 OR coalesce(sum(l.points), 0) <> o.points_earned`,
    [storeId],
  );
  return rows;
}

describe("a worker process killed (SIGKILL) in the middle of 5,000 orders", () => {
  const ORDERS = 5_000;
  const CUSTOMERS = 400;
  const CONCURRENCY = 40;

  let app: TestApp;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    // Registration only: the orders are processed by `loyalty worker` processes.
    app = await startTestApp();
  });
  afterAll(async () => {
    try {
      for (const worker of workers) await worker.kill();
    } finally {
      await app.close();
    }
  });

  it("credits every order exactly once after a second worker takes over", async ({ annotate }) => {
    const began = performance.now();
    const s = await storeWithKey(app, "https://killed-worker.example");
    await addRules(app.context.pool, s.store.id);
    const pool = app.context.pool;
    const processed = () =>
      count(
        pool,
        `SELECT count(*)::int AS n FROM orders WHERE store_id = $1 AND status = 'processed'`,
        [s.store.id],
      );
    const lockedJobs = () =>
      count(
        pool,
        `SELECT count(*)::int AS n FROM graphile_worker.jobs
         WHERE task_identifier = 'credit-store-orders' AND locked_by IS NOT NULL`,
      );

    const first = await startWorkerProcess(app.database.url);
    workers.push(first);

    // Registrations over HTTP, CONCURRENCY at a time, while the first worker credits them.
    const statuses = new Map<number, number>();
    let next = 1;
    const register = async () => {
      for (let n = next++; n <= ORDERS; n = next++) {
        const response = await fetch(`${app.baseUrl}/api/order/register`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: s.authorization,
            revision: LATEST,
          },
          body: JSON.stringify(orderFor(n, CUSTOMERS)),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        statuses.set(n, response.status);
        if (response.status !== 201) throw new Error(`order ${n}: ${response.status} ${text}`);
      }
    };
    const registering = Promise.all(Array.from({ length: CONCURRENCY }, register));
    const registrationStarted = performance.now();
    const registered = registering.then(() => performance.now() - registrationStarted);

    // Once a good part of the orders is credited, the ledger is held so that the worker's next
    // batches stop inside their transactions (orders locked, points not yet written): killed
    // then, it dies in the middle of its jobs, whatever the machine's speed.
    // A registration refused ends the test at once (its loop threw an Error).
    let refused: Error | undefined;
    registered.catch((error: unknown) => (refused = error as Error));
    await eventually(async () => {
      if (refused) throw refused;
      return (await processed()) >= ORDERS * 0.3 ? true : undefined;
    }, 60_000).catch((error: unknown) => {
      throw new Error(
        `the first worker did not get far enough: ${String(error)}\n${first.output()}`,
      );
    });
    const blocker = new pg.Client({ connectionString: app.database.url });
    await blocker.connect();
    let atKill: { registered: number; processed: number; locked: number };
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE ledger_transactions IN EXCLUSIVE MODE");
      await eventually(async () => {
        const waiting = await count(
          pool,
          `SELECT count(*)::int AS n FROM pg_locks
           WHERE database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND relation = 'ledger_transactions'::regclass AND NOT granted`,
        );
        return waiting > 0 ? true : undefined;
      }, 30_000);
      await first.kill();
      atKill = {
        registered: statuses.size,
        processed: await processed(),
        locked: await lockedJobs(),
      };
    } finally {
      await blocker.query("ROLLBACK");
      await blocker.end();
    }
    expect(atKill.processed).toBeLessThan(ORDERS);
    // The jobs it held stay locked (for the queue's four hours) until a live worker frees them.
    expect(atKill.locked).toBeGreaterThan(0);

    const registrationMs = await registered;
    expect([...statuses.values()].filter((status) => status !== 201)).toEqual([]);
    expect(statuses.size).toBe(ORDERS);
    const pendingAfterRegistration = ORDERS - (await processed());
    expect(pendingAfterRegistration).toBeGreaterThan(0);

    const second = await startWorkerProcess(app.database.url, { LOG_LEVEL: "warn" });
    workers.push(second);
    const resumed = performance.now();
    await eventually(async () => {
      if ((await processed()) < ORDERS) return undefined;
      // Jobs that will run again. The dead worker's jobs that graphile-worker superseded (a
      // registration found them running and added another) will not: the minutely sweep
      // deletes them, below.
      const left = await count(
        pool,
        `SELECT count(*)::int AS n FROM graphile_worker.jobs
         WHERE task_identifier = 'credit-store-orders' AND attempts < max_attempts`,
      );
      return left === 0 ? true : undefined;
    }, 60_000).catch((error: unknown) => {
      throw new Error(`the second worker did not finish: ${String(error)}\n${second.output()}`);
    });
    const drainMs = performance.now() - resumed;
    expect(await second.stop()).toBe(0);
    // It found the dead worker's jobs and unlocked them rather than waiting for their lock.
    expect(second.output()).toContain("unlocked the jobs of workers that stopped beating");
    await app.context.services.orders.creditStrandedOrders();
    expect(
      await count(
        pool,
        `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'credit-store-orders'`,
      ),
    ).toBe(0);

    // Each order credited once, with the points the rules give it.
    expect(await miscredited(pool, s.store.id)).toEqual([]);
    const { rows: orders } = await pool.query<{ external_id: string; points_earned: number }>(
      `SELECT external_id, points_earned FROM orders WHERE store_id = $1`,
      [s.store.id],
    );
    expect(orders).toHaveLength(ORDERS);
    const wrong = orders.filter(
      (order) =>
        order.points_earned !== expectedPoints(orderFor(Number(order.external_id), CUSTOMERS)),
    );
    expect(wrong).toEqual([]);
    expect(
      await count(
        pool,
        `SELECT count(*)::int AS n FROM ledger_transactions WHERE store_id = $1 AND kind <> 'earn'`,
        [s.store.id],
      ),
    ).toBe(0);

    // Each customer holds the sum of their ledger, which is what their orders earn.
    const expected = new Map<number, { points: number; orders: number }>();
    for (let n = 1; n <= ORDERS; n++) {
      const order = orderFor(n, CUSTOMERS);
      const entry = expected.get(order.customer.externalId) ?? { points: 0, orders: 0 };
      entry.points += expectedPoints(order);
      entry.orders += 1;
      expected.set(order.customer.externalId, entry);
    }
    expect(await balances(pool, s.store.id)).toEqual(
      [...expected.entries()]
        .sort(([a], [b]) => a - b)
        .map(([externalId, { points, orders: earns }]) => ({
          external_id: externalId,
          balance: points,
          ledger: points,
          earns,
        })),
    );

    await annotate(
      `${ORDERS} orders registered in ${Math.round(registrationMs)} ms; worker killed at ` +
        `${atKill.processed} processed (${atKill.registered} registered) with ${atKill.locked} jobs locked; ` +
        `${pendingAfterRegistration} left, drained by the second worker in ${Math.round(drainMs)} ms; ` +
        `test ${Math.round(performance.now() - began)} ms`,
    );
  }, 120_000);
});

describe("PostgreSQL restarted under load", () => {
  const LOOPS = 20;
  /** What the issue allows a request during an outage; requests are abandoned a second later. */
  const LONGEST_MS = 5_000;

  let postgres: ThrowawayPostgres;
  let app: TestApp;
  beforeAll(async () => {
    postgres = await startThrowawayPostgres("loyalty-faults-pg");
    await migrate(postgres.url, createLogger("silent"));
    // As the server runs by default: job workers in the API process.
    app = await startTestApp({
      workers: true,
      database: { url: postgres.url, drop: async () => {} },
    });
  });
  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await postgres?.stop();
    }
  });

  interface Attempt {
    id: number;
    revision: string;
    started: number;
    ms: number;
    /** The HTTP status, or what failed instead of an answer. */
    status: number | "timeout" | "network";
    contentType: string | null;
    body: string;
  }

  it("answers errors quickly while it is down, recovers by itself, and loses no order it accepted", async ({
    annotate,
  }) => {
    const s = await storeWithKey(app, "https://outage.example");
    await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });

    const attempts: Attempt[] = [];
    let running = true;
    let next = 1;
    // Half the loops speak the first revision (legacy errors), half the latest (problems).
    const loop = async (index: number) => {
      const revision = index % 2 === 0 ? LATEST : LEGACY;
      while (running) {
        const id = next++;
        const order = orderFor(id, 50);
        const { externalId, ...rest } = order;
        const body = revision === LEGACY ? { externalRef: String(externalId), ...rest } : order;
        const started = performance.now();
        let status: Attempt["status"];
        let contentType: string | null = null;
        let text = "";
        try {
          const response = await fetch(`${app.baseUrl}/api/order/register`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: s.authorization,
              revision,
            },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(LONGEST_MS + 1_000),
          });
          status = response.status;
          contentType = response.headers.get("content-type");
          text = await response.text();
        } catch (error) {
          status = (error as Error).name === "TimeoutError" ? "timeout" : "network";
          text = String(error);
        }
        attempts.push({
          id,
          revision,
          started,
          ms: performance.now() - started,
          status,
          contentType,
          body: text,
        });
        // Errors come back at once: no need to hammer the server with them.
        if (status !== 201) await sleep(20);
      }
    };
    const loops = Promise.all(Array.from({ length: LOOPS }, (_, index) => loop(index)));

    await sleep(2_000);
    const stopping = performance.now();
    await postgres.halt();
    const down = performance.now();
    await sleep(2_500);
    const restarting = performance.now();
    await postgres.resume();
    const up = performance.now();
    // Recovered by itself: registrations succeed again, the app untouched.
    const recovered = await eventually(
      () =>
        attempts.find((attempt) => attempt.started >= up && attempt.status === 201)
          ? performance.now() - up
          : undefined,
      20_000,
    );
    await sleep(2_000);
    running = false;
    await loops;

    // No request hung: every one was answered, within the bound.
    const unanswered = attempts.filter((attempt) => typeof attempt.status !== "number");
    expect(unanswered.map(({ id, status, body }) => ({ id, status, body }))).toEqual([]);
    const longest = Math.max(...attempts.map((attempt) => attempt.ms));
    expect(longest).toBeLessThan(LONGEST_MS);

    // Failures are server errors in the revision's format, never another answer.
    const failures = attempts.filter((attempt) => attempt.status !== 201);
    for (const failure of failures) {
      expect(failure.status, failure.body).toBeGreaterThanOrEqual(500);
      const parsed = JSON.parse(failure.body) as unknown;
      if (failure.revision === LATEST) {
        expect(failure.contentType).toMatch(/^application\/problem\+json/);
        expect(problemSchema.parse(parsed).status).toBe(failure.status);
      } else {
        expect(failure.contentType).toMatch(/^application\/json/);
        expect(parsed).toMatchObject({ statusCode: failure.status, error: expect.any(String) });
      }
    }
    // While it was down, requests were refused quickly rather than held.
    const duringOutage = attempts.filter(
      (attempt) => attempt.started >= down && attempt.started + attempt.ms <= restarting,
    );
    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.filter((attempt) => attempt.status === 201)).toEqual([]);
    const longestDuringOutage = Math.max(...duringOutage.map((attempt) => attempt.ms));
    expect(longestDuringOutage).toBeLessThan(2_000);

    // Every order answered 201 is stored, and once the workers are done, credited once.
    const accepted = attempts.filter((attempt) => attempt.status === 201).map(({ id }) => id);
    const { rows } = await app.context.pool.query<{ external_id: string }>(
      `SELECT external_id FROM orders WHERE store_id = $1`,
      [s.store.id],
    );
    const stored = new Set(rows.map((row) => Number(row.external_id)));
    expect(accepted.filter((id) => !stored.has(id))).toEqual([]);
    await eventually(
      async () =>
        (await count(
          app.context.pool,
          `SELECT count(*)::int AS n FROM orders WHERE store_id = $1 AND status = 'pending'`,
          [s.store.id],
        )) === 0
          ? true
          : undefined,
      60_000,
    );
    expect(await miscredited(app.context.pool, s.store.id)).toEqual([]);
    const customers = await balances(app.context.pool, s.store.id);
    expect(customers.filter((customer) => customer.balance !== customer.ledger)).toEqual([]);

    // The rest of the process came back too: readiness, and the storefront change listener.
    expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
    await eventually(() => (app.storeChanges.listening ? true : undefined), 30_000);

    await annotate(
      `${attempts.length} registrations, ${accepted.length} accepted (${stored.size} stored); ` +
        `${failures.length} errors, ${duringOutage.length} during the outage ` +
        `(longest ${Math.round(longestDuringOutage)} ms); longest request ${Math.round(longest)} ms; ` +
        `stop ${Math.round(down - stopping)} ms, start ${Math.round(up - restarting)} ms, ` +
        `first 201 ${Math.round(recovered)} ms after the restart`,
    );
  }, 180_000);
});
