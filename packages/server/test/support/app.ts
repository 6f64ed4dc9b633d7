import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Writable } from "node:stream";
import type { Router } from "express";
import { createApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config.js";
import { SecretBox } from "../../src/crypto/secrets.js";
import { createPool } from "../../src/db/pool.js";
import { createLogger } from "../../src/http/logger.js";
import type { Clock } from "../../src/http/revision.middleware.js";
import { createServices, type AppContext } from "../../src/runtime.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

export const TEST_MASTER_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

export interface TestApp {
  baseUrl: string;
  context: AppContext;
  database: TestDatabase;
  /** Every log line the app wrote, as text. */
  logs: string[];
  /** Changes what the revision middleware believes today is. */
  setNow(date: Date): void;
  close(): Promise<void>;
}

/**
 * The real app, in-process, on an ephemeral port, against this file's own database.
 * `routers` mounts probes of the middlewares in the same pipeline as the API's operations.
 */
export async function startTestApp(
  options: { routers?: (context: AppContext) => Router[]; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config: Config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: "info",
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
  const clock: Clock = () => now ?? new Date();
  const pool = createPool(database.url, 5);
  const context: AppContext = {
    config,
    logger,
    pool,
    clock,
    services: createServices(pool, SecretBox.fromText(TEST_MASTER_KEY)),
  };
  const app = createApp(context, { routers: options.routers?.(context) ?? [] });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    context,
    database,
    logs,
    setNow: (date) => {
      now = date;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
      await database.drop();
    },
  };
}

/** `Authorization: Basic base64(<key>:)`, as the spec writes it. */
export function basic(key: string, password = ""): string {
  return `Basic ${Buffer.from(`${key}:${password}`).toString("base64")}`;
}
