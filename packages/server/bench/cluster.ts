import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import getPort from "get-port";
import type pg from "pg";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { openRuntime } from "../src/runtime.js";
import { creditChecks, orderBody } from "./scenarios.js";
import {
  benchDatabase,
  keptSection,
  percentile,
  SERVER_READY,
  serverEnv,
  start,
  writeSection,
} from "./support.js";

/**
 * `pnpm bench:cluster` (issue 22, "Beyond one process"): the server as docs/operators.md's
 * "Several machines" runs it, on one machine. Two API processes (`WORKERS=off`,
 * `TRUST_PROXY=1`) behind a real HAProxy (roundrobin, health check on GET /readyz, keep-alive,
 * X-Forwarded-For) and two `loyalty worker` processes (below the API, `nice -n 10`), on one
 * fresh database:
 *
 * 1. exactly once: a few thousand registrations through HAProxy, some retried with the same
 *    Idempotency-Key on both API processes at once, some repeated without a key on both; once
 *    the queue is drained, SQL checks that every order was credited exactly once;
 * 2. propagation: a change made through one API process (a rule through the back-office, the
 *    same rule in plain SQL as `pnpm bench` seeds rules, a revoked API key), timed until the
 *    OTHER process, polled directly every ~2 ms, answers with it; target: within 100 ms;
 * 3. throughput: a storefront read (GET calculate) and POST register against one API process
 *    directly, one behind HAProxy, and both behind HAProxy, alternating, in the same run;
 * 4. rate limits: a low storefront limit on two API processes behind HAProxy, counted in each
 *    process's memory (a client gets up to twice the limit) and in Redis (exactly the limit);
 *    skipped when no Redis answers at BENCH_REDIS_URL (redis://127.0.0.1:6379).
 *
 * Exits 1 when an order is not credited exactly once, a job failed, a change took longer than
 * the target to reach the other process, or a client got more than its limit. Every process it
 * started, and HAProxy, are stopped on the way out, on failure and on SIGINT/SIGTERM too.
 *
 * Uses DATABASE_URL's server when set (a fresh database is created on it), else an embedded
 * PostgreSQL in a temporary directory. BENCH_DURATION (10 s per run) and BENCH_ROUNDS (3) as
 * `pnpm bench`; BENCH_CLUSTER_ORDERS (3,000), BENCH_CLUSTER_REPEATS (20 per change), HAPROXY
 * (/usr/sbin/haproxy).
 */

export const PROPAGATION_TARGET_MS = 100;
export const HAPROXY = process.env["HAPROXY"] ?? "/usr/sbin/haproxy";
const DURATION = Number(process.env["BENCH_DURATION"] ?? 10);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const CONNECTIONS = 50;
const ORDERS = Number(process.env["BENCH_CLUSTER_ORDERS"] ?? 3000);
/** Registrations in flight at once in the exactly-once run (each may send three requests). */
const ORDER_CLIENTS = 32;
/** Customers the orders are spread over: many orders each, so that crediting contends. */
const ORDER_CUSTOMERS = 200;
const PROPAGATION_REPEATS = Number(process.env["BENCH_CLUSTER_REPEATS"] ?? 20);
const POLL_MS = 2;
/** How long a poll waits for a change before calling it lost. */
const POLL_TIMEOUT_MS = 5_000;
const REVISION = "2026-08-26";
/**
 * What each order earns under the seeded rules: product 100 (25 €, rule ×2) is 50 points,
 * product 200 (2 × 12.50 €, in category 10: ×1.5 and 1 point per item) is 37.5 + 2, floored
 * per line: 39.
 */
const POINTS_PER_ORDER = 89;
const CALCULATE_PRICE = 19.99;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/* ---------- Processes: every one started here is stopped here ---------- */

function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: the fields after it are fixed.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** This process's children: the pid of a process `start` spawns, known before it is ready. */
function childPids(): Set<number> {
  const children = new Set<number>();
  for (const entry of readdirSync("/proc")) {
    if (/^\d+$/.test(entry) && parentOf(entry) === process.pid) children.add(Number(entry));
  }
  return children;
}

/** Whether the signal reached the process (0: whether it is alive). */
function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

const isAlive = (pid: number) => signal(pid, 0);

/**
 * The processes of one run, by pid from the moment they are spawned: one that never became
 * ready (or was still starting when a signal came) is stopped too.
 */
class Fleet {
  private readonly pids = new Map<number, string>();

  /** support.ts's `start`, remembered. */
  async start(
    name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    ready: RegExp,
    options: { niceness?: number } = {},
  ): Promise<{ child: ChildProcess; port: number }> {
    const before = childPids();
    const starting = start(args, env, ready, options);
    // `start` spawns synchronously: the new child is already in /proc.
    for (const pid of childPids()) if (!before.has(pid)) this.pids.set(pid, name);
    return starting;
  }

  track(name: string, child: ChildProcess): void {
    if (child.pid) this.pids.set(child.pid, name);
  }

  /** Every process started, and HAProxy. */
  stopAll(): Promise<void> {
    return this.stop([...this.pids.keys()]);
  }

  /** SIGTERM to each one still running (a graceful stop), SIGKILL to those left after 15 s. */
  async stop(pids: number[]): Promise<void> {
    const running = pids.filter(isAlive);
    for (const pid of running) signal(pid, "SIGTERM");
    const deadline = Date.now() + 15_000;
    while (running.some(isAlive) && Date.now() < deadline) await sleep(50);
    for (const pid of running.filter(isAlive)) {
      process.stdout.write(`${this.pids.get(pid)} (${pid}) ignored SIGTERM: killed\n`);
      signal(pid, "SIGKILL");
    }
    for (const pid of pids) this.pids.delete(pid);
  }
}

/** What a SIGINT or SIGTERM must undo before the process exits, the latest first. */
const teardowns: (() => Promise<void>)[] = [];
let interrupted = false;

function onStopSignal(signal: NodeJS.Signals): void {
  if (interrupted) return;
  interrupted = true;
  process.stdout.write(`\n${signal}: stopping every process of the cluster benchmark\n`);
  void (async () => {
    for (const teardown of [...teardowns].reverse()) {
      await teardown().catch((error: unknown) =>
        process.stderr.write(`while stopping: ${String(error)}\n`),
      );
    }
    process.exit(130);
  })();
}

/** Runs `body`, then `teardown`, which also runs if a stop signal comes meanwhile. */
async function guarded<T>(teardown: () => Promise<void>, body: () => Promise<T>): Promise<T> {
  let done: Promise<void> | undefined;
  const once = () => (done ??= teardown());
  teardowns.push(once);
  if (teardowns.length === 1) {
    process.on("SIGINT", onStopSignal);
    process.on("SIGTERM", onStopSignal);
  }
  try {
    return await body();
  } finally {
    await once();
    teardowns.splice(teardowns.indexOf(once), 1);
    if (teardowns.length === 0 && !interrupted) {
      process.off("SIGINT", onStopSignal);
      process.off("SIGTERM", onStopSignal);
    }
  }
}

/* ---------- HAProxy ---------- */

interface Balancer {
  port: number;
  pid: number;
  /** A command on the admin socket (`show stat`, `disable server api/b`). */
  command(line: string): Promise<string>;
  /** Each server's state (UP, DOWN, MAINT), requests answered and times marked DOWN. */
  servers(): Promise<{ name: string; status: string; requests: number; downs: number }[]>;
  /** What HAProxy said of its servers' states ("Server api/a is DOWN, reason: …"). */
  readonly transitions: string[];
}

async function startHaproxy(
  fleet: Fleet,
  directory: string,
  servers: { name: string; port: number }[],
): Promise<Balancer> {
  const port = await getPort({ host: "127.0.0.1" });
  const socket = path.join(directory, "haproxy.sock");
  const configFile = path.join(directory, "haproxy.cfg");
  // Keep-alive on both sides (HAProxy's default mode, named), each request balanced on its
  // own. The servers keep idle connections 65 s (HTTP_KEEP_ALIVE_TIMEOUT_MS), longer than
  // HAProxy's 60 s: the balancer, not the server, closes an idle connection.
  await writeFile(
    configFile,
    `global
  maxconn 4096
  stats socket ${socket} mode 600 level admin

defaults
  mode http
  option http-keep-alive
  option forwardfor
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 60s

frontend api
  bind 127.0.0.1:${port}
  default_backend api

backend api
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  timeout check 2s
  default-server check inter 1s fall 3 rise 2
${servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port}`).join("\n")}
`,
  );
  const child = spawn(HAPROXY, ["-db", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  fleet.track("haproxy", child);
  let output = "";
  const transitions: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-4000);
    // Health checks' verdicts only, not the maintenance this benchmark puts a server in.
    transitions.push(
      ...text.split("\n").filter((line) => /Server api\/\S+ is (DOWN|UP),/.test(line)),
    );
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`haproxy exited ${code}:\n${output}`))),
  );
  exited.catch(() => {});

  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const connection = net.createConnection(socket);
      let answer = "";
      connection.on("data", (chunk) => (answer += chunk.toString()));
      connection.on("end", () => resolve(answer));
      connection.on("error", reject);
      connection.end(`${line}\n`);
    });
  const serverStates = async () => {
    const [header, ...lines] = (await command("show stat")).trim().split("\n");
    const columns = (header ?? "").replace(/^# /, "").split(",");
    const at = (name: string) => columns.indexOf(name);
    return lines
      .map((line) => line.split(","))
      .filter((fields) => fields[at("pxname")] === "api" && fields[at("type")] === "2")
      .map((fields) => ({
        name: fields[at("svname")] ?? "?",
        status: fields[at("status")] ?? "?",
        requests: ["hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other"]
          .map((name) => Number(fields[at(name)] || 0))
          .reduce((sum, count) => sum + count, 0),
        downs: Number(fields[at("chkdown")] || 0),
      }));
  };
  // Ready once every server passed its health check.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const states = await Promise.race([serverStates().catch(() => []), exited]);
    if (states.length === servers.length && states.every((state) => state.status === "UP")) break;
    if (Date.now() > deadline) {
      throw new Error(`haproxy: servers not UP: ${JSON.stringify(states)}\n${output}`);
    }
    await sleep(100);
  }
  return { port, pid: child.pid as number, command, servers: serverStates, transitions };
}

/* ---------- HTTP ---------- */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(
  agent: http.Agent,
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** The client's address (127.0.0.2 is another client than 127.0.0.1 on loopback). */
    localAddress?: string;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? "GET",
        agent,
        ...(options.localAddress !== undefined && { localAddress: options.localAddress }),
        headers: {
          ...options.headers,
          ...(options.body !== undefined && { "content-length": Buffer.byteLength(options.body) }),
        },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

function jsonOf<T>(answer: Answer, expected: number, what: string): T {
  if (answer.status !== expected) {
    throw new Error(`${what}: ${answer.status} (expected ${expected}) ${answer.body}`);
  }
  return JSON.parse(answer.body) as T;
}

/* ---------- CPU accounting ---------- */

const CLOCK_TICKS_PER_SECOND = 100;

function ticksOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime: the 14th and 15th fields of the line, the 12th and 13th after the name.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function machineTicks(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
  return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) + (steal ?? 0) };
}

/** CPUs used (1 = one CPU busy all along) by each part during a measure. */
export interface CpuShares {
  apiA: number;
  apiB: number;
  haproxy: number;
  /** This process: autocannon. */
  loadGenerator: number;
  workers: number;
  /** The sessions of the benchmark's database, and PostgreSQL's own processes (WAL writer…). */
  postgres: number;
  /** The machine's busy CPUs in all. */
  machine: number;
  /** What the parts above do not explain: other processes of the machine. */
  others: number;
}

interface CpuRoles {
  apiA: number;
  apiB: number;
  haproxy: number;
  workers: number[];
}

/** Starts measuring; the function it resolves with says what each part used since. */
async function cpuMeter(pool: pg.Pool, roles: CpuRoles): Promise<() => CpuShares> {
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() OR backend_type <> 'client backend'`,
  );
  const postgres = rows.map((row) => row.pid);
  const began = performance.now();
  const sample = () => ({
    apiA: ticksOf(roles.apiA),
    apiB: ticksOf(roles.apiB),
    haproxy: ticksOf(roles.haproxy),
    workers: roles.workers.map(ticksOf),
    postgres: postgres.map(ticksOf),
    self: process.cpuUsage(),
    machine: machineTicks(),
  });
  const first = sample();
  return () => {
    const last = sample();
    const seconds = (performance.now() - began) / 1000;
    const cpus = (ticks: number) => ticks / CLOCK_TICKS_PER_SECOND / seconds;
    // Processes that ended meanwhile (a pool's idle connection) count for nothing.
    const sum = (before: number[], after: number[]) =>
      after.reduce(
        (total, ticks, index) => total + (ticks > 0 ? ticks - (before[index] ?? 0) : 0),
        0,
      );
    const self = process.cpuUsage(first.self);
    const shares = {
      apiA: cpus(last.apiA - first.apiA),
      apiB: cpus(last.apiB - first.apiB),
      haproxy: cpus(last.haproxy - first.haproxy),
      loadGenerator: (self.user + self.system) / 1e6 / seconds,
      workers: cpus(sum(first.workers, last.workers)),
      postgres: cpus(sum(first.postgres, last.postgres)),
      machine:
        (os.cpus().length * (last.machine.busy - first.machine.busy)) /
        Math.max(1, last.machine.total - first.machine.total),
    };
    const ours =
      shares.apiA +
      shares.apiB +
      shares.haproxy +
      shares.loadGenerator +
      shares.workers +
      shares.postgres;
    return { ...shares, others: Math.max(0, shares.machine - ours) };
  };
}

/* ---------- The database ---------- */

async function pendingJobs(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM orders WHERE status = 'pending')::int
          + (SELECT count(*) FROM graphile_worker.jobs)::int AS n`,
  );
  return rows[0]?.n ?? 0;
}

/** Waits until every order is processed and the job queue is empty; says what is left if not. */
async function drain(pool: pg.Pool, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await pendingJobs(pool)) > 0) {
    if (Date.now() > deadline) {
      const { rows } = await pool.query<{ task: string; jobs: number; attempts: number }>(
        `SELECT task_identifier AS task, count(*)::int AS jobs, max(attempts) AS attempts,
                max(last_error) AS last_error
         FROM graphile_worker.jobs GROUP BY 1`,
      );
      throw new Error(`the queue did not drain in ${timeoutMs} ms: ${JSON.stringify(rows)}`);
    }
    await sleep(50);
  }
}

interface Seeded {
  id: number;
  domain: string;
  authorization: string;
  /** The product rule (product 100) propagation changes. */
  productRuleId: number;
}

async function seedStore(
  services: Awaited<ReturnType<typeof openRuntime>>["context"]["services"],
  pool: pg.Pool,
  name: string,
): Promise<Seeded> {
  const domain = `https://${name}-${randomBytes(3).toString("hex")}.bench.example`;
  const store = await services.stores.create({ domain });
  const { key } = await services.apiKeys.create(store.reference);
  // The rules of `pnpm bench`, as it writes them (plain SQL); no clubs, so that every order
  // earns POINTS_PER_ORDER.
  const { rows } = await pool.query<{ id: number; kind: string }>(
    `INSERT INTO attribution_rules (store_id, kind, target_id, rate, points_per_item) VALUES
       ($1, 'default', NULL, 1, 0), ($1, 'product', 100, 2, 0), ($1, 'category', 10, 1.5, 1)
     RETURNING id, kind`,
    [store.id],
  );
  return {
    id: store.id,
    domain,
    authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}`,
    productRuleId: Number(rows.find((rule) => rule.kind === "product")?.id),
  };
}

/* ---------- 1. Exactly once ---------- */

export interface ExactlyOnceFigures {
  orders: number;
  /** Requests sent in all, retries included, and how they were sent. */
  requests: number;
  duplicatesKeyed: number;
  duplicatesUnkeyed: number;
  replayed: number;
  retried: number;
  /** Answers by status (`201 replayed`: an Idempotency-Key's kept response). */
  statuses: Record<string, number>;
  registrationSeconds: number;
  /** From the last registration's answer to an empty queue. */
  drainSeconds: number;
  /** Requests each API process answered through HAProxy. */
  balanced: Record<string, number>;
  checks: { name: string; value: number; expected: number }[];
  passed: boolean;
}

interface Targets {
  balancer: string;
  a: string;
  b: string;
}

async function exactlyOnce(
  pool: pg.Pool,
  store: Seeded,
  targets: Targets,
  balancer: Balancer,
): Promise<ExactlyOnceFigures> {
  const agents = {
    balancer: new http.Agent({ keepAlive: true, maxSockets: ORDER_CLIENTS }),
    a: new http.Agent({ keepAlive: true, maxSockets: ORDER_CLIENTS }),
    b: new http.Agent({ keepAlive: true, maxSockets: ORDER_CLIENTS }),
  };
  const before = await balancer.servers();
  const statuses = new Map<string, number>();
  let requests = 0;
  let replayed = 0;
  let retried = 0;
  let duplicatesKeyed = 0;
  let duplicatesUnkeyed = 0;
  const failures: string[] = [];

  /** As the SDK retries: connection errors, 429 and 5xx, honouring Retry-After. */
  const register = async (target: keyof Targets, id: number, key?: string) => {
    const body = orderBody(id, 1 + (id % ORDER_CUSTOMERS));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      authorization: store.authorization,
      revision: REVISION,
      ...(key !== undefined && { "idempotency-key": key }),
    };
    for (let attempt = 1; ; attempt++) {
      requests += 1;
      let answer: Answer | undefined;
      try {
        answer = await send(agents[target], `${targets[target]}/api/order/register`, {
          method: "POST",
          headers,
          body,
        });
      } catch (error) {
        if (attempt >= 8) throw error;
      }
      if (answer) {
        const outcome = `${answer.status}${answer.headers["idempotent-replayed"] ? " replayed" : ""}`;
        statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
        if (answer.headers["idempotent-replayed"] === "true") replayed += 1;
        if (answer.status === 201) return;
        if (answer.status !== 429 && answer.status < 500) {
          failures.push(`order ${id} via ${target}: ${answer.status} ${answer.body}`);
          return;
        }
        if (attempt >= 8) {
          failures.push(`order ${id} via ${target}: still ${answer.status} after ${attempt}`);
          return;
        }
      }
      retried += 1;
      const after = Number(answer?.headers["retry-after"] ?? 0) * 1000;
      await sleep(Math.min(1_000, Math.max(after, 25 * 2 ** attempt)));
    }
  };

  /**
   * Order by order: most sent once through HAProxy; one in five also retried with the same
   * Idempotency-Key on both API processes directly, at the same moment; one in ten sent again
   * without a key on both processes at once; one in ten retried through HAProxy after its
   * answer (roundrobin: mostly to the other process), as a client that lost the answer.
   */
  const registerOrder = async (id: number) => {
    const kind = id % 10;
    if (kind === 6 || kind === 7) {
      duplicatesKeyed += 2;
      const key = `cluster-order-${id}`;
      await Promise.all([
        register("balancer", id, key),
        register("a", id, key),
        register("b", id, key),
      ]);
    } else if (kind === 8) {
      duplicatesUnkeyed += 2;
      await Promise.all([register("balancer", id), register("a", id), register("b", id)]);
    } else if (kind === 9) {
      duplicatesKeyed += 2;
      const key = `cluster-order-${id}`;
      await register("balancer", id, key);
      await register("balancer", id, key);
      await register("balancer", id, key);
    } else {
      await register("balancer", id);
    }
  };

  const began = performance.now();
  let next = 1;
  await Promise.all(
    Array.from({ length: ORDER_CLIENTS }, async () => {
      while (next <= ORDERS) await registerOrder(next++);
    }),
  );
  const registered = performance.now();
  for (const agent of Object.values(agents)) agent.destroy();
  await drain(pool);
  const drained = performance.now();
  const after = await balancer.servers();
  const balanced = Object.fromEntries(
    after.map((server) => [
      server.name,
      server.requests - (before.find((old) => old.name === server.name)?.requests ?? 0),
    ]),
  );

  const { rows } = await pool.query<Record<string, string>>(
    `SELECT
       (SELECT count(*) FROM orders WHERE store_id = $1) AS orders,
       (SELECT count(DISTINCT external_id) FROM orders
         WHERE store_id = $1 AND external_id ~ '^[0-9]+$' AND external_id::int BETWEEN 1 AND $2)
         AS "orders 1..N",
       (SELECT count(*) FROM ledger_transactions WHERE store_id = $1 AND kind = 'earn')
         AS "ledger credits",
       (SELECT count(*) FROM ledger_transactions WHERE store_id = $1 AND kind <> 'earn')
         AS "other ledger entries",
       (SELECT count(*) FROM orders WHERE store_id = $1 AND points_earned IS DISTINCT FROM $3)
         AS "orders with other points than expected",
       (SELECT coalesce(sum(points), 0) FROM ledger_transactions WHERE store_id = $1)
         AS "ledger points",
       (SELECT coalesce(sum(balance), 0) FROM customers WHERE store_id = $1)
         AS "customers' balances",
       (SELECT count(*) FROM customers c WHERE c.store_id = $1 AND c.balance <> $3 *
          (SELECT count(*) FROM orders o WHERE o.customer_id = c.id))
         AS "customers whose balance is not points x orders",
       (SELECT count(*) FROM idempotency_keys WHERE scope = 'store ' || $1)
         AS "Idempotency-Keys kept"`,
    [store.id, ORDERS, POINTS_PER_ORDER],
  );
  const credits = await creditChecks(pool, store.id);
  const found: Record<string, number | string> = { ...rows[0], ...credits };
  const keyedOrders = Array.from({ length: ORDERS }, (_, index) => (index + 1) % 10).filter(
    (kind) => kind >= 6 && kind !== 8,
  ).length;
  const expected: Record<string, number> = {
    orders: ORDERS,
    "orders 1..N": ORDERS,
    "ledger credits": ORDERS,
    "other ledger entries": 0,
    "orders with other points than expected": 0,
    "ledger points": ORDERS * POINTS_PER_ORDER,
    "customers' balances": ORDERS * POINTS_PER_ORDER,
    "customers whose balance is not points x orders": 0,
    "Idempotency-Keys kept": keyedOrders,
    ...Object.fromEntries(Object.keys(credits).map((name) => [name, 0])),
  };
  const checks = Object.entries(expected).map(([name, value]) => ({
    name,
    value: Number(found[name]),
    expected: value,
  }));
  for (const failure of failures.slice(0, 10)) process.stdout.write(`  ${failure}\n`);
  const passed = failures.length === 0 && checks.every((check) => check.value === check.expected);
  process.stdout.write(
    `exactly once: ${ORDERS} orders in ${requests} requests (${[...statuses].map(([status, n]) => `${n}× ${status}`).join(", ")}), registered in ${((registered - began) / 1000).toFixed(1)} s, drained ${((drained - registered) / 1000).toFixed(1)} s later; through HAProxy: ${JSON.stringify(balanced)}\n`,
  );
  for (const check of checks) {
    const mark = check.value === check.expected ? "ok  " : "FAIL";
    process.stdout.write(
      `  ${mark} ${check.name}: ${check.value}${check.value === check.expected ? "" : ` (expected ${check.expected})`}\n`,
    );
  }
  return {
    orders: ORDERS,
    requests,
    duplicatesKeyed,
    duplicatesUnkeyed,
    replayed,
    retried,
    statuses: Object.fromEntries(statuses),
    registrationSeconds: (registered - began) / 1000,
    drainSeconds: (drained - registered) / 1000,
    balanced,
    checks,
    passed,
  };
}

/* ---------- 2. Propagation ---------- */

export interface PropagationFigures {
  change: string;
  repeats: number;
  p50: number;
  p95: number;
  max: number;
  /** Answers of the other process that still showed the old state. */
  staleAnswers: number;
  overTarget: boolean;
}

/**
 * Polls `url` every POLL_MS until `reflects` says an answer shows the change: the time from
 * `since` (the change's answer) to that answer, and how many answers before it were stale.
 */
async function firstReflecting(
  agent: http.Agent,
  url: string,
  options: Parameters<typeof send>[2],
  reflects: (answer: Answer) => boolean,
  since: number,
): Promise<{ ms: number; stale: number }> {
  let stale = 0;
  for (;;) {
    const sent = performance.now();
    const answer = await send(agent, url, options);
    if (reflects(answer)) return { ms: performance.now() - since, stale };
    stale += 1;
    if (performance.now() - since > POLL_TIMEOUT_MS) {
      throw new Error(
        `${url}: the change was not seen in ${POLL_TIMEOUT_MS} ms (last answer: ${answer.status} ${answer.body})`,
      );
    }
    const wait = sent + POLL_MS - performance.now();
    if (wait > 0) await sleep(wait);
  }
}

function propagationFigures(change: string, runs: { ms: number; stale: number }[]) {
  const times = runs.map((run) => run.ms).sort((a, b) => a - b);
  const figures: PropagationFigures = {
    change,
    repeats: runs.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: times.at(-1) ?? NaN,
    staleAnswers: runs.reduce((sum, run) => sum + run.stale, 0),
    overTarget: (times.at(-1) ?? Infinity) > PROPAGATION_TARGET_MS,
  };
  process.stdout.write(
    `propagation, ${change.padEnd(58)} p50 ${figures.p50.toFixed(1)} ms  p95 ${figures.p95.toFixed(1)} ms  max ${figures.max.toFixed(1)} ms  stale answers ${figures.staleAnswers}\n`,
  );
  return figures;
}

async function propagation(
  pool: pg.Pool,
  store: Seeded,
  targets: Targets,
  admin: { email: string; password: string },
): Promise<PropagationFigures[]> {
  const agents = {
    a: new http.Agent({ keepAlive: true, maxSockets: 4 }),
    b: new http.Agent({ keepAlive: true, maxSockets: 4 }),
  };
  const json = { "content-type": "application/json" };
  const token = jsonOf<{ accessToken: string }>(
    await send(agents.a, `${targets.a}/admin/token`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(admin),
    }),
    200,
    "sign-in",
  ).accessToken;
  const bearer = { ...json, authorization: `Bearer ${token}` };
  const storePath = `/admin/stores/${store.id}`;
  const calculate = `/point/product-points/calculate?domain=${encodeURIComponent(store.domain)}&price=${CALCULATE_PRICE}&product=100`;
  const pointsAt = (rate: number) => Math.floor(CALCULATE_PRICE * rate + 1e-9);
  const showsRate = (rate: number) => (answer: Answer) =>
    answer.status === 200 &&
    (JSON.parse(answer.body) as { points: number }).points === pointsAt(rate);
  /** Changes go through A and are read on B, then the other way round. */
  const sides = (repeat: number) =>
    repeat % 2 === 0
      ? ({ writer: "a", reader: "b" } as const)
      : ({ writer: "b", reader: "a" } as const);
  let rate = 2;
  const calculateOn = (side: "a" | "b") => `${targets[side]}${calculate}`;
  /**
   * Both processes answer with the current rate before the next change, and hold it in memory
   * (what is measured is its forgetting): one that never does lost a change.
   */
  const settle = async () => {
    for (const side of ["a", "b"] as const) {
      await firstReflecting(
        agents[side],
        calculateOn(side),
        {},
        showsRate(rate),
        performance.now(),
      );
    }
  };

  const ruleRuns: { ms: number; stale: number }[] = [];
  for (let repeat = 0; repeat < PROPAGATION_REPEATS; repeat++) {
    const { writer, reader } = sides(repeat);
    await settle();
    rate = rate === 2 ? 3 : 2;
    jsonOf(
      await send(agents[writer], `${targets[writer]}${storePath}/rules/${store.productRuleId}`, {
        method: "PATCH",
        headers: bearer,
        body: JSON.stringify({ rate }),
      }),
      200,
      "PATCH rule",
    );
    const since = performance.now();
    ruleRuns.push(
      await firstReflecting(agents[reader], calculateOn(reader), {}, showsRate(rate), since),
    );
  }

  // No process made this change: both are timed, each polled on its own.
  const sqlRuns: { ms: number; stale: number }[] = [];
  for (let repeat = 0; repeat < PROPAGATION_REPEATS; repeat++) {
    await settle();
    rate = rate === 2 ? 3 : 2;
    await pool.query(`UPDATE attribution_rules SET rate = $1 WHERE id = $2`, [
      rate,
      store.productRuleId,
    ]);
    const since = performance.now();
    sqlRuns.push(
      ...(await Promise.all(
        (["a", "b"] as const).map((side) =>
          firstReflecting(agents[side], calculateOn(side), {}, showsRate(rate), since),
        ),
      )),
    );
  }
  await settle();

  // A key is checked before the body is read: `{}` is refused 400 with a valid key, 401
  // with a revoked one, and registers nothing.
  const keyRuns: { ms: number; stale: number }[] = [];
  for (let repeat = 0; repeat < PROPAGATION_REPEATS; repeat++) {
    const { writer, reader } = sides(repeat);
    const created = jsonOf<{ id: string; key: string }>(
      await send(agents[writer], `${targets[writer]}${storePath}/api-keys`, {
        method: "POST",
        headers: bearer,
        body: JSON.stringify({ label: `propagation ${repeat}` }),
      }),
      201,
      "create API key",
    );
    const probe = {
      method: "POST",
      headers: {
        ...json,
        revision: REVISION,
        authorization: `Basic ${Buffer.from(`${created.key}:`).toString("base64")}`,
      },
      body: "{}",
    };
    const url = `${targets[reader]}/api/order/register`;
    const warm = await send(agents[reader], url, probe);
    if (warm.status !== 400)
      throw new Error(`the new key on the other process: ${warm.status} ${warm.body}`);
    jsonOf(
      await send(agents[writer], `${targets[writer]}${storePath}/api-keys/${created.id}`, {
        method: "DELETE",
        headers: bearer,
      }),
      200,
      "revoke API key",
    );
    const since = performance.now();
    keyRuns.push(
      await firstReflecting(agents[reader], url, probe, (answer) => answer.status === 401, since),
    );
  }
  for (const agent of Object.values(agents)) agent.destroy();

  return [
    propagationFigures("rule changed through the back-office (PATCH rule)", ruleRuns),
    propagationFigures("rule changed in plain SQL (UPDATE), timed on both processes", sqlRuns),
    propagationFigures("API key revoked through the back-office (DELETE)", keyRuns),
  ];
}

/* ---------- 3. Throughput ---------- */

type Setup = "one process, direct" | "one process behind HAProxy" | "two processes behind HAProxy";
const SETUPS: Setup[] = [
  "one process, direct",
  "one process behind HAProxy",
  "two processes behind HAProxy",
];

interface Run {
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  /** Times HAProxy marked an API process DOWN (failed health checks) during the run. */
  downs: number;
  cpu: CpuShares;
}

export interface ThroughputFigures {
  scenario: string;
  /** The round with the median ratio of two processes behind HAProxy to one, direct. */
  runs: Record<Setup, Run>;
  /** Two processes behind HAProxy over one process direct, median of the rounds. */
  ratio: number;
  /** One process behind HAProxy over one direct: what the balancer costs. */
  balancerRatio: number;
  roundRatios: number[];
}

async function throughput(
  pool: pg.Pool,
  store: Seeded,
  targets: Targets,
  balancer: Balancer,
  roles: CpuRoles,
): Promise<ThroughputFigures[]> {
  /** Sends to a alone (b in maintenance) or to both, once those in use passed their checks. */
  const setBalanced = async (servers: 1 | 2) => {
    await balancer.command(`${servers === 1 ? "disable" : "enable"} server api/b`);
    for (;;) {
      const states = new Map((await balancer.servers()).map((state) => [state.name, state.status]));
      const b = states.get("b") ?? "";
      if (states.get("a") === "UP" && (servers === 1 ? b.startsWith("MAINT") : b === "UP")) return;
      await sleep(50);
    }
  };
  const downs = async () =>
    (await balancer.servers()).reduce((sum, server) => sum + server.downs, 0);
  const base = (setup: Setup) => (setup === "one process, direct" ? targets.a : targets.balancer);
  let orderId = 1_000_000;
  const scenarios: {
    name: string;
    options: (setup: Setup) => autocannon.Options;
    writes: boolean;
  }[] = [
    {
      name: "GET calculate",
      writes: false,
      options: (setup) => ({
        url: `${base(setup)}/point/product-points/calculate?domain=${encodeURIComponent(store.domain)}&price=19.99&product=7&categories=10,11`,
      }),
    },
    {
      name: "POST register",
      writes: true,
      options: (setup) => ({
        url: `${base(setup)}/api/order/register`,
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: store.authorization,
          revision: REVISION,
        },
        requests: [
          {
            setupRequest: (request) => {
              const id = orderId++;
              return { ...request, body: orderBody(id, 10_000 + (id % 5000)) };
            },
          },
        ],
      }),
    },
  ];

  const figures: ThroughputFigures[] = [];
  for (const scenario of scenarios) {
    // JIT, pools and the balancer's connections warm on both processes first.
    await setBalanced(2);
    await autocannon({
      ...scenario.options("two processes behind HAProxy"),
      connections: 10,
      duration: 2,
    });
    if (scenario.writes) await drain(pool);
    const rounds: Record<Setup, Run>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs = {} as Record<Setup, Run>;
      for (const setup of SETUPS) {
        await setBalanced(setup === "two processes behind HAProxy" ? 2 : 1);
        const meter = await cpuMeter(pool, roles);
        const downsBefore = await downs();
        const result = await autocannon({
          connections: CONNECTIONS,
          duration: DURATION,
          ...scenario.options(setup),
        });
        const cpu = meter();
        runs[setup] = {
          requests: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.errors + result.timeouts + result.non2xx,
          downs: (await downs()) - downsBefore,
          cpu,
        };
        process.stdout.write(
          `${scenario.name.padEnd(14)} ${setup.padEnd(30)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  errors ${runs[setup].errors}  marked DOWN ${runs[setup].downs}  CPUs: A ${cpu.apiA.toFixed(2)} B ${cpu.apiB.toFixed(2)} haproxy ${cpu.haproxy.toFixed(2)} autocannon ${cpu.loadGenerator.toFixed(2)} postgres ${cpu.postgres.toFixed(2)} workers ${cpu.workers.toFixed(2)} others ${cpu.others.toFixed(2)} machine ${cpu.machine.toFixed(2)}\n`,
        );
        // Each run starts with an empty queue: the workers' backlog is not the next run's load.
        if (scenario.writes) await drain(pool, 600_000);
      }
      rounds.push(runs);
    }
    const ratioOf = (runs: Record<Setup, Run>) =>
      runs["two processes behind HAProxy"].requests / runs["one process, direct"].requests;
    const roundRatios = rounds.map(ratioOf);
    const median = [...rounds].sort((x, y) => ratioOf(x) - ratioOf(y))[
      Math.floor(rounds.length / 2)
    ] as Record<Setup, Run>;
    const balancerRatios = rounds
      .map(
        (runs) =>
          runs["one process behind HAProxy"].requests / runs["one process, direct"].requests,
      )
      .sort((x, y) => x - y);
    figures.push({
      scenario: scenario.name,
      runs: median,
      ratio: ratioOf(median),
      balancerRatio: balancerRatios[Math.floor(balancerRatios.length / 2)] ?? NaN,
      roundRatios,
    });
    process.stdout.write(
      `${scenario.name}: two processes behind HAProxy / one direct = ${ratioOf(median).toFixed(2)}x (rounds: ${roundRatios.map((ratio) => ratio.toFixed(2)).join(", ")})\n`,
    );
  }
  await setBalanced(2);
  return figures;
}

/* ---------- 4. Rate limits across processes ---------- */

const RATE_LIMIT = 40;
const REDIS_URL = process.env["BENCH_REDIS_URL"] ?? "redis://127.0.0.1:6379";
/** Two clients on loopback: HAProxy says which one asked (X-Forwarded-For). */
const CLIENTS = ["127.0.0.2", "127.0.0.3"];

export interface RateLimitVariant {
  name: string;
  /** Answers 200 each client got of the 3 × limit it sent, one at a time. */
  allowed: Record<string, number>;
  /** What each client may get: exactly the limit with Redis, up to twice without. */
  expected: { min: number; max: number };
  passed: boolean;
}

export interface RateLimitFigures {
  limit: number;
  sentPerClient: number;
  variants: RateLimitVariant[];
  /** Why the scenario did not run (no Redis). */
  skipped?: string;
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 1_000 });
    const settle = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => settle(true));
    socket.once("error", () => settle(false));
    socket.once("timeout", () => settle(false));
  });
}

/**
 * A low storefront limit on two API processes behind HAProxy, counted in each process's memory
 * and then in Redis (RATE_LIMIT_REDIS_URL): how many of its calculate requests each of two
 * clients gets through HAProxy. The window (5 minutes) outlasts the run.
 */
async function rateLimits(
  fleet: Fleet,
  directory: string,
  env: NodeJS.ProcessEnv,
  store: Seeded,
): Promise<RateLimitFigures> {
  const sentPerClient = 3 * RATE_LIMIT;
  if (!(await reachable(REDIS_URL))) {
    return { limit: RATE_LIMIT, sentPerClient, variants: [], skipped: `no Redis at ${REDIS_URL}` };
  }
  const limited = {
    ...env,
    RATE_LIMIT_STOREFRONT: String(RATE_LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: "300",
  };
  const variants = [
    {
      name: "in each process's memory",
      env: limited,
      expected: { min: RATE_LIMIT, max: 2 * RATE_LIMIT },
    },
    {
      name: "in Redis (RATE_LIMIT_REDIS_URL)",
      env: {
        ...limited,
        RATE_LIMIT_REDIS_URL: REDIS_URL,
        // Counts of this run only, whatever earlier runs left in that Redis.
        RATE_LIMIT_REDIS_PREFIX: `bench-cluster-${randomBytes(4).toString("hex")}:`,
      },
      expected: { min: RATE_LIMIT, max: RATE_LIMIT },
    },
  ];
  const calculate = `/point/product-points/calculate?domain=${encodeURIComponent(store.domain)}&price=${CALCULATE_PRICE}&product=100`;
  const results: RateLimitVariant[] = [];
  for (const [index, variant] of variants.entries()) {
    const servers = await Promise.all([
      fleet.start(`limited API a${index}`, ["src/main.ts"], variant.env, SERVER_READY),
      fleet.start(`limited API b${index}`, ["src/main.ts"], variant.env, SERVER_READY),
    ]);
    const place = path.join(directory, `limits-${index}`);
    await mkdir(place);
    const balancer = await startHaproxy(fleet, place, [
      { name: "a", port: servers[0].port },
      { name: "b", port: servers[1].port },
    ]);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const allowed: Record<string, number> = {};
    try {
      for (const client of CLIENTS) {
        allowed[client] = 0;
        for (let sent = 0; sent < sentPerClient; sent++) {
          const answer = await send(agent, `http://127.0.0.1:${balancer.port}${calculate}`, {
            localAddress: client,
          });
          if (answer.status === 200) allowed[client] += 1;
          else if (answer.status !== 429) {
            throw new Error(`rate limits: ${answer.status} ${answer.body}`);
          }
        }
      }
    } finally {
      agent.destroy();
      await fleet.stop([balancer.pid, ...servers.map((server) => server.child.pid as number)]);
    }
    const passed = Object.values(allowed).every(
      (count) => count >= variant.expected.min && count <= variant.expected.max,
    );
    process.stdout.write(
      `rate limit ${RATE_LIMIT}, counted ${variant.name}: ${CLIENTS.map((client) => `${client} got ${allowed[client]} of ${sentPerClient}`).join(", ")}${passed ? "" : ` (expected ${variant.expected.min}..${variant.expected.max}): FAIL`}\n`,
    );
    results.push({ name: variant.name, allowed, expected: variant.expected, passed });
  }
  return { limit: RATE_LIMIT, sentPerClient, variants: results };
}

/* ---------- The run ---------- */

export interface ClusterFigures {
  haproxy: string;
  exactlyOnce: ExactlyOnceFigures;
  propagation: PropagationFigures[];
  throughput: ThroughputFigures[];
  rateLimits: RateLimitFigures;
  /** What the cluster's HAProxy said of its servers going DOWN or UP after they were ready. */
  transitions: string[];
  load: { average: number; cpus: number };
  /** Whether every check passed and every change reached the other process in time. */
  passed: boolean;
}

/**
 * Starts the cluster on the database at `databaseUrl` (migrated; other stores may be there),
 * runs the three scenarios on stores of their own, and stops every process it started.
 */
export async function benchCluster(
  databaseUrl: string,
  masterKey: string,
): Promise<ClusterFigures> {
  const quiet = pino({ level: "error" });
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOYALTY_MASTER_KEY: masterKey });
  // Its store change listener is never started: the set-up below reads through to the database.
  const runtime = await openRuntime(config, quiet, { migrate: false, poolSize: 4 });
  const { pool, services } = runtime.context;
  const fleet = new Fleet();
  const directory = await mkdtemp(path.join(os.tmpdir(), "cluster-"));
  const teardown = async () => {
    await fleet.stopAll();
    await rm(directory, { recursive: true, force: true });
    await runtime.close();
  };
  return guarded(teardown, async () => {
    const ordersStore = await seedStore(services, pool, "cluster-orders");
    const propagationStore = await seedStore(services, pool, "cluster-propagation");
    const throughputStore = await seedStore(services, pool, "cluster-throughput");
    const admin = {
      email: `cluster-${randomBytes(4).toString("hex")}@bench.example`,
      password: randomBytes(18).toString("base64url"),
    };
    await services.adminAuth.createAdmin(admin);

    const apiEnv = {
      ...serverEnv(databaseUrl, masterKey, "off"),
      TRUST_PROXY: "1",
      RATE_LIMIT_FAILED_AUTH: "1000000000",
      RATE_LIMIT_ADMIN_LOGIN: "1000000000",
    };
    const workerEnv = serverEnv(databaseUrl, masterKey, "off");
    const [a, b, workerA, workerB] = await Promise.all([
      fleet.start("API a", ["src/main.ts"], apiEnv, SERVER_READY),
      fleet.start("API b", ["src/main.ts"], apiEnv, SERVER_READY),
      // Below the API, as docs/operators.md advises on a machine they share.
      fleet.start("worker 1", ["src/cli.ts", "worker"], workerEnv, /workers running/, {
        niceness: 10,
      }),
      fleet.start("worker 2", ["src/cli.ts", "worker"], workerEnv, /workers running/, {
        niceness: 10,
      }),
    ]);
    const balancer = await startHaproxy(fleet, directory, [
      { name: "a", port: a.port },
      { name: "b", port: b.port },
    ]);
    const initialTransitions = balancer.transitions.length;
    const haproxy = /Version: (\S+)/.exec(await balancer.command("show info"))?.[1] ?? "?";
    const targets: Targets = {
      balancer: `http://127.0.0.1:${balancer.port}`,
      a: `http://127.0.0.1:${a.port}`,
      b: `http://127.0.0.1:${b.port}`,
    };
    process.stdout.write(
      `cluster: API a :${a.port}, API b :${b.port}, 2 workers (nice 10), HAProxy ${haproxy} :${balancer.port}\n`,
    );

    const exactly = await exactlyOnce(pool, ordersStore, targets, balancer);
    const propagated = await propagation(pool, propagationStore, targets, admin);
    const rates = await throughput(pool, throughputStore, targets, balancer, {
      apiA: a.child.pid as number,
      apiB: b.child.pid as number,
      haproxy: balancer.pid,
      workers: [workerA.child.pid as number, workerB.child.pid as number],
    });
    const limits = await rateLimits(fleet, directory, apiEnv, propagationStore);
    const load = { average: os.loadavg()[0] ?? NaN, cpus: os.cpus().length };
    return {
      haproxy,
      exactlyOnce: exactly,
      propagation: propagated,
      throughput: rates,
      rateLimits: limits,
      transitions: balancer.transitions.slice(initialTransitions),
      load,
      passed:
        exactly.passed &&
        propagated.every((figures) => !figures.overTarget) &&
        limits.variants.every((variant) => variant.passed),
    };
  });
}

/* ---------- The report ---------- */

const COMMAND = "DATABASE_URL=postgres://… pnpm --filter @loyalty/server bench:cluster";

const cpuText = (cpu: CpuShares) =>
  `A ${cpu.apiA.toFixed(2)}, B ${cpu.apiB.toFixed(2)}, HAProxy ${cpu.haproxy.toFixed(2)}, autocannon ${cpu.loadGenerator.toFixed(2)}, PostgreSQL ${cpu.postgres.toFixed(2)}, workers ${cpu.workers.toFixed(2)}, other processes ${cpu.others.toFixed(2)}; machine ${cpu.machine.toFixed(2)}`;

export const CLUSTER_HEADING = "## Beyond one process";

/** The section as BENCHMARKS.md has it now ("" when it has none): `pnpm bench` keeps it. */
export function keptClusterSection(): Promise<string> {
  return keptSection(CLUSTER_HEADING);
}

/** The BENCHMARKS.md section. */
export function clusterSection(figures: ClusterFigures): string {
  const once = figures.exactlyOnce;
  const checks = once.checks
    .map(
      (check) =>
        `| ${check.name} | ${check.value} | ${check.expected} | ${check.value === check.expected ? "ok" : "**FAIL**"} |`,
    )
    .join("\n");
  const propagation = figures.propagation
    .map(
      (row) =>
        `| ${row.change} | ${row.repeats} | ${row.p50.toFixed(1)} | ${row.p95.toFixed(1)} | **${row.max.toFixed(1)}** | ${row.staleAnswers} |`,
    )
    .join("\n");
  const throughput = figures.throughput
    .map((row) => {
      const cell = (setup: Setup) => {
        const run = row.runs[setup];
        const trouble = [
          run.errors > 0 ? `${run.errors} errors` : "",
          run.downs > 0 ? `marked DOWN ${run.downs}×` : "",
        ].filter(Boolean);
        return `${run.requests.toFixed(0)} (p99 ${run.p99} ms${trouble.map((text) => `, **${text}**`).join("")})`;
      };
      return `| ${row.scenario} | ${SETUPS.map(cell).join(" | ")} | **${row.ratio.toFixed(2)}x** (rounds: ${row.roundRatios.map((ratio) => ratio.toFixed(2)).join(", ")}) | ${row.balancerRatio.toFixed(2)}x |`;
    })
    .join("\n");
  const cpu = figures.throughput
    .flatMap((row) =>
      SETUPS.map((setup) => `| ${row.scenario}, ${setup} | ${cpuText(row.runs[setup].cpu)} |`),
    )
    .join("\n");
  return `${CLUSTER_HEADING}

\`${COMMAND}\` (\`bench/cluster.ts\`): two API processes (\`WORKERS=off\`, \`TRUST_PROXY=1\`) behind
HAProxy ${figures.haproxy} (roundrobin, health check on \`GET /readyz\`, keep-alive, \`X-Forwarded-For\`) and two
\`loyalty worker\` processes at niceness 10, on one database; the load generator on the same
${figures.load.cpus}-CPU machine (load average ${figures.load.average.toFixed(1)} at the end).

### Exactly once

${once.orders} orders registered through HAProxy by ${ORDER_CLIENTS} clients at once, in ${once.requests} requests:
${once.duplicatesKeyed} repeats with the same \`Idempotency-Key\` (sent at the same moment through HAProxy and
to each API process directly, or again after the answer), ${once.duplicatesUnkeyed} repeats without a key on both
processes at once. Answers: ${Object.entries(once.statuses)
    .map(([status, count]) => `${count} × ${status}`)
    .join(", ")}; ${once.retried} requests retried (5xx, 429, as the SDK does). Registered in
${once.registrationSeconds.toFixed(1)} s; the queue was empty ${once.drainSeconds.toFixed(1)} s after the last answer. HAProxy sent
${Object.entries(once.balanced)
  .map(([server, requests]) => `${requests} to ${server}`)
  .join(" and ")}.

| check (SQL, once the queue drained) | found | expected | |
|---|---|---|---|
${checks}

### A change reaches the other process

A change made through one API process (alternately a and b), then the other one polled
directly (not through HAProxy) every ${POLL_MS} ms: the time from the change's answer (from the
\`UPDATE\`'s commit for plain SQL) to the first answer showing it. Target: within
${PROPAGATION_TARGET_MS} ms. A back-office write answers once every API process acknowledged it (a
barrier on the store change notifications), so the first answer after it already shows it and
the time is that request's; a plain SQL change has no barrier: its stale answers are the
notification's way to the other process.

| change | times measured | p50 ms | p95 ms | max ms | stale answers |
|---|---|---|---|---|---|
${propagation}

### Throughput: one process or two

autocannon, ${CONNECTIONS} connections, ${DURATION} s per run, the three set-ups in turn for ${ROUNDS} rounds (the round
with the median ratio shown); requests per second, each run starting with an empty job queue.

| scenario | one process, direct | one process behind HAProxy | two processes behind HAProxy | two / one | HAProxy's cost (one behind it / direct) |
|---|---|---|---|---|---|
${throughput}

CPUs used during each run (1.00 = one CPU all along):

| run | CPUs |
|---|---|
${cpu}

${limitsText(figures)}
${
  figures.transitions.length > 0
    ? `\nHAProxy's health checks (GET /readyz every second, 2 s timeout, DOWN after 3 failures) took an API process out ${figures.transitions.filter((line) => / is DOWN/.test(line)).length} times during the run:\n\n${figures.transitions.map((line) => `    ${line.trim()}`).join("\n")}\n`
    : ""
}
### Rate limits across processes

${rateLimitText(figures.rateLimits)}
`;
}

/** What held the throughput back, from the CPUs each part used with two processes. */
function limitsText(figures: ClusterFigures): string {
  const { cpus } = figures.load;
  const two = figures.throughput.map((row) => ({
    scenario: row.scenario,
    cpu: row.runs["two processes behind HAProxy"].cpu,
  }));
  const saturated = two.every(({ cpu }) => cpu.machine >= 0.9 * cpus);
  const lines = two.map(
    ({ scenario, cpu }) =>
      `${scenario}, two processes: ${cpu.machine.toFixed(2)} of ${cpus} CPUs busy, the API processes ${(cpu.apiA + cpu.apiB).toFixed(2)}, HAProxy ${cpu.haproxy.toFixed(2)}, autocannon ${cpu.loadGenerator.toFixed(2)}, PostgreSQL ${cpu.postgres.toFixed(2)}, the workers ${cpu.workers.toFixed(2)}, other processes ${cpu.others.toFixed(2)}.`,
  );
  const others = Math.max(
    ...figures.throughput.flatMap((row) => SETUPS.map((setup) => row.runs[setup].cpu.others)),
  );
  return `${lines.join("\n")}

${
  others >= 0.25
    ? `Other processes of the machine (not this benchmark's) used up to ${others.toFixed(2)} CPUs during the runs shown: the CPUs left to the cluster moved from run to run, and so do the ratios (see each round's). `
    : ""
}${
    saturated
      ? `The machine's ${cpus} CPUs were busy throughout: the API processes, HAProxy, PostgreSQL, the workers and the load generator all share them, so a second API process brings no CPU of its own, it only splits the same CPUs and adds HAProxy's hop. What this ratio measures is that cost, not what a second machine would bring; that needs the API processes, PostgreSQL and the load generator on machines of their own.`
      : `The machine's CPUs were not all busy: the figures above say which part held the throughput back.`
  }`;
}

function rateLimitText(figures: RateLimitFigures): string {
  if (figures.skipped) return `Not measured: ${figures.skipped}.`;
  const rows = figures.variants
    .map(
      (variant) =>
        `| ${variant.name} | ${CLIENTS.map((client) => variant.allowed[client] ?? 0).join(" / ")} | ${variant.expected.min === variant.expected.max ? variant.expected.min : `${variant.expected.min} to ${variant.expected.max}`} | ${variant.passed ? "ok" : "**FAIL**"} |`,
    )
    .join("\n");
  return `\`RATE_LIMIT_STOREFRONT=${figures.limit}\` on both API processes (\`TRUST_PROXY=1\`): two clients (${CLIENTS.join(" and ")}) each send ${figures.sentPerClient} calculate requests through HAProxy, one at a time.

| limits counted | answered 200, per client | expected | |
|---|---|---|---|
${rows}`;
}

/** The scenario on a database of its own: its section of BENCHMARKS.md and what failed. */
export async function runCluster(): Promise<{ section: string; failures: string[] }> {
  const database = await benchDatabase();
  const figures = await guarded(
    () => database.drop(),
    () => benchCluster(database.url, randomBytes(32).toString("hex")),
  );
  const failures = [
    ...(figures.exactlyOnce.passed
      ? []
      : ["orders not credited exactly once (see the checks above)"]),
    ...figures.rateLimits.variants
      .filter((variant) => !variant.passed)
      .map((variant) => `rate limits counted ${variant.name}`),
    ...figures.propagation
      .filter((row) => row.overTarget)
      .map(
        (row) =>
          `${row.change}: up to ${row.max.toFixed(1)} ms, over the ${PROPAGATION_TARGET_MS} ms target`,
      ),
  ];
  return { section: clusterSection(figures), failures };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { section, failures } = await runCluster();
  process.stdout.write(`\n${section}\n`);
  await writeSection(CLUSTER_HEADING, section);
  process.stdout.write(`\nWrote its section of BENCHMARKS.md\n`);
  for (const failure of failures) process.stdout.write(`FAILED: ${failure}\n`);
  if (failures.length > 0) process.exitCode = 1;
}
