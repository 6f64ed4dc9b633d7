import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LATEST_REVISION } from "@loyalty/shared-types";
import getPort from "get-port";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "../src/db/migrate.js";
import { eventually, TEST_MASTER_KEY } from "./support/app.js";
import { createTestDatabase, endPool } from "./support/database.js";
import { addRule, hashFor, registerFirstOrder } from "./support/fixtures.js";
import { environment, exitOf, runCli, spawnServer, startServer } from "./support/processes.js";
import { startWorkerProcess } from "./support/worker-process.js";

/**
 * The deploy docs/operators.md describes ("Production"), run from `pnpm build`'s output on a new
 * database: `cli.js migrate`, then an API process with WORKERS=off and MIGRATE_ON_START=false
 * and a `cli.js worker` process beside it.
 */

const dataDir = path.join(os.tmpdir(), `loyalty-deploy-${randomBytes(6).toString("hex")}`);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("the documented production deploy, from the built files", () => {
  it("migrates an empty database, serves with a separate worker, credits an order, stops both on SIGTERM", async () => {
    const database = await createTestDatabase({ empty: true });
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const port = await getPort();
    const production = {
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
      MIGRATE_ON_START: "false",
      LOYALTY_DATA_DIR: dataDir,
    };
    const env = environment(production);
    const stop: (() => Promise<unknown>)[] = [];
    try {
      const migrated = await runCli(["migrate", "--json"], env, undefined, "dist");
      expect(migrated.stderr).toBe("");
      expect(migrated.code).toBe(0);
      const files = readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith(".sql"));
      expect(JSON.parse(migrated.stdout)).toEqual({
        applied: files.map((file) => file.replace(/\.sql$/, "")),
      });

      const server = await startServer(
        environment({ ...production, WORKERS: "off", PORT: String(port), HOST: "127.0.0.1" }),
        "dist",
      );
      stop.push(async () => {
        server.child.kill("SIGKILL");
        await exitOf(server.child);
      });
      const worker = await startWorkerProcess(database.url, production, "dist");
      stop.push(() => worker.kill());

      const created = await runCli(
        ["store", "create", "--domain", "https://deploy.example", "--json"],
        env,
        undefined,
        "dist",
      );
      expect(created.code, created.stderr).toBe(0);
      const { reference } = JSON.parse(created.stdout) as { reference: string };
      const issued = await runCli(
        ["key", "create", "--store", reference, "--json"],
        env,
        undefined,
        "dist",
      );
      expect(issued.code, issued.stderr).toBe(0);
      const { key } = JSON.parse(issued.stdout) as { key: string };
      const { rows } = await pool.query<{ id: number }>(
        "SELECT id FROM stores WHERE reference = $1",
        [reference],
      );
      await addRule(pool, (rows[0] as { id: number }).id, { kind: "default", rate: 1 });

      const baseUrl = `http://127.0.0.1:${port}`;
      const registered = await registerFirstOrder(baseUrl, key);
      expect(registered.status, await registered.clone().text()).toBe(201);

      // Only the worker process credits orders: the API process runs none.
      const query = new URLSearchParams({
        hash: hashFor(reference, key, 7),
        domain: "https://deploy.example",
      });
      const history = await eventually(async () => {
        const response = await fetch(`${baseUrl}/point/user-history/7?${query.toString()}`, {
          headers: { revision: LATEST_REVISION },
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as {
          balance: number;
          transactions: { kind: string; points: number }[];
        };
        return body.transactions.length > 0 ? body : undefined;
      }, 20_000);
      expect(history.balance).toBe(43);
      expect(history.transactions).toEqual([expect.objectContaining({ kind: "earn", points: 43 })]);

      server.child.kill("SIGTERM");
      expect(await exitOf(server.child), server.output()).toBe(0);
      expect(await worker.stop(), worker.output()).toBe(0);
    } finally {
      for (const end of stop) await end();
      await endPool(pool);
      await database.drop();
    }
  }, 120_000);

  it("refuses to start the API server and the worker before `loyalty migrate`, saying so", async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const env = environment({
        NODE_ENV: "production",
        DATABASE_URL: database.url,
        LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
        MIGRATE_ON_START: "false",
        LOYALTY_DATA_DIR: dataDir,
        WORKERS: "off",
        PORT: String(await getPort()),
      });
      const server = spawnServer(env, "dist");
      let output = "";
      server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      expect(await exitOf(server)).toBe(1);
      expect(output).toMatch(
        /^The server could not start: The database is not migrated: .*Run `loyalty migrate` first\.\n$/,
      );

      const worker = await runCli(["worker"], env, undefined, "dist");
      expect(worker.code).toBe(1);
      expect(worker.stderr).toMatch(
        /^error: The database is not migrated: .*Run `loyalty migrate` first\.\n$/,
      );
    } finally {
      await database.drop();
    }
  }, 60_000);
});
