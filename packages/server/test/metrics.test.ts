import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";
import getPort from "get-port";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, TEST_MASTER_KEY, type TestApp } from "./support/app.js";
import {
  addReward,
  addRule,
  customerWithPoints,
  hashFor,
  storeWithKey,
} from "./support/fixtures.js";
import { environment, exitOf, nodeArgs, startServer } from "./support/processes.js";
import { fileURLToPath } from "node:url";

/**
 * An operator's deployment, watched by Prometheus: an API process (WORKERS=off) and a
 * `loyalty worker` process, each serving its metrics on a port of its own, scraped as
 * Prometheus does while real traffic goes through them.
 */

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const DOCS = path.resolve(PACKAGE_DIR, "../../docs");
const LATEST = { revision: "2026-08-26" };

/** Seeds the store in-process; the processes under test run on the same database. */
let seed: TestApp;
let api: { child: ChildProcess; base: string; metrics: string };
let worker: { child: ChildProcess; metrics: string };
/** A port nothing listens on: a webhook endpoint that never answers. */
let closedPort: number;

async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs("cli", "source"), "worker"], {
    cwd: PACKAGE_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Loyalty workers running")) resolve();
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return child;
}

beforeAll(async () => {
  seed = await startTestApp();
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));

  const shared = {
    DATABASE_URL: seed.database.url,
    LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
    NODE_ENV: "production",
    MIGRATE_ON_START: "false",
    HOST: "127.0.0.1",
    ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_MAX_ATTEMPTS: "1",
  };
  const [port, apiMetrics, workerMetrics] = [await getPort(), await getPort(), await getPort()];
  const server = await startServer(
    environment({
      ...shared,
      PORT: String(port),
      WORKERS: "off",
      METRICS_PORT: String(apiMetrics),
    }),
  );
  api = {
    child: server.child,
    base: `http://127.0.0.1:${port}`,
    metrics: `http://127.0.0.1:${apiMetrics}/metrics`,
  };
  worker = {
    child: await startWorker(environment({ ...shared, METRICS_PORT: String(workerMetrics) })),
    metrics: `http://127.0.0.1:${workerMetrics}/metrics`,
  };
}, 120_000);

afterAll(async () => {
  for (const child of [api?.child, worker?.child]) {
    if (!child || child.exitCode !== null) continue;
    child.kill("SIGTERM");
    await exitOf(child);
  }
  await seed?.close();
});

/** The value of one sample of a scrape, undefined when the scrape has no such sample. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      return Number(match[3]);
    }
  }
  return undefined;
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe("Prometheus metrics", () => {
  it("times each operation by route, status and revision, including refusals", async () => {
    const s = await storeWithKey(seed, "https://metrics-http.example");
    await addRule(seed.context.pool, s.store.id, { kind: "default", rate: 1 });
    const calculate = `${api.base}/point/product-points/calculate?domain=${encodeURIComponent(s.store.domain)}&price=10`;
    for (let i = 0; i < 3; i++) expect((await fetch(calculate)).status).toBe(200);
    // An unknown revision is refused (400) before anything runs: still timed, as a 400.
    expect((await fetch(calculate, { headers: { revision: "1999-01-01" } })).status).toBe(400);
    expect((await fetch(`${api.base}/no/such/path`)).status).toBe(404);

    const text = await scrape(api.metrics);
    const route = { method: "GET", route: "/point/product-points/calculate" };
    expect(
      sample(text, "loyalty_http_request_duration_seconds_count", { ...route, status: "200" }),
    ).toBe(3);
    expect(
      sample(text, "loyalty_http_request_duration_seconds_count", { ...route, status: "400" }),
    ).toBe(1);
    expect(
      sample(text, "loyalty_http_request_duration_seconds_count", {
        method: "GET",
        route: "unmatched",
        status: "404",
      }),
    ).toBe(1);
    // The histogram's buckets are there for latency quantiles.
    expect(
      sample(text, "loyalty_http_request_duration_seconds_bucket", {
        ...route,
        status: "200",
        le: "+Inf",
      }),
    ).toBe(3);
    // The process's own figures and its pool.
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
    expect(sample(text, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "loyalty_db_pool_max_connections", { pool: "app" })).toBe(10);
    expect(
      sample(text, "loyalty_db_pool_connections", { pool: "app", state: "idle" }),
    ).toBeGreaterThanOrEqual(0);
    // An API process without workers runs no job, and has no job queue pool.
    expect(sample(text, "loyalty_db_pool_max_connections", { pool: "job-queue" })).toBeUndefined();
  });

  it("counts claims step by step and the platform calls they make", async () => {
    const s = await storeWithKey(seed, "https://metrics-claims.example");
    const { rewardId } = await addReward(seed.context.pool, s.store.id, { triggerValue: 100 });
    await customerWithPoints(seed.context.pool, s.store.id, 5, 250);
    const before = await scrape(api.metrics);
    const claim = () =>
      fetch(
        `${api.base}/reward/claim/5?domain=${encodeURIComponent(s.store.domain)}&hash=${hashFor(s.store.reference, s.key, 5)}`,
        {
          method: "POST",
          headers: { "content-type": "application/json", ...LATEST },
          body: JSON.stringify({ rewardId }),
        },
      );
    expect((await claim()).status).toBe(201);
    expect((await claim()).status).toBe(201);
    // 50 points left: refused (the spec's 404, insufficient-balance) before anything is held.
    expect((await claim()).status).toBe(404);

    const after = await scrape(api.metrics);
    const delta = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta("loyalty_claims_total", { step: "reserved", source: "request" })).toBe(2);
    expect(delta("loyalty_claims_total", { step: "confirmed", source: "request" })).toBe(2);
    expect(delta("loyalty_claims_total", { step: "released", source: "request" })).toBe(0);
    expect(
      delta("loyalty_platform_request_duration_seconds_count", {
        platform: "sandbox",
        call: "create-discount-code",
        outcome: "ok",
      }),
    ).toBe(2);
  });

  it("shows the worker's jobs, the queue's depth and webhook deliveries given up", async () => {
    const s = await storeWithKey(seed, "https://metrics-jobs.example");
    await addRule(seed.context.pool, s.store.id, { kind: "default", rate: 1 });
    await seed.context.services.webhooks.create(
      s.store.id,
      { url: `http://127.0.0.1:${closedPort}/hook`, events: ["ORDER_REGISTERED"] },
      { allowPrivateUrls: true },
    );
    // A job due in an hour: the queue holds it, scheduled.
    await seed.context.pool.query(
      `SELECT graphile_worker.add_job('deliver-webhook', '{"deliveryId": 999999}'::json,
         run_at => now() + interval '1 hour', job_key => 'metrics-test-later')`,
    );
    const register = await fetch(`${api.base}/api/order/register`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: s.authorization, ...LATEST },
      body: JSON.stringify({
        externalId: 1,
        customer: { externalId: 9 },
        currency: "EUR",
        lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 20 }],
      }),
    });
    expect(register.status).toBe(201);

    const text = await eventually(async () => {
      const scraped = await scrape(worker.metrics);
      const credited = sample(scraped, "loyalty_jobs_total", {
        task: "credit-store-orders",
        outcome: "success",
      });
      const givenUp = sample(scraped, "loyalty_webhook_deliveries_total", { outcome: "given_up" });
      return (credited ?? 0) >= 1 && (givenUp ?? 0) >= 1 ? scraped : undefined;
    });
    expect(
      sample(text, "loyalty_job_duration_seconds_count", { task: "credit-store-orders" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "loyalty_job_delay_seconds_count", { task: "credit-store-orders" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "loyalty_job_queue_jobs", { task: "deliver-webhook", state: "scheduled" }),
    ).toBe(1);
    expect(
      sample(text, "loyalty_job_queue_oldest_ready_seconds", { task: "deliver-webhook" }),
    ).toBe(0);
    expect(sample(text, "loyalty_db_pool_max_connections", { pool: "job-queue" })).toBeGreaterThan(
      0,
    );
    // The API process ran no job: it reads the same queue, and counts none of it.
    const apiText = await scrape(api.metrics);
    expect(
      sample(apiText, "loyalty_jobs_total", { task: "credit-store-orders", outcome: "success" }),
    ).toBeUndefined();
    expect(
      sample(apiText, "loyalty_job_queue_jobs", { task: "deliver-webhook", state: "scheduled" }),
    ).toBe(1);
  });

  it("has every metric the Grafana dashboard and the alerting rules read", async () => {
    const served = new Set<string>();
    for (const text of [await scrape(api.metrics), await scrape(worker.metrics)]) {
      for (const line of text.split("\n")) {
        const name = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line)?.[1];
        if (name && !line.startsWith("#")) served.add(name);
      }
    }
    for (const file of ["grafana-dashboard.json", "prometheus-alerts.yml"]) {
      const text = await readFile(path.join(DOCS, "monitoring", file), "utf8");
      const read = new Set(text.match(/\b(?:loyalty|process|nodejs)_[a-z0-9_]+/g));
      expect(read.size).toBeGreaterThan(5);
      for (const name of read) expect(served, `${file} reads ${name}`).toContain(name);
    }
  });

  it("serves nothing else on the metrics port, and no metrics on the API's", async () => {
    expect((await fetch(api.metrics.replace("/metrics", "/"))).status).toBe(404);
    expect((await fetch(`${api.metrics}x`)).status).toBe(404);
    expect((await fetch(api.metrics, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${api.base}/metrics`)).status).toBe(404);
  });
});
