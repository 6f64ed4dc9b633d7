import http from "node:http";
import { performance } from "node:perf_hooks";
import { createHmac, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import type pg from "pg";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { appendLedgerEntries } from "../src/modules/ledger/ledger.repository.js";
import { defaultWidgetConfig } from "../src/modules/widgets/widgets.defaults.js";
import { openRuntime } from "../src/runtime.js";
import {
  benchOverview,
  OVERVIEW_P95_TARGET_MS,
  overviewSection,
  type OverviewFigures,
} from "./overview.js";
import {
  benchProgrammeJobs,
  JOBS_TARGET_MS,
  jobsSection,
  type JobsFigures,
} from "./programme-jobs.js";
import {
  benchDatabase,
  percentile,
  ROOT,
  rssOf,
  SERVER_READY,
  serverEnv as processEnv,
  start,
  stop,
} from "./support.js";

/**
 * `pnpm bench`: every endpoint family under autocannon, each as a ratio to a bare Express 5
 * hello-world measured in the same run on the same machine (machines here are shared and
 * noisy: absolute figures drift, ratios hold), plus order processing latency and throughput,
 * the server's memory, the programme overview of a large store (bench/overview.ts) and, last,
 * the programme's batch jobs on a store of a million customers (bench/programme-jobs.ts).
 * Writes BENCHMARKS.md at the repository root; exits 1 when the overview or a job misses its target.
 *
 * Uses DATABASE_URL's server when set (a fresh database is created on it), else an embedded
 * PostgreSQL in a temporary directory.
 */

const MASTER_KEY = randomBytes(32).toString("hex");
const DURATION = Number(process.env["BENCH_DURATION"] ?? 10);
const CONNECTIONS = 50;
/** Claims are measured as the issue sets their target: p95 at 20 connections. */
const CLAIM_CONNECTIONS = 20;

interface Measure {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Against the bare Express run just before it (the median of the rounds for reads). */
  ratio: number;
  baseline: number;
}

let helloUrl = "";
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
/**
 * `BENCH_ONLY=claims` or `BENCH_ONLY=reads`: the claim scenario, or the storefront reads, alone,
 * printed, without writing BENCHMARKS.md (a profile or a change measured in minutes).
 */
const ONLY = process.env["BENCH_ONLY"];
if (ONLY !== undefined && ONLY !== "claims" && ONLY !== "reads") {
  throw new Error(`BENCH_ONLY=${ONLY}: only "claims" or "reads"`);
}
/** The products of a collection page's batched request (issue 22: 20 of them). */
const BATCH_PRODUCTS = 20;

/**
 * A scenario against the bare Express app measured right before it, so that a machine that
 * slows down or speeds up mid-run moves both. Reads are cheap to repeat: they alternate with
 * the baseline for several rounds and the median ratio is kept.
 */
async function paired(
  name: string,
  options: autocannon.Options,
  serverPid: number | undefined,
  peak: { rss: number },
  rounds = 1,
): Promise<Measure> {
  const runs: { target: Omit<Measure, "ratio" | "baseline">; baseline: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    const baseline = await cannon("  bare Express 5 hello-world", { url: helloUrl });
    runs.push({
      target: await cannon(name, options, serverPid, peak),
      baseline: baseline.requests,
    });
  }
  runs.sort((a, b) => a.target.requests / a.baseline - b.target.requests / b.baseline);
  const median = runs[Math.floor(runs.length / 2)] as (typeof runs)[number];
  return {
    ...median.target,
    baseline: median.baseline,
    ratio: median.target.requests / median.baseline,
  };
}

async function cannon(
  name: string,
  options: autocannon.Options,
  serverPid?: number,
  peak?: { rss: number },
): Promise<Omit<Measure, "ratio" | "baseline">> {
  const sampler =
    serverPid && peak
      ? setInterval(() => {
          void rssOf(serverPid).then((rss) => (peak.rss = Math.max(peak.rss, rss)));
        }, 250)
      : undefined;
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options });
  if (sampler) clearInterval(sampler);
  const measure = {
    name,
    requests: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  process.stdout.write(
    `${name.padEnd(34)} ${measure.requests.toFixed(0).padStart(7)} req/s  p50 ${measure.p50} ms  p99 ${measure.p99} ms  errors ${measure.errors}  non-2xx ${measure.non2xx}\n`,
  );
  return measure;
}

async function main() {
  // One PostgreSQL for the run: a fresh database on DATABASE_URL's server, or an embedded one.
  const database = await benchDatabase();
  const databaseUrl = database.url;
  const quiet = pino({ level: "error" });

  // The programme the scenarios run against.
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOYALTY_MASTER_KEY: MASTER_KEY });
  // Its store change listener is never started: the seeding below reads through to the database.
  const runtime = await openRuntime(config, quiet, { migrate: false, poolSize: 4 });
  const { pool, services } = runtime.context;
  const domain = "https://bench.example";
  const store = await services.stores.create({ domain });
  const { key } = await services.apiKeys.create(store.reference);
  await pool.query(
    `INSERT INTO attribution_rules (store_id, kind, target_id, rate, points_per_item) VALUES
       ($1, 'default', NULL, 1, 0), ($1, 'product', 100, 2, 0), ($1, 'category', 10, 1.5, 1)`,
    [store.id],
  );
  await pool.query(
    `INSERT INTO clubs (store_id, name, threshold, multiplier) VALUES ($1, 'Silver', 0, 1), ($1, 'Gold', 500, 1.5)`,
    [store.id],
  );
  // The storefront's catalogue and widgets, and customers rich enough to claim all run long.
  await pool.query(
    `WITH r AS (
       INSERT INTO rewards (store_id, name, description, trigger_value)
       SELECT $1, 'Reward ' || n, 'Worth ' || n || ' euros off', n * 100
       FROM generate_series(1, 5) AS n RETURNING id, trigger_value
     )
     INSERT INTO voucher_versions (reward_id, version, kind, value, currency, validity_days)
     SELECT id, 1, 'fixed_amount', trigger_value / 100, 'EUR', 30 FROM r`,
    [store.id],
  );
  const { rows: claimable } = await pool.query<{ id: number }>(
    `WITH r AS (
       INSERT INTO rewards (store_id, name, trigger_value) VALUES ($1, 'Free shipping', 1)
       RETURNING id
     )
     INSERT INTO voucher_versions (reward_id, version, kind) SELECT id, 1, 'free_shipping' FROM r
     RETURNING reward_id AS id`,
    [store.id],
  );
  const claimRewardId = (claimable[0] as { id: number }).id;
  for (const kind of ["cart", "product-points", "program-presentation"] as const) {
    await services.widgets.save(store.id, kind, defaultWidgetConfig(kind, "en"));
  }
  const CLAIMING_CUSTOMERS = 200;
  const { rows: claimers } = await pool.query<{ id: number }>(
    `INSERT INTO customers (store_id, external_id, email)
     SELECT $1, 100000 + n, 'claimer' || n || '@bench.example' FROM generate_series(1, $2) AS n
     RETURNING id`,
    [store.id, CLAIMING_CUSTOMERS],
  );
  await appendLedgerEntries(
    pool,
    claimers.map((customer) => ({
      storeId: store.id,
      customerId: customer.id,
      kind: "manual_adjustment" as const,
      points: 1_000_000_000,
    })),
  );
  const authorization = `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
  const hash = (id: number) =>
    createHmac("sha512", `${store.reference}:${key}`).update(String(id)).digest("hex");

  const serverEnv = (workers: "in-process" | "off") => processEnv(databaseUrl, MASTER_KEY, workers);
  const { child: hello, port: helloPort } = await start(
    ["bench/hello.ts"],
    { NODE_ENV: "production", PORT: "0" },
    /listening (\d+)/,
  );
  const { child: server, port } = await start(
    ["src/main.ts"],
    serverEnv("in-process"),
    SERVER_READY,
  );
  const base = `http://127.0.0.1:${port}`;
  const peak = { rss: 0 };
  const results: Measure[] = [];
  try {
    // Warm both up so JIT and connection pools are not what is measured.
    await autocannon({ url: `http://127.0.0.1:${helloPort}/`, connections: 10, duration: 2 });
    await autocannon({
      url: `${base}/point/product-points/calculate?domain=${encodeURIComponent(domain)}&price=19.99&product=100`,
      connections: 10,
      duration: 2,
    });
    const idle = await rssOf(server.pid as number);

    helloUrl = `http://127.0.0.1:${helloPort}/`;
    if (!ONLY || ONLY === "reads") {
      results.push(
        await paired(
          "GET calculate",
          {
            url: `${base}/point/product-points/calculate?domain=${encodeURIComponent(domain)}&price=19.99&product=7&categories=10,11`,
          },
          server.pid,
          peak,
          ROUNDS,
        ),
      );

      results.push(
        await paired(
          "GET reward list",
          { url: `${base}/reward/list?domain=${encodeURIComponent(domain)}` },
          server.pid,
          peak,
          ROUNDS,
        ),
      );
      results.push(
        await paired(
          "GET widget configurations (the three in turn)",
          {
            url: base,
            requests: ["cart", "product-points", "program-presentation"].map((kind) => ({
              method: "GET" as const,
              path: `/store/widget/${kind}?domain=${encodeURIComponent(domain)}`,
            })),
          },
          server.pid,
          peak,
          ROUNDS,
        ),
      );
      // A collection page's product lines in one request: products with and without rules,
      // categories, prices with cents.
      const batch = Array.from({ length: BATCH_PRODUCTS }, (_, index) =>
        index % 4 === 0
          ? `100:${19 + index}.99`
          : index % 4 === 1
            ? `${200 + index}:${5 + index}.50:10|11`
            : index % 4 === 2
              ? `:${12 + index}`
              : `${300 + index}:${40 + index}.00:12`,
      ).join(",");
      results.push(
        await paired(
          `GET calculate-many (${BATCH_PRODUCTS} products)`,
          {
            url: `${base}/point/product-points/calculate-many?domain=${encodeURIComponent(domain)}&items=${encodeURIComponent(batch)}`,
          },
          server.pid,
          peak,
          ROUNDS,
        ),
      );
    }
    if (ONLY === "reads") return;

    // Claims on the sandbox platform, 20 at a time, each by the next of the customers in turn
    // (their hashes computed beforehand: the load generator shares the machine).
    const claimPaths = Array.from({ length: CLAIMING_CUSTOMERS }, (_, index) => {
      const externalId = 100_001 + index;
      return `/reward/claim/${externalId}?domain=${encodeURIComponent(domain)}&hash=${hash(externalId)}`;
    });
    let claimer = 0;
    // Latency is absolute, so it moves with the machine's load more than ratios do: several
    // rounds, and the one with the median p95 is kept.
    const claimRounds: LatencyResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      claimRounds.push(
        await measureLatencies(
          {
            url: base,
            connections: CLAIM_CONNECTIONS,
            requests: [
              {
                method: "POST",
                headers: { "content-type": "application/json", revision: "2026-08-26" },
                body: JSON.stringify({ rewardId: claimRewardId }),
                setupRequest: (request: autocannon.Request) => ({
                  ...request,
                  path: claimPaths[claimer++ % CLAIMING_CUSTOMERS],
                }),
              },
            ],
          },
          201,
        ),
      );
    }
    claimRounds.sort((a, b) => a.p95 - b.p95);
    const claims = {
      ...(claimRounds[Math.floor(claimRounds.length / 2)] as LatencyResult),
      roundsP95: claimRounds.map((round) => round.p95),
    };
    process.stdout.write(
      `POST claim (${CLAIM_CONNECTIONS} connections, sandbox)  ${claims.perSecond.toFixed(0)} req/s  p50 ${claims.p50.toFixed(1)} ms  p95 ${claims.p95.toFixed(1)} ms  p99 ${claims.p99.toFixed(1)} ms  errors ${claims.errors}  (p95 of the rounds: ${claims.roundsP95.map((p95) => p95.toFixed(1)).join(", ")} ms)\n`,
    );

    if (ONLY) return;

    let orderId = 1;
    const orderBody = (id: number, customer: number) =>
      JSON.stringify({
        externalId: id,
        customer: { externalId: customer },
        currency: "EUR",
        lines: [
          { lineId: 1, productId: 100, categoryIds: [10], quantity: 1, unitPrice: 25 },
          { lineId: 2, productId: 200, categoryIds: [10], quantity: 2, unitPrice: 12.5 },
        ],
      });
    const postHeaders = {
      "content-type": "application/json",
      authorization,
      revision: "2026-08-26",
    };
    // Registrations as a checkout sends them; `keyed`, each with an Idempotency-Key of its own,
    // as the SDK sends them.
    const registrations = (name: string, keyed: boolean) =>
      paired(
        name,
        {
          url: `${base}/api/order/register`,
          method: "POST",
          headers: postHeaders,
          requests: [
            {
              setupRequest: (request) => {
                const id = orderId++;
                return {
                  ...request,
                  ...(keyed && {
                    headers: { ...request.headers, "idempotency-key": `order-${id}` },
                  }),
                  body: orderBody(id, 1 + (id % 1000)),
                };
              },
            },
          ],
        },
        server.pid,
        peak,
      );
    const withoutKey = await registrations("POST register (workers in-process)", false);
    results.push(withoutKey);
    await drain(pool);
    results.push(await registrations("POST register with Idempotency-Key", true));
    const idempotencyRatio = (results.at(-1) as Measure).requests / withoutKey.requests;
    process.stdout.write(
      `  Idempotency-Key on registration: ${idempotencyRatio.toFixed(2)}x the throughput without\n`,
    );
    const registered = orderId - 1;
    await drain(pool);
    let refundId = 1;
    results.push(
      await paired(
        "POST refund",
        {
          url: `${base}/api/order/refund`,
          method: "POST",
          headers: postHeaders,
          requests: [
            {
              setupRequest: (request) => {
                const id = 1 + (refundId++ % registered);
                return {
                  ...request,
                  body: JSON.stringify({
                    externalId: id,
                    status: "partially_refunded",
                    refundedAmount: 10,
                  }),
                };
              },
            },
          ],
        },
        server.pid,
        peak,
      ),
    );
    await drain(pool);
    results.push(
      await paired(
        "GET user-history",
        {
          url: `${base}/point/user-history/7?domain=${encodeURIComponent(domain)}&hash=${hash(7)}`,
          headers: { revision: "2026-08-26" },
        },
        server.pid,
        peak,
        ROUNDS,
      ),
    );

    // Registration → points visible, at a steady 200 orders/s: each order's processed_at
    // (the commit that makes its points readable) against when its request was sent. The
    // floods above leave tens of thousands of dead job rows: vacuumed first, as autovacuum
    // would in a while, so that this measures the steady state and not the aftermath.
    await drain(pool);
    await pool.query("VACUUM ANALYZE");
    const sentAt = new Map<number, number>();
    const firstLatencyId = orderId;
    // An open loop at a steady rate: one request every 5 ms, whatever the answers. (autocannon's
    // rate limit sends each second's requests in a burst, which measures a queue draining.)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const send = (id: number) =>
      new Promise<void>((resolve, reject) => {
        const body = orderBody(id, 5000 + (id % 1000));
        const request = http.request(
          `${base}/api/order/register`,
          {
            method: "POST",
            agent,
            headers: { ...postHeaders, "content-length": Buffer.byteLength(body) },
          },
          (response) => {
            response.resume();
            response.on("end", () =>
              response.statusCode === 201
                ? resolve()
                : reject(new Error(`status ${response.statusCode}`)),
            );
          },
        );
        request.on("error", reject);
        request.end(body);
      });
    const inFlight: Promise<void>[] = [];
    const steadyStart = performance.now();
    for (let sent = 0; sent < 200 * DURATION; sent++) {
      const due = steadyStart + sent * 5;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const id = orderId++;
      sentAt.set(id, Date.now());
      inFlight.push(send(id));
    }
    await Promise.all(inFlight);
    agent.destroy();
    await drain(pool);
    const { rows: processedRows } = await pool.query<{
      external_id: string;
      processed_ms: number;
      queued_ms: number;
    }>(
      `SELECT external_id, extract(epoch FROM processed_at) * 1000 AS processed_ms,
              extract(epoch FROM processed_at - received_at) * 1000 AS queued_ms
       FROM orders WHERE external_id::bigint >= $1`,
      [firstLatencyId],
    );
    const queued = processedRows.map((row) => Number(row.queued_ms)).sort((a, b) => a - b);
    process.stdout.write(
      `  of which stored -> processing: p50 ${percentile(queued, 50).toFixed(1)} ms, p95 ${percentile(queued, 95).toFixed(1)} ms\n`,
    );
    const latencies = processedRows
      .map((row) => Number(row.processed_ms) - (sentAt.get(Number(row.external_id)) ?? NaN))
      .filter((value) => Number.isFinite(value))
      .sort((a, b) => a - b);
    const e2e = {
      orders: latencies.length,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
    };
    process.stdout.write(
      `registration -> points visible at 200/s: ${e2e.orders} orders, p50 ${e2e.p50.toFixed(1)} ms, p95 ${e2e.p95.toFixed(1)} ms, p99 ${e2e.p99.toFixed(1)} ms\n`,
    );
    await stop(server);

    // Registration on an API process that leaves processing to separate workers
    // (WORKERS=off), then sustained processing: that backlog, drained by one worker process.
    const { child: apiOnly, port: apiPort } = await start(
      ["src/main.ts"],
      serverEnv("off"),
      SERVER_READY,
    );
    results.push(
      await paired(
        "POST register (API only, WORKERS=off)",
        {
          url: `http://127.0.0.1:${apiPort}/api/order/register`,
          method: "POST",
          headers: postHeaders,
          requests: [
            {
              setupRequest: (request) => {
                const id = orderId++;
                return { ...request, body: orderBody(id, 10_000 + (id % 5000)) };
              },
            },
          ],
        },
        apiOnly.pid,
        peak,
      ),
    );
    await stop(apiOnly);
    const pending = await pendingOrders(pool);
    const began = Date.now();
    const { child: worker } = await start(
      ["src/cli.ts", "worker"],
      serverEnv("off"),
      /workers running/,
    );
    await drain(pool, 600_000);
    const seconds = (Date.now() - began) / 1000;
    await stop(worker);
    const throughput = pending / seconds;
    process.stdout.write(
      `sustained processing: ${pending} orders in ${seconds.toFixed(1)} s = ${throughput.toFixed(0)} orders/s\n`,
    );

    // Last, on a store of its own in the same database: it adds a million ledger entries.
    const overview = await benchOverview(databaseUrl, MASTER_KEY);
    // Then the programme's batch jobs on a store of a million customers.
    const jobs = await benchProgrammeJobs(databaseUrl, MASTER_KEY, database.embedded);

    await writeReport({
      results,
      e2e,
      throughput: { orders: pending, seconds, perSecond: throughput },
      memory: { idle, peak: peak.rss },
      claims,
      idempotencyRatio,
      overview,
      jobs,
      postgres: database.serverVersion,
      embedded: database.embedded,
    });
    if (jobs.overTarget || !jobs.ledgerChecked) {
      process.stdout.write(`a programme job over its ${JOBS_TARGET_MS / 1000} s target\n`);
      process.exitCode = 1;
    }
    if (jobs.slowedReads) {
      process.stdout.write(`calculate's p95 while the programme jobs ran is not within noise\n`);
      process.exitCode = 1;
    }
    if (overview.periods.some((period) => period.overTarget)) {
      process.stdout.write(`overview p95 over its ${OVERVIEW_P95_TARGET_MS} ms target\n`);
      process.exitCode = 1;
    }
  } finally {
    await stop(hello);
    await stop(server);
    await runtime.close();
    await database.drop();
  }
}

interface LatencyResult {
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

/**
 * autocannon's closed loop (each connection sends its next request when the last is answered),
 * with every response's latency kept: the exact percentiles it does not report (p95).
 */
async function measureLatencies(
  options: autocannon.Options,
  expected: number,
): Promise<LatencyResult> {
  const times: number[] = [];
  let errors = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ duration: DURATION, ...options }, (error, done) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === expected) times.push(responseTime);
      else errors += 1;
    });
  });
  times.sort((a, b) => a - b);
  return {
    requests: times.length,
    perSecond: times.length / (result.duration || DURATION),
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    errors: errors + result.errors + result.timeouts,
  };
}

async function pendingOrders(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM orders WHERE status = 'pending'`,
  );
  return rows[0]?.n ?? 0;
}

/** Waits until every order is processed and the job queue is empty (refunds, webhooks too). */
async function drain(pool: pg.Pool, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const queued = async () => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker.jobs`,
    );
    return rows[0]?.n ?? 0;
  };
  while ((await pendingOrders(pool)) > 0 || (await queued()) > 0) {
    if (Date.now() > deadline) throw new Error("orders still pending");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What each change to the storefront reads bought, kept as the report is written anew. */
const READS_HISTORY = `## Storefront reads: what each change bought

Issue 22 asks the storefront reads for at least 0.9x bare Express (calculate, reward list, widget
configurations) and 0.8x for a batch of 20 products. Each change is measured with
\`BENCH_ONLY=reads BENCH_ROUNDS=3 BENCH_DURATION=5 pnpm bench\` (the four reads alone, each
alternating with the bare Express run three times, median ratio), before and after, in the same
hour on the same machine. Where the time goes comes from \`BENCH_PROFILE=<directory>\` (the
server writes a V8 CPU profile when it stops) and \`node --import tsx bench/profile.ts <file>\`
(self time per package and per function).

| change | calculate | reward list | widget configurations | calculate-many (20 products) |
|---|---|---|---|---|
| before (2026-11-27, b8e71dd) | 0.61x | 0.66x | 0.65x | 0.31x |
| a storefront read's query parsed once per distinct URL (at most 1,000 remembered per operation); a batch's answer and its encoding kept while the store's rules are the same | 0.85x | 0.72x | 0.68x | **0.62x** |

The machine's load average was 2.7 to 4.0 from other sessions during both runs: a ratio moves by
about 0.1 between runs, so only the batch's doubling is beyond noise. The profile of the reads
before the change (self time, of the busy samples): Node's HTTP and socket writes 50 %, garbage
collection 15 %, our server 11 %, Express's router 6 %, zod 5.5 %, Express 4.6 %.

The client address's rate-limit key (express-rate-limit's \`ipKeyGenerator\`, which parses IPv6
with \`ip-address\`) is now remembered per address: 10.4 µs → 13 ns per request for an IPv4 client
of a server listening on every interface (the default without \`HOST\`: it sees
\`::ffff:203.0.113.9\`), 14.3 µs → 0 for an IPv6 one, 111 ns → 1 ns for plain IPv4 (timed over
200,000 calls). At 5,000 requests a second that is 5 % of a core, what issue 22's profile showed
as \`ip-address\`; the benchmark's server listens on 127.0.0.1, where it never showed.
`;

async function writeReport(report: {
  results: Measure[];
  e2e: { orders: number; p50: number; p95: number; p99: number };
  throughput: { orders: number; seconds: number; perSecond: number };
  memory: { idle: number; peak: number };
  claims: LatencyResult & { roundsP95: number[] };
  /** Registration throughput with an Idempotency-Key, over without. */
  idempotencyRatio: number;
  overview: OverviewFigures;
  jobs: JobsFigures;
  postgres: string;
  embedded: boolean;
}) {
  const cpus = os.cpus();
  const rows = report.results
    .map(
      (m) =>
        `| ${m.name} | ${m.requests.toFixed(0)} | ${m.baseline.toFixed(0)} | **${m.ratio.toFixed(2)}x** | ${m.p50} | ${m.p99} | ${m.errors + m.non2xx} |`,
    )
    .join("\n");
  const text = `# Benchmarks

Measured by \`pnpm bench\` (packages/server/bench/run.ts) on ${new Date().toISOString().slice(0, 10)}.
Every figure comes from one run; read the ratios, not the absolute numbers (the machines are
shared and noisy). Each scenario is measured right after a run of a bare Express 5
hello-world (\`bench/hello.ts\`) and divided by it; the read scenarios alternate with it
${ROUNDS} times and keep the median ratio. autocannon, ${CONNECTIONS} connections, ${DURATION} s per
run, on the same machine as the server and PostgreSQL. The server runs with
\`NODE_ENV=production\`, \`LOG_LEVEL=info\` (an access log line per request, except the
storefront reads), workers in-process unless the scenario says otherwise.

Machine: ${cpus.length} × ${cpus[0]?.model ?? "?"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB,
Node ${process.version}, PostgreSQL ${report.postgres}${report.embedded ? " (embedded)" : ""}, on the same machine as the load generator.

## Requests

| scenario | req/s | bare Express req/s, measured just before | ratio | p50 ms | p99 ms | errors |
|---|---|---|---|---|---|---|
${rows}

An Idempotency-Key on each registration (a new one each time, as the SDK sends them: the key is
kept, then its response) runs at ${report.idempotencyRatio.toFixed(2)}x the throughput of registrations without one.

## Claims

\`POST /reward/claim/{externalId}\` on the sandbox platform (the code is a row of the service's
own database), autocannon with ${CLAIM_CONNECTIONS} connections (each sends its next claim as soon as the last
one is answered) for ${DURATION} s, each claim by the next of 200 customers in turn, ${ROUNDS} rounds;
the round with the median p95: ${report.claims.requests} claims, ${report.claims.perSecond.toFixed(0)} claims/s, p50 ${report.claims.p50.toFixed(1)} ms, **p95 ${report.claims.p95.toFixed(1)} ms**, p99 ${report.claims.p99.toFixed(1)} ms, ${report.claims.errors} errors
(p95 of the rounds: ${report.claims.roundsP95.map((p95) => `${p95.toFixed(1)} ms`).join(", ")}).

## Orders

| measure | value |
|---|---|
| registration → points visible, 200 orders/s for ${DURATION} s (${report.e2e.orders} orders) | p50 ${report.e2e.p50.toFixed(1)} ms, p95 ${report.e2e.p95.toFixed(1)} ms, p99 ${report.e2e.p99.toFixed(1)} ms |
| sustained processing, one worker process, backlog of ${report.throughput.orders} orders | ${report.throughput.perSecond.toFixed(0)} orders/s (${report.throughput.seconds.toFixed(1)} s) |

## Memory

Server RSS: ${report.memory.idle.toFixed(0)} MiB after warm-up, ${report.memory.peak.toFixed(0)} MiB at peak under load.

${READS_HISTORY}
${overviewSection(report.overview)}
${jobsSection(report.jobs)}`;
  await writeFile(path.join(ROOT, "BENCHMARKS.md"), text);
  process.stdout.write(`\nWrote BENCHMARKS.md\n`);
}

await main();
