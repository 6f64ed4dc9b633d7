import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type pg from "pg";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { openRuntime } from "../src/runtime.js";
import {
  benchDatabase,
  checkpoint,
  percentile,
  SERVER_READY,
  serverEnv,
  start,
  stop,
} from "./support.js";

/**
 * `pnpm bench:jobs` (and the end of `pnpm bench`): the programme's batch jobs on a large store.
 * Generates (by PostgreSQL, in batches) BENCH_JOBS_CUSTOMERS customers (1M) with
 * BENCH_JOBS_LOTS earning lots (5M) spread over 15 months, a fifth of the last 14 days' still
 * held by a 14-day pending period, under a 12-month lifetime with a 30-day warning; then times
 * the release of the held lots whose date came, the warnings and the expiry, each as the
 * scheduled job runs it. Meanwhile the real server (NODE_ENV=production) answers calculate at a
 * steady rate: its p95 while the jobs run is compared with its p95 just before. Fails when a job
 * takes over BENCH_JOBS_TARGET_MS (2 minutes).
 */

const CUSTOMERS = Number(process.env["BENCH_JOBS_CUSTOMERS"] ?? 1_000_000);
const LOTS = Number(process.env["BENCH_JOBS_LOTS"] ?? 5_000_000);
export const JOBS_TARGET_MS = Number(process.env["BENCH_JOBS_TARGET_MS"] ?? 120_000);
/**
 * Calculate's p95 while the jobs run is "within noise" of its p95 before them when it is at
 * most this many times it, or at most NOISE_MS above it. Checked when the API has a CPU of its
 * own (as docs/operators.md advises): with every CPU shared it is reported only.
 */
const P95_NOISE_RATIO = 1.5;
const NOISE_MS = 1;
const BATCHES = 10;
/** Calculate requests per second while measuring: a storefront's steady traffic, not a flood. */
const RATE = 200;
const BASELINE_SECONDS = 15;
/** The worker's niceness: docs/operators.md's advice for workers on the API's machine. */
const WORKER_NICENESS = 10;

export interface JobsFigures {
  customers: number;
  lots: number;
  generationSeconds: number;
  jobs: { name: string; seconds: number; result: unknown }[];
  calculate: { before: Latency; during: Latency };
  /** The API's CPU and the jobs', or undefined when they shared every CPU. */
  cpus: { api: string; jobs: string } | undefined;
  /** What PostgreSQL wrote while the jobs ran, in MiB. */
  written: { walMiB: number; tempMiB: number };
  /** PostgreSQL's settings that decide how much of that it writes (SHOW's values). */
  settings: { sharedBuffers: string; maxWalSize: string };
  load: { average: number; cpus: number };
  overTarget: boolean;
  /** The API had a CPU of its own, and calculate's p95 while the jobs ran was not within noise
   * of its p95 before. */
  slowedReads: boolean;
  ledgerChecked: boolean;
}

interface Latency {
  requests: number;
  errors: number;
  p50: number;
  p95: number;
}

/** Generates the large store; returns when it is analysed. */
async function generate(pool: pg.Pool, storeId: number): Promise<void> {
  const store = { id: storeId };
  const now = new Date();
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
  // A store's data of past months has long been vacuumed, and written out by checkpoints:
  // neither is left to run under the baseline or the jobs measured next.
  await pool.query(`VACUUM (ANALYZE)`);
  await checkpoint(pool, (message) => process.stdout.write(`${message}\n`));
}

/** Sends GET `url` RATE times a second until `until` resolves; the latencies, in ms. */
async function steadyLoad(url: string, until: Promise<unknown>): Promise<Latency> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const latencies: number[] = [];
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const one = () =>
    new Promise<void>((resolve) => {
      const began = performance.now();
      http
        .get(url, { agent }, (response) => {
          response.resume();
          response.on("end", () => {
            if (response.statusCode === 200) latencies.push(performance.now() - began);
            else errors += 1;
            resolve();
          });
        })
        .on("error", () => {
          errors += 1;
          resolve();
        });
    });
  let done = false;
  void until.then(() => (done = true));
  const began = performance.now();
  for (let sent = 0; !done; sent++) {
    const request = one();
    inFlight.add(request);
    void request.then(() => inFlight.delete(request));
    // On schedule, whatever the answers: a slow server is measured, not waited for.
    const next = began + ((sent + 1) * 1000) / RATE;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
  };
}

/**
 * Gives the API and PostgreSQL CPUs of their own, as docs/operators.md advises when they share
 * a machine: CPU 0 for the API (and this load generator), the others for PostgreSQL (its
 * server and every process it started or will start). The worker and the SMTP server, at
 * niceness 10, share the API's: below it, their own work does not slow it. PostgreSQL's does,
 * whatever its sessions' niceness (BENCHMARKS.md); split, the jobs have one CPU fewer. By
 * default for the embedded PostgreSQL the benchmark starts; a PostgreSQL of the machine's
 * (DATABASE_URL) is moved only with BENCH_JOBS_CPUS=split. Undefined, and nothing moved, when
 * shared, on one CPU, or when PostgreSQL's processes are not this machine's to move.
 */
async function splitCpus(
  pool: pg.Pool,
  embedded: boolean,
): Promise<{ api: string; jobs: string; restore(): void } | undefined> {
  const count = os.cpus().length;
  const mode = process.env["BENCH_JOBS_CPUS"] ?? (embedded ? "split" : "shared");
  if (mode !== "split" || count < 2) return undefined;
  const all = `0-${count - 1}`;
  const { rows } = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  // Only a PostgreSQL of this machine: the backend's parent must be a postgres server here.
  const backend = rows[0]?.pid ?? 0;
  const candidate = parentOf(backend);
  const postmaster =
    commandOf(backend).startsWith("postgres: ") &&
    candidate !== undefined &&
    /(^|\/)postgres\0/.test(commandOf(candidate))
      ? candidate
      : undefined;
  /** PostgreSQL's processes now, and this one's; new backends follow their postmaster. */
  const move = (postgres: string, self: string) => {
    if (postmaster === undefined) throw new Error("PostgreSQL runs on another machine");
    const children = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .filter((pid) => parentOf(pid) === postmaster);
    for (const pid of [postmaster, ...children]) {
      // A process may end meanwhile (a backend closing): not an error.
      try {
        execFileSync("taskset", ["-a", "-pc", postgres, String(pid)], { stdio: "ignore" });
      } catch (error) {
        if (parentOf(pid) !== undefined) throw error;
      }
    }
    execFileSync("taskset", ["-a", "-pc", self, String(process.pid)], { stdio: "ignore" });
  };
  const split = { api: "0", jobs: count === 2 ? "1" : `1-${count - 1}` };
  // A PostgreSQL of the machine (DATABASE_URL) gets all its CPUs back, whatever happens.
  const restore = () => {
    try {
      move(all, all);
    } catch (error) {
      process.stdout.write(`PostgreSQL's CPUs could not all be given back: ${String(error)}\n`);
    }
  };
  try {
    move(split.jobs, split.api);
  } catch (error) {
    restore();
    process.stdout.write(`the CPUs stay shared: ${String(error)}\n`);
    return undefined;
  }
  return { ...split, restore };
}

/** Whether a p95 measured under load is within noise of the one measured before it. */
export function withinNoise(before: number, during: number): boolean {
  return during <= Math.max(before * P95_NOISE_RATIO, before + NOISE_MS);
}

async function postgresSettings(pool: pg.Pool): Promise<JobsFigures["settings"]> {
  const { rows } = await pool.query<{ shared_buffers: string; max_wal_size: string }>(
    `SELECT current_setting('shared_buffers') AS shared_buffers,
            current_setting('max_wal_size') AS max_wal_size`,
  );
  const row = rows[0];
  return { sharedBuffers: row?.shared_buffers ?? "?", maxWalSize: row?.max_wal_size ?? "?" };
}

/** A process's command line, from /proc ("" when it is gone, or not this machine's). */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

/** A process's parent, from /proc (undefined when it is gone, or not this machine's). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Queues a task and waits for the worker to finish it: its seconds, from queuing to done. */
async function runQueued(pool: pg.Pool, task: string): Promise<number> {
  const began = performance.now();
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM graphile_worker.add_job($1, '{}'::json)`,
    [task],
  );
  for (;;) {
    const left = await pool.query<{ last_error: string | null }>(
      `SELECT last_error FROM graphile_worker.jobs WHERE id = $1`,
      [rows[0]?.id],
    );
    if (left.rowCount === 0) break;
    if (left.rows[0]?.last_error) throw new Error(`${task} failed: ${left.rows[0].last_error}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return (performance.now() - began) / 1000;
}

/**
 * What PostgreSQL wrote so far: WAL bytes (the whole cluster's) and temporary file bytes (this
 * database's), the jobs' cost beyond their seconds: what a replica receives and a backup keeps.
 */
async function writes(pool: pg.Pool): Promise<{ wal: number; temp: number }> {
  // The WAL position, exact at once (the statistics views lag their backends by seconds).
  const { rows } = await pool.query<{ wal: string; temp: string }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal, temp_bytes AS temp
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { wal: Number(rows[0]?.wal ?? 0), temp: Number(rows[0]?.temp ?? 0) };
}

/** Lots still held (by the pending period's index: cheap). */
async function heldLots(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ held: number }>(
    `SELECT count(*)::int AS held FROM earning_lots WHERE released_at IS NULL`,
  );
  return rows[0]?.held ?? 0;
}

/**
 * Lots warned and expiry transactions written: whole-table counts, which PostgreSQL runs on
 * every core it has. Taken only outside the measured window, so that calculate's latency while
 * the jobs run is the jobs' doing, not the benchmark's.
 */
async function expiryCounts(pool: pg.Pool): Promise<{ warned: number; expired: number }> {
  const { rows } = await pool.query<{ warned: number; expired: number }>(
    `SELECT (SELECT count(*) FROM earning_lots WHERE warned_at IS NOT NULL)::int AS warned,
            (SELECT count(*) FROM ledger_transactions WHERE kind = 'expiry')::int AS expired`,
  );
  return rows[0] as { warned: number; expired: number };
}

export async function benchProgrammeJobs(
  databaseUrl: string,
  masterKey: string,
  /** The benchmark started this PostgreSQL: its CPUs are the benchmark's to move. */
  embedded: boolean,
): Promise<JobsFigures> {
  const logger = pino({ level: "warn" });
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOYALTY_MASTER_KEY: masterKey,
    WORKERS: "off",
  });
  // Two lanes of batches, and the set-up's own queries.
  const runtime = await openRuntime(config, logger, { migrate: false, poolSize: 4 });
  const { pool, services } = runtime.context;
  try {
    const store = await services.stores.create({ domain: "https://jobs.bench.example" });
    await services.program.saveSettings(store.id, {
      pendingDays: 14,
      expiry: { mode: "lifetime", months: 12, warningDays: 30 },
    });
    const started = performance.now();
    await generate(pool, store.id);
    const generationSeconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `jobs store: ${CUSTOMERS} customers, ${LOTS} lots, generated in ${generationSeconds.toFixed(0)} s\n`,
    );

    // A storefront of another store, answering calculate from the server's memory.
    const shop = await services.stores.create({ domain: "https://shop.jobs.bench.example" });
    await pool.query(
      `INSERT INTO attribution_rules (store_id, kind, rate) VALUES ($1, 'default', 1)`,
      [shop.id],
    );
    // The API on a CPU of its own, PostgreSQL on the others.
    const cpus = await splitCpus(pool, embedded);
    const { child, port } = await start(
      ["src/main.ts"],
      serverEnv(databaseUrl, masterKey, "off"),
      SERVER_READY,
      { cpus: cpus?.api },
    ).catch((error: unknown) => {
      cpus?.restore();
      throw error;
    });
    try {
      const url = `http://127.0.0.1:${port}/point/product-points/calculate?domain=${encodeURIComponent(shop.domain)}&price=19.99&product=7`;
      await steadyLoad(url, new Promise((resolve) => setTimeout(resolve, 3_000)));
      let during: Latency = { requests: 0, errors: 0, p50: NaN, p95: NaN };
      let written = { walMiB: NaN, tempMiB: NaN };
      const before = await steadyLoad(
        url,
        new Promise((resolve) => setTimeout(resolve, BASELINE_SECONDS * 1000)),
      );

      // The warning emails go to a real SMTP server, as they would to the store's provider.
      const { child: relay, port: smtpPort } = await start(
        ["bench/smtp-relay.ts"],
        {},
        /smtp relay listening on port (\d+)/,
        { niceness: WORKER_NICENESS },
      );
      // The jobs run where they run in production: in a worker process, taken from the queue,
      // logging what an operator keeps in production (warnings), not a line per job done.
      const { child: worker } = await start(
        ["src/cli.ts", "worker"],
        {
          ...serverEnv(databaseUrl, masterKey, "off"),
          LOG_LEVEL: "warn",
          SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
          ALLOW_PRIVATE_URLS: "true",
        },
        /workers running/,
        // As docs/operators.md advises when workers share the API's machine: below the API.
        { niceness: WORKER_NICENESS },
      ).catch(async (error: unknown) => {
        await stop(relay);
        throw error;
      });
      const jobs: JobsFigures["jobs"] = [];
      const report = (name: string, seconds: number, result: unknown) => {
        jobs.push({ name, seconds, result });
        process.stdout.write(`${name}: ${seconds.toFixed(1)} s ${JSON.stringify(result)}\n`);
      };
      try {
        const writesBefore = await writes(pool);
        const heldBefore = await heldLots(pool);
        const countsBefore = await expiryCounts(pool);
        const running = (async () => {
          const release = await runQueued(pool, "release-pending-points");
          const heldAfter = await heldLots(pool);
          const expire = await runQueued(pool, "expire-points");
          return { release, released: heldBefore - heldAfter, expire };
        })();
        during = await steadyLoad(url, running);
        const { release, released, expire } = await running;
        const writesAfter = await writes(pool);
        written = {
          walMiB: (writesAfter.wal - writesBefore.wal) / 2 ** 20,
          tempMiB: (writesAfter.temp - writesBefore.temp) / 2 ** 20,
        };
        process.stdout.write(
          `written while the jobs ran: ${written.walMiB.toFixed(0)} MiB of WAL, ${written.tempMiB.toFixed(0)} MiB of temporary files\n`,
        );
        const countsAfter = await expiryCounts(pool);
        report("release-pending-points", release, { released });
        report("expire-points", expire, {
          lotsWarned: countsAfter.warned - countsBefore.warned,
          expiries: countsAfter.expired - countsBefore.expired,
        });
        const again = await runQueued(pool, "expire-points");
        const countsAgain = await expiryCounts(pool);
        report("expire-points again (nothing due)", again, {
          lotsWarned: countsAgain.warned - countsAfter.warned,
          expiries: countsAgain.expired - countsAfter.expired,
        });
      } finally {
        await stop(worker);
        await stop(relay);
      }
      process.stdout.write(
        `calculate at ${RATE}/s, p95: ${before.p95.toFixed(2)} ms before, ${during.p95.toFixed(2)} ms while the jobs ran\n`,
      );

      const check = await pool.query<{ ok: boolean }>(
        `SELECT bool_and(c.balance = (SELECT coalesce(sum(points), 0) FROM ledger_transactions t
                                       WHERE t.customer_id = c.id)) AS ok
         FROM customers c WHERE c.store_id = $1 AND c.id % 1000 = 0`,
        [store.id],
      );
      const ledgerChecked = check.rows[0]?.ok === true;
      process.stdout.write(`ledger sums to the balance (sampled): ${String(ledgerChecked)}\n`);
      return {
        customers: CUSTOMERS,
        lots: LOTS,
        generationSeconds,
        jobs,
        calculate: { before, during },
        cpus: cpus && { api: cpus.api, jobs: cpus.jobs },
        written,
        settings: await postgresSettings(pool),
        load: { average: os.loadavg()[0] ?? NaN, cpus: os.cpus().length },
        overTarget: jobs.some((job) => job.seconds * 1000 > JOBS_TARGET_MS),
        slowedReads: cpus !== undefined && !withinNoise(before.p95, during.p95),
        ledgerChecked,
      };
    } finally {
      await stop(child);
      cpus?.restore();
    }
  } finally {
    await runtime.close();
  }
}

/** The BENCHMARKS.md section. */
export function jobsSection(figures: JobsFigures): string {
  const rows = figures.jobs
    .map(
      (job) =>
        `| ${job.name} | **${job.seconds.toFixed(1)}** | \`${JSON.stringify(job.result)}\` |`,
    )
    .join("\n");
  const { before, during } = figures.calculate;
  return `## Programme jobs on a large store

\`bench/programme-jobs.ts\` (\`pnpm bench:jobs\` alone) on a generated store of
${figures.customers.toLocaleString("en")} customers with ${figures.lots.toLocaleString("en")} earning lots over 15 months (a 14-day pending period, a
12-month lifetime with a 30-day warning), generated in ${figures.generationSeconds.toFixed(0)} s. Each job queued and run by a worker
process (\`loyalty worker\`, niceness ${WORKER_NICENESS}, its PostgreSQL sessions with it) as its schedule runs it, from queuing to
done; the warning emails it queues go to a real SMTP server at a lower priority meanwhile. ${
    figures.cpus
      ? `As docs/operators.md advises for a machine the API shares with PostgreSQL, each has CPUs of its own: the API
CPU ${figures.cpus.api} (with this load generator, and the worker and the SMTP server below it), PostgreSQL CPU ${figures.cpus.jobs}.`
      : "Every process shared every CPU (BENCH_JOBS_CPUS=split gives the API and PostgreSQL CPUs of their own)."
  } Target: each at most ${JOBS_TARGET_MS / 1000} s. PostgreSQL (shared_buffers ${figures.settings.sharedBuffers},
max_wal_size ${figures.settings.maxWalSize}) wrote ${figures.written.walMiB.toFixed(0)} MiB of WAL and
${figures.written.tempMiB.toFixed(0)} MiB of temporary files while they ran.

| job | seconds | result |
|---|---|---|
${rows}

Calculate on the real server at ${RATE} requests a second, another store's (answered from memory):

| | requests | p50 ms | p95 ms |
|---|---|---|---|
| before the jobs (${BASELINE_SECONDS} s) | ${before.requests} | ${before.p50.toFixed(2)} | **${before.p95.toFixed(2)}** |
| while the jobs ran | ${during.requests} | ${during.p50.toFixed(2)} | **${during.p95.toFixed(2)}** |

p95 while the jobs ran / before: **${(during.p95 / before.p95).toFixed(2)}** (within noise, at most
${P95_NOISE_RATIO}x or ${NOISE_MS} ms more: ${String(withinNoise(before.p95, during.p95))}${figures.cpus ? "" : ", not checked with the CPUs shared"}). Load average
${figures.load.average.toFixed(1)} on ${figures.load.cpus} CPUs; the ledger summed to the balance: ${String(figures.ledgerChecked)}.
`;
}

async function main(): Promise<void> {
  const database = await benchDatabase();
  try {
    const figures = await benchProgrammeJobs(
      database.url,
      "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
      database.embedded,
    );
    process.stdout.write(`\n${jobsSection(figures)}`);
    if (figures.overTarget || figures.slowedReads || !figures.ledgerChecked) process.exitCode = 1;
  } finally {
    // BENCH_JOBS_KEEP=1 keeps the database, to look at the plans.
    if (process.env["BENCH_JOBS_KEEP"] !== "1") await database.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
  // The runtime's sockets are closed; a timer of a library must not keep the run open.
  process.exit();
}
