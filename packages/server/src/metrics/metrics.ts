import { performance } from "node:perf_hooks";
import type { EventEmitter } from "node:events";
import type { Request, Response } from "express";
import type pg from "pg";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Job, WorkerEvents } from "graphile-worker";

/**
 * The process's Prometheus metrics (prom-client), declared once here. The services count what
 * happens to them (claims, webhook deliveries, platform calls, jobs) whether or not anyone
 * scrapes: a counter's increment costs tens of nanoseconds. What costs per request, the HTTP
 * histogram, and what costs per scrape (the queue's depth, read in SQL; the runtime's own
 * figures) run only in a process that serves its metrics (METRICS_PORT).
 */
export const registry = new Registry();

/** Seconds, from a storefront read answered from memory to a slow platform call. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
];

const httpRequests = new Histogram({
  name: "loyalty_http_request_duration_seconds",
  help: "Requests to the API's operations, by operation (method and path template), status and revision: from the first handler to the last byte of the answer.",
  labelNames: ["method", "route", "status", "revision"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

const jobs = new Counter({
  name: "loyalty_jobs_total",
  help: "Jobs run by this process's workers, by task and outcome (success; error: retried later; failed: given up, no attempt left).",
  labelNames: ["task", "outcome"] as const,
  registers: [registry],
});

const jobDuration = new Histogram({
  name: "loyalty_job_duration_seconds",
  help: "How long a job ran, by task, from the worker taking it to its outcome being recorded.",
  labelNames: ["task"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

const jobDelay = new Histogram({
  name: "loyalty_job_delay_seconds",
  help: "How long a job waited once due (its run_at) before a worker took it, by task: the queue's processing latency.",
  labelNames: ["task"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

const webhookDeliveries = new Counter({
  name: "loyalty_webhook_deliveries_total",
  help: "Webhook delivery attempts, by outcome: delivered; failed (a retry is scheduled); given_up (no attempt left, or the endpoint was deactivated); skipped.",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

const claims = new Counter({
  name: "loyalty_claims_total",
  help: "Reward claims, by step: reserved (points held), confirmed (the platform made the code), released (points given back), each by the request (source=request) or by the reconciliation of interrupted claims (source=reconciler).",
  labelNames: ["step", "source"] as const,
  registers: [registry],
});

const platformCalls = new Histogram({
  name: "loyalty_platform_request_duration_seconds",
  help: "Calls to a store's platform (create or look up a code, find a customer), by platform, call and outcome (ok, or the failure's reason).",
  labelNames: ["platform", "call", "outcome"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** A labelled child per combination, found without building its key string each time. */
type Observe = (value: number) => void;

/**
 * Times the request from now to its last byte, labelled by its operation, status and
 * revision. One listener per request; the labelled child of each combination is kept, so an
 * observation costs a map look-up and the histogram's own work.
 */
export function requestTimer(method: string, route: string): (req: Request, res: Response) => void {
  const children = new Map<string, Observe>();
  const child = (status: number, revision: string): Observe => {
    const key = `${status} ${revision}`;
    let observe = children.get(key);
    if (!observe) {
      const labelled = httpRequests.labels(method, route, String(status), revision);
      observe = (value) => labelled.observe(value);
      children.set(key, observe);
    }
    return observe;
  };
  return (req, res) => {
    const started = performance.now();
    res.once("finish", () =>
      child(res.statusCode, req.revision ?? "none")((performance.now() - started) / 1000),
    );
  };
}

export type ClaimStep = "reserved" | "confirmed" | "released";

export function countClaim(step: ClaimStep, source: "request" | "reconciler", count = 1): void {
  claims.labels(step, source).inc(count);
}

export type WebhookOutcome = "delivered" | "failed" | "given_up" | "skipped";

export function countWebhookDelivery(outcome: WebhookOutcome): void {
  webhookDeliveries.labels(outcome).inc();
}

/** Records a platform call's duration and outcome: `ok`, or the reason it failed. */
export async function timedPlatformCall<T>(
  platform: string,
  call: string,
  outcomeOf: (error: unknown) => string,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let outcome = "ok";
  try {
    return await run();
  } catch (error) {
    outcome = outcomeOf(error);
    throw error;
  } finally {
    platformCalls.labels(platform, call, outcome).observe((performance.now() - started) / 1000);
  }
}

/** Counts and times the jobs of a worker pool, from its events. */
export function observeJobs(events: WorkerEvents): void {
  const started = new Map<string, number>();
  const emitter = events as EventEmitter;
  emitter.on("job:start", ({ job }: { job: Job }) => {
    started.set(job.id, performance.now());
    const due = job.run_at instanceof Date ? job.run_at.getTime() : Date.parse(String(job.run_at));
    if (Number.isFinite(due)) {
      jobDelay.labels(job.task_identifier).observe(Math.max(0, Date.now() - due) / 1000);
    }
  });
  emitter.on("job:complete", ({ job, error }: { job: Job; error: unknown }) => {
    const start = started.get(job.id);
    started.delete(job.id);
    if (start !== undefined) {
      jobDuration.labels(job.task_identifier).observe((performance.now() - start) / 1000);
    }
    if (!error) jobs.labels(job.task_identifier, "success").inc();
  });
  emitter.on("job:error", ({ job }: { job: Job }) => {
    // A job with attempts left is retried; the last attempt's failure is counted as failed.
    if (job.attempts < job.max_attempts) jobs.labels(job.task_identifier, "error").inc();
  });
  emitter.on("job:failed", ({ job }: { job: Job }) => {
    jobs.labels(job.task_identifier, "failed").inc();
  });
}

/** The connection pools whose use is reported, by name. */
const pools = new Map<string, pg.Pool>();

/** Reports the pool's connections (in use, idle, waited for) while the process runs. */
export function observePool(name: string, pool: pg.Pool): void {
  pools.set(name, pool);
}

export function forgetPool(name: string): void {
  pools.delete(name);
}

new Gauge({
  name: "loyalty_db_pool_connections",
  help: "Connections of each of the process's PostgreSQL pools, by state: in use, idle, and requests waiting for one (waiting > 0: the pool is too small for the load).",
  labelNames: ["pool", "state"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [name, pool] of pools) {
      this.labels(name, "in_use").set(pool.totalCount - pool.idleCount);
      this.labels(name, "idle").set(pool.idleCount);
      this.labels(name, "waiting").set(pool.waitingCount);
    }
  },
});

new Gauge({
  name: "loyalty_db_pool_max_connections",
  help: "The most connections each of the process's PostgreSQL pools opens.",
  labelNames: ["pool"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [name, pool] of pools) this.labels(name).set(pool.options.max ?? 10);
  },
});

interface QueueRow {
  task: string;
  ready: number;
  scheduled: number;
  running: number;
  failed: number;
  oldest_ready_seconds: number | null;
}

/** The job queue's pool, in a process that serves its metrics. */
let queueSource: pg.Pool | undefined;
/** The queue as the last scrape read it; empty when that read failed. */
let queue: QueueRow[] = [];

/**
 * Reads the job queue once for the scrape about to be answered, whatever the number of gauges
 * reporting it. Every process reads the same queue: graph it with max(), not sum().
 */
export async function readQueue(): Promise<void> {
  if (!queueSource) return;
  try {
    const { rows } = await queueSource.query<QueueRow>(
      `SELECT task_identifier AS task,
              count(*) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now())::int AS ready,
              count(*) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at > now())::int AS scheduled,
              count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS running,
              count(*) FILTER (WHERE locked_at IS NULL AND attempts >= max_attempts)::int AS failed,
              extract(epoch FROM now() - min(run_at) FILTER (
                WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now()
              ))::float8 AS oldest_ready_seconds
         FROM graphile_worker.jobs GROUP BY task_identifier`,
    );
    queue = rows;
  } catch (error) {
    queue = [];
    throw error;
  }
}

new Gauge({
  name: "loyalty_job_queue_jobs",
  help: "Jobs in the queue (every process's view of the one queue), by task and state: ready (due, waiting for a worker), scheduled (due later), running, failed (no attempt left, kept for inspection).",
  labelNames: ["task", "state"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const row of queue) {
      this.labels(row.task, "ready").set(row.ready);
      this.labels(row.task, "scheduled").set(row.scheduled);
      this.labels(row.task, "running").set(row.running);
      this.labels(row.task, "failed").set(row.failed);
    }
  },
});

new Gauge({
  name: "loyalty_job_queue_oldest_ready_seconds",
  help: "How long the oldest due job of each task has waited for a worker (0 when none waits).",
  labelNames: ["task"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const row of queue) this.labels(row.task).set(row.oldest_ready_seconds ?? 0);
  },
});

let runtimeMetrics = false;

/**
 * What a scrape of this process reads beyond its counters: the job queue through `pool`, and
 * Node's own figures (CPU, memory, event loop delay, garbage collection), whose sampling
 * starts here.
 */
export function enableScrapeMetrics(pool: pg.Pool): void {
  queueSource = pool;
  if (!runtimeMetrics) {
    runtimeMetrics = true;
    collectDefaultMetrics({ register: registry });
  }
}
