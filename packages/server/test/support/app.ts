import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Writable } from "node:stream";
import type { Router } from "express";
import { createApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config.js";
import { createLogger } from "../../src/http/logger.js";
import { createHttpServer } from "../../src/http/server.js";
import { taskList } from "../../src/jobs/tasks.js";
import { startWorkers, type Workers } from "../../src/jobs/worker.js";
import type {
  StoreChangeListener,
  StoreChangeListenerOptions,
} from "../../src/db/store-changes.js";
import { openRuntime, type AppContext } from "../../src/runtime.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

export const TEST_MASTER_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

export interface TestApp {
  baseUrl: string;
  context: AppContext;
  database: TestDatabase;
  /** Every log line the app wrote, as text. */
  logs: string[];
  /**
   * Changes what the app believes today is (revision lifecycles, club periods); undefined gives
   * it back the real time.
   */
  setNow(date: Date | undefined): void;
  /** The LISTEN connection keeping the storefront cache in step (started with the app). */
  storeChanges: StoreChangeListener;
  /** Starts the job workers in this process (unless the app was started with them). */
  startWorkers(): Promise<Workers>;
  close(): Promise<void>;
}

/**
 * The real app, in-process, on an ephemeral port, against this file's own database.
 * `routers` mounts probes of the middlewares in the same pipeline as the API's operations.
 */
export async function startTestApp(
  options: {
    routers?: (context: AppContext) => Router[];
    env?: Record<string, string>;
    /** Runs the job workers in-process, as the server does by default. */
    workers?: boolean;
    /** Another process on this database (which it does not drop), instead of a new one. */
    database?: TestDatabase;
    storeChanges?: Partial<Omit<StoreChangeListenerOptions, "connectionString" | "logger">>;
  } = {},
): Promise<TestApp> {
  const shared = options.database;
  const database = shared ?? (await createTestDatabase());
  const config: Config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: "info",
    WORKER_HEARTBEAT_MS: "200",
    // Tests send bursts no client would; test/rate-limit.test.ts sets the limits it checks.
    RATE_LIMIT_STOREFRONT: "0",
    RATE_LIMIT_CUSTOMER: "0",
    RATE_LIMIT_API_KEY: "0",
    RATE_LIMIT_ADMIN: "0",
    RATE_LIMIT_ADMIN_LOGIN: "0",
    RATE_LIMIT_FAILED_AUTH: "0",
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString("utf8"));
      callback();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  let now: Date | undefined;
  const runtime = await openRuntime(config, logger, {
    // Copied from the migrated template (or another app's database).
    migrate: false,
    poolSize: 5,
    clock: () => now ?? new Date(),
    storeChanges: options.storeChanges,
  });
  const { context, storeChanges } = runtime;
  const running: Workers[] = [];
  const start = async () => {
    const workers = await startWorkers(context, database.url, taskList(context.services));
    running.push(workers);
    return workers;
  };
  if (options.workers) await start();
  const app = createApp(context, { routers: options.routers?.(context) ?? [] });
  const server: Server = createHttpServer(app, config.http);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  await storeChanges.start();
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    context,
    database,
    logs,
    setNow: (date) => {
      now = date;
    },
    storeChanges,
    startWorkers: start,
    close: async () => {
      for (const workers of running) await workers.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      if (!shared) await database.drop();
    },
  };
}

/** `Authorization: Basic base64(<key>:)`, as the spec writes it. */
export function basic(key: string, password = ""): string {
  return `Basic ${Buffer.from(`${key}:${password}`).toString("base64")}`;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
