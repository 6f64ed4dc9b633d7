import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { LATEST_REVISION } from "@loyalty/shared-types";
import getPort from "get-port";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic, eventually, TEST_MASTER_KEY } from "./support/app.js";
import { createTestDatabase, endPool, type TestDatabase } from "./support/database.js";
import { hashFor, registerFirstOrder } from "./support/fixtures.js";
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from "./support/otlp-receiver.js";
import { environment, exitOf, runCli, startServer } from "./support/processes.js";
import { startWorkerProcess } from "./support/worker-process.js";

/**
 * Traces as docs/operators.md ("Traces") tells operators to turn them on: the OTel variables
 * alone, the processes started as always. Each process is real, and exports to an OTLP/HTTP
 * receiver run here, as a collector would receive them.
 */

const dataDir = path.join(os.tmpdir(), `loyalty-traces-${randomBytes(6).toString("hex")}`);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** test/support/loaded-modules.mjs, preloaded: it names the OpenTelemetry modules loaded. */
const RECORD_MODULES = `--import=${pathToFileURL(path.join(import.meta.dirname, "support/loaded-modules.mjs")).href}`;

function loadedOpenTelemetryModules(output: string): string[] {
  const line = output.split("\n").find((text) => text.startsWith("opentelemetry modules loaded: "));
  if (!line) throw new Error(`the process did not say what it loaded:\n${output}`);
  return JSON.parse(line.slice("opentelemetry modules loaded: ".length)) as string[];
}

/** No OTEL_* variable of the machine running the tests: only those a test sets. */
const withoutOtel = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith("OTEL_"))
    .map((name) => [name, undefined]),
);

function tracingEnv(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    // Nothing is exported before the stop: what arrives was flushed by the graceful shutdown.
    OTEL_BSP_SCHEDULE_DELAY: "600000",
  };
}

interface LogLine {
  msg?: string;
  req?: { path?: string };
  trace_id?: string;
  span_id?: string;
}

const logLines = (output: string): LogLine[] =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);

const requestLine = (output: string, requestPath: string) =>
  logLines(output).find(
    (line) => line.msg === "request completed" && line.req?.path === requestPath,
  );

interface Deployment {
  database: TestDatabase;
  reference: string;
  key: string;
  /** The API server's environment, tracing aside. */
  env: Record<string, string | undefined>;
}

/** A database, a store and its API key, made with the CLI (which traces nothing). */
async function deployment(): Promise<Deployment> {
  const database = await createTestDatabase();
  const env = {
    ...withoutOtel,
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
    LOYALTY_DATA_DIR: dataDir,
    WORKERS: "off",
    HOST: "127.0.0.1",
    PORT: String(await getPort()),
    LOG_LEVEL: "info",
  };
  const created = await runCli(
    ["store", "create", "--domain", "https://traced.example", "--json"],
    environment(env),
  );
  expect(created.code, created.stderr).toBe(0);
  const { reference } = JSON.parse(created.stdout) as { reference: string };
  const issued = await runCli(["key", "create", "--store", reference, "--json"], environment(env));
  expect(issued.code, issued.stderr).toBe(0);
  const { key } = JSON.parse(issued.stdout) as { key: string };
  return { database, reference, key, env };
}

/** A storefront read authenticated by the customer hash, and an order sent with the API key. */
/**
 * A server process started with `env`, sent the storefront's and the API's requests, then
 * stopped with SIGTERM as an operator stops it (it must exit 0): what it wrote.
 */
async function servedAndStopped(
  setup: Deployment,
  env: NodeJS.ProcessEnv,
  from?: Parameters<typeof startServer>[1],
): Promise<string> {
  const server = await startServer(env, from);
  try {
    await storefrontAndApiRequests(setup);
    server.child.kill("SIGTERM");
    expect(await exitOf(server.child), server.output()).toBe(0);
  } finally {
    server.child.kill("SIGKILL");
  }
  return server.output();
}

async function storefrontAndApiRequests({ env, reference, key }: Deployment) {
  const base = `http://127.0.0.1:${env["PORT"]}`;
  const query = new URLSearchParams({
    hash: hashFor(reference, key, 7),
    domain: "https://traced.example",
  });
  const history = await fetch(`${base}/point/user-history/7?${query.toString()}`, {
    headers: { revision: LATEST_REVISION },
  });
  expect(history.status, await history.clone().text()).toBe(200);
  const order = await registerFirstOrder(base, key);
  expect(order.status, await order.clone().text()).toBe(201);
}

/** The server span of the request to `requestPath`, with the spans of its trace. */
function requestTrace(spans: ReceivedSpan[], requestPath: string) {
  const server = spans.find(
    (span) =>
      span.scope === "@opentelemetry/instrumentation-http" &&
      span.attributes["url.path"] === requestPath,
  );
  if (!server) throw new Error(`no server span for ${requestPath}`);
  return { server, trace: spans.filter((span) => span.traceId === server.traceId) };
}

/** What the request made: its server span, its route's span under it, its queries under that. */
function expectRequestTrace(spans: ReceivedSpan[], requestPath: string, route: string) {
  const { server, trace } = requestTrace(spans, requestPath);
  expect(server).toMatchObject({ service: "loyalty-server", parentSpanId: undefined });
  expect(server.attributes["http.route"]).toBe(route);
  const handler = trace.find((span) => span.scope === "@opentelemetry/instrumentation-express");
  expect(handler).toMatchObject({
    parentSpanId: server.spanId,
    attributes: expect.objectContaining({ "http.route": route }),
  });
  const queries = trace.filter(
    (span) =>
      span.scope === "@opentelemetry/instrumentation-pg" && span.name.startsWith("pg.query"),
  );
  expect(queries.length).toBeGreaterThan(0);
  for (const query of queries) {
    expect(query.parentSpanId).toBe(handler?.spanId);
    expect(query.attributes["db.query.text"]).toEqual(expect.any(String));
  }
  return server;
}

describe("traces, with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let receiver: OtlpReceiver;
  let setup: Deployment;
  let serverOutput = "";
  let exportedBeforeStop = -1;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    setup = await deployment();
    const server = await startServer(
      environment({
        ...setup.env,
        ...tracingEnv(receiver),
        NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} ${RECORD_MODULES}`,
      }),
    );
    const worker = await startWorkerProcess(setup.database.url, {
      ...tracingEnv(receiver),
      LOYALTY_DATA_DIR: dataDir,
      LOG_LEVEL: "info",
    });
    const pool = new pg.Pool({ connectionString: setup.database.url, max: 1 });
    try {
      await storefrontAndApiRequests(setup);
      // The worker credits the order, in a job of its own.
      await eventually(async () => {
        const { rows } = await pool.query<{ status: string }>("SELECT status FROM orders");
        return rows[0]?.status === "processed" ? true : undefined;
      }, 20_000);
      exportedBeforeStop = receiver.bodies.length;
      server.child.kill("SIGTERM");
      expect(await exitOf(server.child), server.output()).toBe(0);
      expect(await worker.stop(), worker.output()).toBe(0);
    } finally {
      server.child.kill("SIGKILL");
      await worker.kill();
      await endPool(pool);
      serverOutput = server.output();
    }
  }, 90_000);

  afterAll(async () => {
    await receiver?.close();
    await setup?.database.drop();
  });

  it("exports each request's server span, its route's span and its queries, in one trace, as the processes stop", () => {
    expect(exportedBeforeStop).toBe(0);
    const spans = receiver.spans();
    expectRequestTrace(spans, "/point/user-history/7", "/point/user-history/:externalId");
    expectRequestTrace(spans, "/api/order/register", "/api/order/register");
    expect(loadedOpenTelemetryModules(serverOutput)).toEqual(
      expect.arrayContaining([expect.stringContaining("/@opentelemetry/sdk-node/")]),
    );
  });

  it("writes the trace and span ids of the request in its log line", () => {
    const spans = receiver.spans();
    for (const requestPath of ["/point/user-history/7", "/api/order/register"]) {
      const { server } = requestTrace(spans, requestPath);
      expect(requestLine(serverOutput, requestPath)).toMatchObject({
        trace_id: server.traceId,
        span_id: server.spanId,
      });
    }
  });

  it("records neither the customer hash nor the API key, nor any header", () => {
    const { reference, key } = setup;
    const exported = receiver.bodies.join("\n");
    const secret = key.slice("lk_0123456789_".length);
    for (const value of [hashFor(reference, key, 7), secret, basic(key).slice("Basic ".length)]) {
      expect(exported).not.toContain(value);
    }
    const { server } = requestTrace(receiver.spans(), "/point/user-history/7");
    expect(server.attributes["url.query"]).toBe(
      "hash=%5Bredacted%5D&domain=https%3A%2F%2Ftraced.example",
    );
    for (const span of receiver.spans()) {
      expect(Object.keys(span.attributes).filter((name) => name.includes("header"))).toEqual([]);
    }
  });

  it("exports the worker's job, with its queries, as loyalty-worker", () => {
    const spans = receiver.spans();
    const job = spans.find((span) => span.name === "job credit-store-orders");
    expect(job).toMatchObject({ service: "loyalty-worker", parentSpanId: undefined });
    const queries = spans.filter(
      (span) => span.traceId === job?.traceId && span.name.startsWith("pg.query"),
    );
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.every((query) => query.service === "loyalty-worker")).toBe(true);
  });
});

describe("without any OTEL_ variable", () => {
  it("loads nothing of the OpenTelemetry SDK, and its log lines carry no trace id", async () => {
    const setup = await deployment();
    try {
      const output = await servedAndStopped(
        setup,
        environment({
          ...setup.env,
          NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} ${RECORD_MODULES}`,
        }),
      );
      // The API alone is there, a no-op facade: prom-client (src/metrics) requires it to read
      // exemplars, which it does not collect here. Nothing of the SDK, instrumentations or
      // exporters is.
      const api = "/node_modules/@opentelemetry/api/";
      expect(loadedOpenTelemetryModules(output).filter((file) => !file.includes(api))).toEqual([]);
      const line = requestLine(output, "/api/order/register");
      expect(line).toBeDefined();
      expect(line).not.toHaveProperty("trace_id");
      expect(output).not.toContain("trace_id");
    } finally {
      await setup.database.drop();
    }
  }, 60_000);
});

describe("the built server", () => {
  it("traces when run as an operator runs it: node dist/main.js, the OTel variables set", async () => {
    const receiver = await startOtlpReceiver();
    const setup = await deployment();
    try {
      const output = await servedAndStopped(
        setup,
        environment({ ...setup.env, ...tracingEnv(receiver), NODE_ENV: "production" }),
        "dist",
      );
      const spans = receiver.spans();
      expectRequestTrace(spans, "/point/user-history/7", "/point/user-history/:externalId");
      const order = expectRequestTrace(spans, "/api/order/register", "/api/order/register");
      expect(requestLine(output, "/api/order/register")).toMatchObject({
        trace_id: order.traceId,
      });
    } finally {
      await receiver.close();
      await setup.database.drop();
    }
  }, 60_000);
});
