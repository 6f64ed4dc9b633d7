import { randomBytes } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import type pg from "pg";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { openRuntime } from "../src/runtime.js";
import {
  addClaimers,
  calculateRequest,
  claimRequests,
  CONNECTIONS,
  creditChecks,
  drain,
  floodCustomer,
  historyRequest,
  OrderNumbers,
  refundRequests,
  registrationRequests,
  rewardListRequest,
  setUpProgramme,
  warmUpRequest,
  type Target,
} from "./scenarios.js";
import {
  benchDatabase,
  keptSection,
  writeSection,
  percentile,
  rssOf,
  SERVER_READY,
  serverEnv,
  start,
  stop,
} from "./support.js";

/**
 * `pnpm bench:soak`: a store's mixed traffic (storefront reads, registrations, refunds, claims,
 * history; bench/scenarios.ts's requests) for SOAK_MINUTES (10) at half the mix's capacity,
 * against the server as an operator runs a single process (the build's dist/main.js,
 * NODE_ENV=production, workers in-process: the crediting's memory is in the RSS measured, and every order is
 * credited during the run, as in production) on a fresh database.
 *
 * 1. Capacity: the mix as one request sequence that each of 50 connections cycles through
 *    (autocannon's closed loop, SOAK_CAPACITY_SECONDS, 20 s): the requests a second it answers.
 * 2. The soak: each kind at its share of half that. autocannon's rate limit sends a second's
 *    requests at the start of the second, as fast as it can: each kind's rate is split over
 *    SLICES instances started apart within the second, so that the load comes every 100 ms
 *    rather than in one burst a second. After SOAK_WARM_UP_SECONDS (30) of it, every answer's
 *    latency is kept per minute and kind (a minute's at a time: exact percentiles, bounded
 *    memory) and the server's RSS sampled every second.
 * 3. Once the queue is drained, SQL checks that every order was credited once, every refund
 *    applied once and every claim confirmed.
 *
 * Prints each check with its figure and exits 1 when one fails: an error or a non-2xx answer,
 * the last minute's RSS or p95 (overall and per kind) more than 10 % over the first minute's, a
 * rate the load generator could not keep, an order, refund or claim not applied exactly once.
 * A soak of 10 minutes or more writes its section of BENCHMARKS.md (`soakSection`), which
 * `pnpm bench` keeps (`keptSoakSection`). Not run in CI: it takes its minutes and needs a quiet
 * machine, latency being absolute.
 *
 * Uses DATABASE_URL's server when set (a fresh database is created on it), else an embedded
 * PostgreSQL in a temporary directory.
 */

const MINUTES = Number(process.env["SOAK_MINUTES"] ?? 10);
const CAPACITY_SECONDS = Number(process.env["SOAK_CAPACITY_SECONDS"] ?? 20);
const WARM_UP_SECONDS = Number(process.env["SOAK_WARM_UP_SECONDS"] ?? 30);
/** The issue's bound on a trend: the last minute at most 10 % over the first. */
const MAX_GROWTH = 0.1;
/** The share of the planned requests a minute must have answered for the rate to be kept. */
const RATE_KEPT = 0.95;
/** autocannon instances per kind, started 1000 / SLICES ms apart. */
const SLICES = 10;
/**
 * Requests a second one connection sends (back to back, at its slice's start): more would let a
 * slow answer hold the rest of its second back.
 */
const PER_CONNECTION = 10;
const HEADING = "## Soak";

interface Run {
  target: Target;
  orders: OrderNumbers;
}

const REGISTER = "POST register";
/** Registrations with an Idempotency-Key each, as the SDK sends them. */
const registrations = (run: Run) =>
  registrationRequests(run.target, run.orders, { keyed: true, customer: floodCustomer });

/** A store's traffic: mostly storefront reads, some orders and refunds, claims, history. */
const MIX: { name: string; weight: number; requests(run: Run): autocannon.Options }[] = [
  { name: "GET calculate", weight: 45, requests: (run) => calculateRequest(run.target) },
  { name: "GET reward list", weight: 20, requests: (run) => rewardListRequest(run.target) },
  { name: REGISTER, weight: 15, requests: registrations },
  { name: "GET user-history", weight: 10, requests: (run) => historyRequest(run.target) },
  { name: "POST claim", weight: 5, requests: (run) => claimRequests(run.target) },
  // The orders registered before the phase starts, in turn: each refunded again and again with
  // the same cumulative amount, which must deduct once.
  { name: "POST refund", weight: 5, requests: (run) => refundRequests(run.target, run.orders) },
];
const TOTAL_WEIGHT = MIX.reduce((sum, kind) => sum + kind.weight, 0);

interface Latencies {
  requests: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface MinuteFigures extends Latencies {
  minute: number;
  /** The server's RSS, the mean and the highest of the minute's samples (MiB). */
  rss: number;
  rssMax: number;
  /** The machine's 1-minute load average at the minute's end. */
  load: number;
  kinds: Record<string, Latencies>;
}

export interface SoakCheck {
  name: string;
  figure: string;
  passed: boolean;
}

export interface SoakFigures {
  minutes: number;
  warmUpSeconds: number;
  capacity: { seconds: number; connections: number; perSecond: number };
  /** Each kind's planned rate (requests a second) and what it sent over the soak. */
  plan: { name: string; weight: number; rate: number; connections: number }[];
  perMinute: MinuteFigures[];
  checks: SoakCheck[];
  orders: number;
  refunds: number;
  claims: number;
  postgres: string;
  embedded: boolean;
}

/** One request of `options` as an entry of a request sequence (its URL's path, its defaults). */
function asRequest(options: autocannon.Options): autocannon.Request {
  const [request, ...others] = options.requests ?? [{}];
  if (others.length > 0) throw new Error("a kind of the mix sends one request");
  const url = new URL(String(options.url));
  return {
    method: options.method ?? "GET",
    path: `${url.pathname}${url.search}`,
    ...(options.body !== undefined && { body: options.body }),
    ...request,
    headers: { ...options.headers, ...request?.headers },
  };
}

/** The mix's kinds in turn, each as often as its weight says, spread out (smooth round robin). */
function mixedSequence(run: Run, outcomes: Outcomes): autocannon.Request[] {
  const divisor = MIX.reduce((a, kind) => gcd(a, kind.weight), 0);
  const entries = MIX.map((kind) => ({
    request: asRequest(outcomes.telling(kind.requests(run), kind.name)),
    credit: 0,
    kind,
  }));
  const sequence: autocannon.Request[] = [];
  for (let index = 0; index < TOTAL_WEIGHT / divisor; index++) {
    for (const entry of entries) entry.credit += entry.kind.weight;
    const next = entries.reduce((best, entry) => (entry.credit > best.credit ? entry : best));
    next.credit -= TOTAL_WEIGHT;
    // An object each: autocannon writes each entry's encoded request onto it.
    sequence.push({ ...next.request });
  }
  return sequence;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** What the load generator saw: errors and non-2xx answers by kind and phase. */
class Outcomes {
  readonly errors = new Map<string, number>();
  readonly non2xx = new Map<string, number>();
  /** The first non-2xx answer of each kind, to say why. */
  readonly firstRefusal = new Map<string, string>();
  /** 2xx answers to registrations: each must be an order of the store. */
  registered = 0;

  count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  /** `instance`'s answers to requests of `kind`, counted under `phase`. */
  watch(instance: autocannon.Instance, kind: string, phase: string): void {
    instance.on("reqError", () => this.count(this.errors, `${phase}: ${kind}`));
    instance.on("response", (_client, status) => {
      if (status < 200 || status >= 300) this.count(this.non2xx, `${phase}: ${kind} ${status}`);
    });
  }

  /** `options` whose requests count the registrations and remember a kind's first refusal. */
  telling(options: autocannon.Options, kind: string): autocannon.Options {
    return {
      ...options,
      requests: (options.requests ?? [{}]).map((request) => ({
        ...request,
        onResponse: (status: number, body: string) => {
          if (status >= 200 && status < 300) {
            if (kind === REGISTER) this.registered += 1;
          } else if (!this.firstRefusal.has(kind)) {
            this.firstRefusal.set(kind, `${status} ${body.slice(0, 300)}`);
          }
        },
      })),
    };
  }
}

function run(options: autocannon.Options, watch: (instance: autocannon.Instance) => void) {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(options, (error, result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
    );
  });
  watch(instance as autocannon.Instance);
  return { instance: instance as autocannon.Instance, done };
}

/** Every running instance, stopped on SIGINT/SIGTERM so that the server and database go too. */
const running = new Set<autocannon.Instance>();
let interrupted = false;
function onStopSignal(signal: NodeJS.Signals): void {
  if (interrupted) return;
  interrupted = true;
  process.stdout.write(`\n${signal}: stopping the soak\n`);
  for (const instance of running) instance.stop();
}

/** The mix's closed-loop throughput: 2xx answers a second. */
async function measureCapacity(run_: Run, outcomes: Outcomes): Promise<number> {
  let answered = 0;
  const { instance, done } = run(
    {
      url: run_.target.base,
      connections: CONNECTIONS,
      duration: CAPACITY_SECONDS,
      requests: mixedSequence(run_, outcomes),
    },
    (instance) => {
      outcomes.watch(instance, "the mix", "capacity");
      instance.on("response", (_client, status) => {
        if (status >= 200 && status < 300) answered += 1;
      });
    },
  );
  running.add(instance);
  const result = await done;
  running.delete(instance);
  return answered / (result.duration || CAPACITY_SECONDS);
}

/** Each minute's answers, kept until the minute is over, then reduced to its figures. */
class Minutes {
  private readonly latencies = new Map<number, Map<string, number[]>>();
  private readonly rss = new Map<number, number[]>();
  readonly closed: MinuteFigures[] = [];

  constructor(
    private readonly soakStart: number,
    private readonly minutes: number,
  ) {}

  minuteAt(time: number): number {
    return Math.floor((time - this.soakStart) / 60_000);
  }

  private counted(minute: number): boolean {
    return minute >= 0 && minute < this.minutes && minute >= this.closed.length;
  }

  record(kind: string, latency: number): void {
    const minute = this.minuteAt(performance.now());
    if (!this.counted(minute)) return;
    const kinds = this.latencies.get(minute) ?? new Map<string, number[]>();
    this.latencies.set(minute, kinds);
    const values = kinds.get(kind) ?? [];
    kinds.set(kind, values);
    values.push(latency);
  }

  sampleRss(rss: number): void {
    const minute = this.minuteAt(performance.now());
    if (!this.counted(minute)) return;
    const samples = this.rss.get(minute) ?? [];
    samples.push(rss);
    this.rss.set(minute, samples);
  }

  /** Closes every minute before `now`'s: returns those closed. */
  closeBefore(now: number): MinuteFigures[] {
    const until = Math.min(this.minuteAt(now), this.minutes);
    const closing: MinuteFigures[] = [];
    while (this.closed.length < until) {
      const minute = this.closed.length;
      const kinds = this.latencies.get(minute) ?? new Map<string, number[]>();
      const samples = this.rss.get(minute) ?? [];
      const figures: MinuteFigures = {
        minute: minute + 1,
        ...latencies([...kinds.values()].flat()),
        rss: samples.reduce((sum, value) => sum + value, 0) / samples.length,
        rssMax: Math.max(...samples),
        load: os.loadavg()[0] ?? NaN,
        kinds: Object.fromEntries(
          MIX.map((kind) => [kind.name, latencies(kinds.get(kind.name) ?? [])]),
        ),
      };
      this.latencies.delete(minute);
      this.rss.delete(minute);
      this.closed.push(figures);
      closing.push(figures);
    }
    return closing;
  }
}

function latencies(values: number[]): Latencies {
  const sorted = Float64Array.from(values).sort();
  const array = Array.from(sorted);
  return {
    requests: array.length,
    p50: percentile(array, 50),
    p95: percentile(array, 95),
    p99: percentile(array, 99),
  };
}

/**
 * The mix at `perSecond`, for the warm-up then `MINUTES`: each kind at its share, in SLICES
 * instances started apart. Resolves when every instance is done.
 */
async function soak(
  run_: Run,
  perSecond: number,
  serverPid: number,
  outcomes: Outcomes,
): Promise<{ plan: SoakFigures["plan"]; perMinute: MinuteFigures[] }> {
  const seconds = WARM_UP_SECONDS + MINUTES * 60;
  const began = performance.now();
  const minutes = new Minutes(began + WARM_UP_SECONDS * 1000, MINUTES);
  const plan: SoakFigures["plan"] = [];
  const instances: Promise<void>[] = [];
  for (const [index, kind] of MIX.entries()) {
    const rate = Math.max(1, Math.round((perSecond * kind.weight) / TOTAL_WEIGHT));
    // One set of requests for the kind's instances: they take orders, refunds and claimers in
    // turn together.
    const options = outcomes.telling(kind.requests(run_), kind.name);
    const slices = Math.min(SLICES, rate);
    let connections = 0;
    for (let slice = 0; slice < slices; slice++) {
      const sliceRate = Math.floor(rate / slices) + (slice < rate % slices ? 1 : 0);
      const sliceConnections = Math.ceil(sliceRate / PER_CONNECTION);
      connections += sliceConnections;
      // The kinds' slices interleaved too: kind `index` starts index / MIX.length of a slice later.
      const delay = ((slice + index / MIX.length) * 1000) / slices;
      instances.push(
        new Promise((resolve) => setTimeout(resolve, delay)).then(async () => {
          if (interrupted) return;
          const { instance, done } = run(
            {
              ...options,
              connections: sliceConnections,
              overallRate: sliceRate,
              // Each ends its own `seconds` after its start: the last minute is whole.
              duration: seconds,
            },
            (instance) => {
              outcomes.watch(instance, kind.name, "soak");
              instance.on("response", (_client, status, _bytes, responseTime) => {
                if (status >= 200 && status < 300) minutes.record(kind.name, responseTime);
              });
            },
          );
          running.add(instance);
          await done;
          running.delete(instance);
        }),
      );
    }
    plan.push({ name: kind.name, weight: kind.weight, rate, connections });
  }
  process.stdout.write(
    `soak: ${plan.map((kind) => `${kind.name} ${kind.rate}/s`).join(", ")}; ${WARM_UP_SECONDS} s of warm-up, then ${MINUTES} minute${MINUTES === 1 ? "" : "s"}\n`,
  );
  const sampler = setInterval(() => {
    void rssOf(serverPid).then((rss) => minutes.sampleRss(rss));
    for (const figures of minutes.closeBefore(performance.now())) {
      process.stdout.write(`${minuteLine(figures)}\n`);
    }
  }, 1000);
  await Promise.all(instances);
  clearInterval(sampler);
  for (const figures of minutes.closeBefore(performance.now())) {
    process.stdout.write(`${minuteLine(figures)}\n`);
  }
  return { plan, perMinute: minutes.closed };
}

const ms = (value: number) => value.toFixed(1);

function minuteLine(figures: MinuteFigures): string {
  return `minute ${figures.minute}: ${figures.requests} requests, p50 ${ms(figures.p50)} ms, p95 ${ms(figures.p95)} ms, p99 ${ms(figures.p99)} ms, RSS ${figures.rss.toFixed(0)} MiB (max ${figures.rssMax.toFixed(0)}), load ${figures.load.toFixed(1)}`;
}

function growth(name: string, first: number, last: number, unit: string): SoakCheck {
  const change = last / first - 1;
  return {
    name,
    figure: `${first.toFixed(1)} → ${last.toFixed(1)} ${unit} (${change >= 0 ? "+" : ""}${(change * 100).toFixed(1)} %)`,
    passed: Number.isFinite(change) && change <= MAX_GROWTH,
  };
}

/** The refunds and claims of `storeId`, once the queue is drained: each figure 0. */
async function refundAndClaimChecks(
  pool: pg.Pool,
  storeId: number,
): Promise<Record<string, number>> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT
       (SELECT count(*) FROM refunds WHERE store_id = $1 AND processing_status <> 'processed')
         AS "refunds not processed",
       (SELECT count(*) FROM refunds r JOIN orders o
          ON o.store_id = r.store_id AND o.external_id = r.order_external_id
        WHERE r.store_id = $1 AND (r.order_id IS NULL OR r.outcome = 'unknown_order'))
         AS "refunds of a registered order not applied",
       (SELECT count(*) FROM (
          SELECT order_id FROM ledger_transactions
          WHERE store_id = $1 AND kind = 'refund_deduction'
          GROUP BY order_id HAVING count(*) > 1) AS x)
         AS "orders deducted more than once",
       (SELECT count(*) FROM orders o WHERE o.store_id = $1 AND o.points_deducted <>
          -(SELECT coalesce(sum(points), 0) FROM ledger_transactions l
            WHERE l.order_id = o.id AND l.kind = 'refund_deduction'))
         AS "orders whose deductions are not their points deducted",
       (SELECT count(*) FROM orders WHERE store_id = $1 AND refund_status IS NOT NULL
          AND points_deducted <>
            floor(points_earned * amount_refunded / order_amount_spent(payload) + 1e-9))
         AS "refunded orders deducted other than their refunded share",
       (SELECT count(*) FROM reward_claims WHERE store_id = $1 AND status <> 'confirmed')
         AS "claims not confirmed",
       (SELECT count(*) FROM reward_claims c WHERE c.store_id = $1 AND 1 <>
          (SELECT count(*) FROM ledger_transactions l
           WHERE l.claim_id = c.id AND l.kind = 'reward_redemption'))
         AS "claims without exactly one redemption"`,
    [storeId],
  );
  return Object.fromEntries(
    Object.entries(rows[0] ?? {}).map(([name, value]) => [name, Number(value)]),
  );
}

async function counts(pool: pg.Pool, storeId: number) {
  const { rows } = await pool.query<{ orders: number; refunds: number; claims: number }>(
    `SELECT (SELECT count(*) FROM orders WHERE store_id = $1)::int AS orders,
            (SELECT count(*) FROM refunds WHERE store_id = $1)::int AS refunds,
            (SELECT count(*) FROM reward_claims WHERE store_id = $1)::int AS claims`,
    [storeId],
  );
  return rows[0] as { orders: number; refunds: number; claims: number };
}

export async function benchSoak(masterKey: string): Promise<SoakFigures> {
  const database = await benchDatabase();
  const config = loadConfig({ DATABASE_URL: database.url, LOYALTY_MASTER_KEY: masterKey });
  // Its store change listener is never started: the set-up reads through to the database.
  const runtime = await openRuntime(config, pino({ level: "error" }), {
    migrate: false,
    poolSize: 4,
  });
  let server: Awaited<ReturnType<typeof start>>["child"] | undefined;
  process.on("SIGINT", onStopSignal);
  process.on("SIGTERM", onStopSignal);
  try {
    const { pool, services } = runtime.context;
    const store = await setUpProgramme(pool, services, "https://soak.bench.example");
    await addClaimers(pool, store);
    const started = await start(
      ["src/main.ts"],
      serverEnv(database.url, masterKey, "in-process"),
      SERVER_READY,
    );
    server = started.child;
    const serverPid = server.pid as number;
    const run_: Run = {
      target: { base: `http://127.0.0.1:${started.port}`, store },
      orders: new OrderNumbers(),
    };
    const outcomes = new Outcomes();

    // JIT and pools warm, and orders registered for the capacity run's refunds and the
    // history's customer.
    await autocannon({ ...warmUpRequest(run_.target), connections: 10, duration: 2 });
    const { instance: warming, done: warmed } = run(
      { ...outcomes.telling(registrations(run_), REGISTER), connections: 10, duration: 2 },
      (instance) => outcomes.watch(instance, REGISTER, "warm-up"),
    );
    running.add(warming);
    await warmed;
    running.delete(warming);
    await drain(pool);

    const capacity = await measureCapacity(run_, outcomes);
    process.stdout.write(
      `capacity of the mix: ${capacity.toFixed(0)} requests/s (${CONNECTIONS} connections, ${CAPACITY_SECONDS} s)\n`,
    );
    await drain(pool, 300_000);
    if (interrupted) throw new Error("interrupted");

    const { plan, perMinute } = await soak(run_, capacity / 2, serverPid, outcomes);
    if (interrupted) throw new Error("interrupted");
    await drain(pool, 300_000);

    const checks: SoakCheck[] = [];
    const errors = [...outcomes.errors.values(), ...outcomes.non2xx.values()].reduce(
      (sum, n) => sum + n,
      0,
    );
    checks.push({
      name: "no error, no non-2xx answer",
      figure:
        errors === 0
          ? "0"
          : [...outcomes.errors, ...outcomes.non2xx].map(([what, n]) => `${n}× ${what}`).join(", "),
      passed: errors === 0,
    });
    for (const [kind, answer] of outcomes.firstRefusal) {
      process.stdout.write(`  first non-2xx answer to ${kind}: ${answer}\n`);
    }
    const first = perMinute[0];
    const last = perMinute.at(-1);
    if (!first || !last) throw new Error("no minute measured");
    checks.push(
      growth("RSS (the minute's mean), last minute over first", first.rss, last.rss, "MiB"),
    );
    checks.push(growth("p95 of every request, last minute over first", first.p95, last.p95, "ms"));
    for (const kind of MIX) {
      const [was, is] = [first.kinds[kind.name], last.kinds[kind.name]];
      checks.push(
        growth(
          `p95 of ${kind.name}, last minute over first`,
          was?.p95 ?? NaN,
          is?.p95 ?? NaN,
          "ms",
        ),
      );
    }
    const planned = plan.reduce((sum, kind) => sum + kind.rate, 0) * 60;
    const slowest = perMinute.reduce((low, minute) =>
      minute.requests < low.requests ? minute : low,
    );
    checks.push({
      name: `every minute answered at least ${RATE_KEPT * 100} % of the planned rate`,
      figure: `fewest: ${slowest.requests} of ${planned} (minute ${slowest.minute})`,
      passed: slowest.requests >= RATE_KEPT * planned,
    });
    const stored = await counts(pool, store.id);
    checks.push({
      name: "every registration answered 2xx is an order of the store",
      figure: `${outcomes.registered} answered, ${stored.orders} stored, ${run_.orders.taken} sent at most`,
      passed: stored.orders >= outcomes.registered && stored.orders <= run_.orders.taken,
    });
    const sql = {
      ...(await creditChecks(pool, store.id)),
      ...(await refundAndClaimChecks(pool, store.id)),
    };
    for (const [name, value] of Object.entries(sql)) {
      checks.push({ name, figure: String(value), passed: value === 0 });
    }
    return {
      minutes: MINUTES,
      warmUpSeconds: WARM_UP_SECONDS,
      capacity: { seconds: CAPACITY_SECONDS, connections: CONNECTIONS, perSecond: capacity },
      plan,
      perMinute,
      checks,
      ...stored,
      postgres: database.serverVersion,
      embedded: database.embedded,
    };
  } finally {
    process.off("SIGINT", onStopSignal);
    process.off("SIGTERM", onStopSignal);
    if (server) await stop(server);
    await runtime.close();
    await database.drop();
  }
}

/** The BENCHMARKS.md section. */
export function soakSection(report: SoakFigures): string {
  const cpus = os.cpus();
  const first = report.perMinute[0];
  const last = report.perMinute.at(-1);
  const rate = report.plan.reduce((sum, kind) => sum + kind.rate, 0);
  const kinds = report.plan
    .map((kind) => {
      const was = first?.kinds[kind.name];
      const is = last?.kinds[kind.name];
      const requests = report.perMinute.reduce(
        (sum, minute) => sum + (minute.kinds[kind.name]?.requests ?? 0),
        0,
      );
      return `| ${kind.name} | ${kind.weight} % | ${kind.rate} | ${kind.connections} | ${requests.toLocaleString("en")} | ${ms(was?.p95 ?? NaN)} | ${ms(is?.p95 ?? NaN)} |`;
    })
    .join("\n");
  const minutes = report.perMinute
    .map(
      (minute) =>
        `| ${minute.minute} | ${minute.requests.toLocaleString("en")} | ${ms(minute.p50)} | ${ms(minute.p95)} | ${ms(minute.p99)} | ${minute.rss.toFixed(0)} (max ${minute.rssMax.toFixed(0)}) | ${minute.load.toFixed(1)} |`,
    )
    .join("\n");
  const checks = report.checks
    .map((check) => `| ${check.name} | ${check.figure} | ${check.passed ? "pass" : "**FAIL**"} |`)
    .join("\n");
  return `${HEADING}

Measured by \`pnpm bench:soak\` (packages/server/bench/soak.ts) on ${new Date().toISOString().slice(0, 10)}: too long for \`pnpm bench\`,
which keeps this section as that command last wrote it. A store's mixed traffic for ${report.minutes} minutes at
half the mix's capacity, against the server as an operator runs a single process (\`dist/main.js\`,
\`NODE_ENV=production\`, workers in-process) on a fresh database; autocannon, PostgreSQL
${report.postgres}${report.embedded ? " (embedded)" : ""} and the server on one machine (${cpus.length} × ${cpus[0]?.model ?? "?"}, Node ${process.version}).

The capacity: the mix as one sequence of requests that each of ${report.capacity.connections} connections cycles through
(autocannon's closed loop) for ${report.capacity.seconds} s: **${report.capacity.perSecond.toFixed(0)} requests/s**. The soak: each kind at its share of half
that (${rate} requests/s in all), split over ${SLICES} autocannon instances started ${1000 / SLICES} ms apart (autocannon's rate
limit sends a second's requests at its start), after ${report.warmUpSeconds} s of the same as warm-up. Latency of every
answer, per minute (exact percentiles); the server's RSS sampled every second (the minute's mean,
and its highest); the load average of the machine at each minute's end, for the noise. Once the
queue is drained, SQL checks every order, refund and claim (${report.orders.toLocaleString("en")} orders, ${report.refunds.toLocaleString("en")} refund
declarations, ${report.claims.toLocaleString("en")} claims by the end).

| kind | share | requests/s | connections | requests | p95 ms, first minute | p95 ms, last minute |
|---|---|---|---|---|---|---|
${kinds}

| minute | requests | p50 ms | p95 ms | p99 ms | RSS MiB | load average |
|---|---|---|---|---|---|---|
${minutes}

The issue's bounds: no error; the last minute's RSS and p95 (of every request and of each kind)
at most ${MAX_GROWTH * 100} % over the first minute's; every order credited once.

| check | figure | |
|---|---|---|
${checks}
`;
}

/** The section as BENCHMARKS.md has it now ("" when it has none): `pnpm bench` keeps it. */
export function keptSoakSection(): Promise<string> {
  return keptSection(HEADING);
}

async function main(): Promise<void> {
  const masterKey = process.env["LOYALTY_MASTER_KEY"] ?? randomBytes(32).toString("hex");
  const report = await benchSoak(masterKey);
  process.stdout.write("\n");
  for (const check of report.checks) {
    process.stdout.write(`${check.passed ? "pass" : "FAIL"}  ${check.name}: ${check.figure}\n`);
  }
  // Only the issue's soak (10 minutes or more) makes the section.
  if (report.minutes >= 10) {
    await writeSection(HEADING, soakSection(report));
    process.stdout.write(`\nWrote its section of BENCHMARKS.md\n`);
  }
  if (report.checks.some((check) => !check.passed)) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main().catch((error: unknown) => {
    if (interrupted) {
      process.exitCode = 130;
      return;
    }
    throw error;
  });
}
