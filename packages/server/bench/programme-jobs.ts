import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { openRuntime } from "../src/runtime.js";
import { benchDatabase } from "./support.js";

/**
 * `pnpm bench:jobs`: the programme's batch jobs on a large store. Generates (by PostgreSQL, in
 * batches) BENCH_JOBS_CUSTOMERS customers (1M) with BENCH_JOBS_LOTS earning lots (5M) spread
 * over 15 months, a fifth of the last 14 days' still held by a 14-day pending period, under a
 * 12-month lifetime with a 30-day warning; then times the release of the held lots whose date
 * came, the warnings and the expiry, each as the scheduled job runs it. Exits 1 when one takes
 * over BENCH_JOBS_TARGET_MS (2 minutes).
 */

const CUSTOMERS = Number(process.env["BENCH_JOBS_CUSTOMERS"] ?? 1_000_000);
const LOTS = Number(process.env["BENCH_JOBS_LOTS"] ?? 5_000_000);
const TARGET_MS = Number(process.env["BENCH_JOBS_TARGET_MS"] ?? 120_000);
const BATCHES = 10;

async function main(): Promise<void> {
  const database = await benchDatabase();
  const logger = pino({ level: "warn" });
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    WORKERS: "off",
  });
  const runtime = await openRuntime(config, logger, { migrate: false, poolSize: 4 });
  const { pool, services } = runtime.context;
  try {
    const store = await services.stores.create({ domain: "https://jobs.bench.example" });
    await services.program.saveSettings(store.id, {
      pendingDays: 14,
      expiry: { mode: "lifetime", months: 12, warningDays: 30 },
    });
    const now = new Date();
    let started = performance.now();
    await pool.query(
      `INSERT INTO customers (store_id, external_id, email, last_activity_at)
       SELECT $1, n, 'c' || n || '@bench.example', $3 FROM generate_series(1, $2::int) n`,
      [store.id, CUSTOMERS, now],
    );
    const { rows } = await pool.query<{ first: number }>(
      `SELECT min(id)::int AS first FROM customers WHERE store_id = $1`,
      [store.id],
    );
    const first = rows[0]?.first ?? 0;
    // Lots earned over 15 months, oldest first: those over 12 months old were warned 31 days
    // ago (their expiry is due), those of the month before are to be warned; a fifth of the
    // last 21 days' held for 14 days (a third of those due now).
    for (let batch = 0; batch < BATCHES; batch++) {
      const from = Math.floor((LOTS * batch) / BATCHES) + 1;
      const to = Math.floor((LOTS * (batch + 1)) / BATCHES);
      await pool.query(
        `WITH drawn AS (
           SELECT n, $2::bigint + (n % $3::int) AS customer_id,
                  $4::timestamptz - (1 - n::float8 / $5) * interval '450 days' AS earned_at
           FROM generate_series($6::int, $7::int) n
         ), entry AS (
           INSERT INTO ledger_transactions
             (store_id, customer_id, kind, points, balance_after, created_at, available_at)
           SELECT $1, customer_id, 'earn', 10, 0, earned_at,
                  CASE WHEN earned_at > $4::timestamptz - interval '21 days' AND n % 5 = 0
                       THEN earned_at + interval '14 days' END
           FROM drawn
           RETURNING id, customer_id, created_at, available_at
         )
         INSERT INTO earning_lots
           (ledger_id, store_id, customer_id, points, available_at, released_at, earned_at,
            warned_at, expires_at)
         SELECT id, $1, customer_id, 10, coalesce(available_at, created_at),
                CASE WHEN available_at IS NULL THEN created_at END, created_at,
                CASE WHEN created_at < $4::timestamptz - interval '12 months'
                     THEN $4::timestamptz - interval '31 days' END,
                CASE WHEN created_at < $4::timestamptz - interval '12 months'
                     THEN greatest(created_at + interval '12 months',
                                   $4::timestamptz - interval '1 day') END
         FROM entry`,
        [store.id, first, CUSTOMERS, now, LOTS, from, to],
      );
    }
    await pool.query(
      `UPDATE customers c SET balance = t.balance, pending_points = t.pending
       FROM (SELECT customer_id, sum(points) AS balance,
                    coalesce(sum(points) FILTER (WHERE released_at IS NULL), 0) AS pending
             FROM earning_lots GROUP BY customer_id) t
       WHERE c.id = t.customer_id`,
    );
    await pool.query(`ANALYZE`);
    process.stdout.write(
      `generated ${CUSTOMERS} customers, ${LOTS} lots in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );

    let failed = false;
    const timed = async (label: string, run: () => Promise<unknown>) => {
      started = performance.now();
      const result = await run();
      const ms = performance.now() - started;
      failed ||= ms > TARGET_MS;
      process.stdout.write(`${label}: ${(ms / 1000).toFixed(1)} s ${JSON.stringify(result)}\n`);
    };
    if (process.env["BENCH_JOBS_GENERATE_ONLY"] === "1") return;
    await timed("release-pending-points", () => services.program.releaseDuePoints());
    await timed("expire-points (warnings and expiry)", () => services.program.expirePoints());
    await timed("expire-points again (nothing due)", () => services.program.expirePoints());
    const check = await pool.query<{ ok: boolean }>(
      `SELECT bool_and(c.balance = (SELECT coalesce(sum(points), 0) FROM ledger_transactions t
                                     WHERE t.customer_id = c.id)) AS ok
       FROM customers c WHERE c.store_id = $1 AND c.id % 1000 = 0`,
      [store.id],
    );
    process.stdout.write(`ledger sums to the balance (sampled): ${String(check.rows[0]?.ok)}\n`);
    if (failed || check.rows[0]?.ok !== true) process.exitCode = 1;
  } finally {
    await runtime.close();
    // BENCH_JOBS_KEEP=1 keeps the database, to look at the plans.
    if (process.env["BENCH_JOBS_KEEP"] !== "1") await database.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
  // The runtime's sockets are closed; a timer of a library must not keep the run open.
  process.exit();
}
