import { readdirSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { migrate, MIGRATION_LOCK, MIGRATIONS_DIR } from "../src/db/migrate.js";
import { createLogger } from "../src/http/logger.js";
import { databaseUrl, endPool, testDatabaseName } from "./support/database.js";

describe("migrations", () => {
  const adminUrl = inject("adminDatabaseUrl");
  const name = testDatabaseName("loyalty_test");

  afterAll(async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("lets processes that start together take turns: one migrates, the others wait and find it done", async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = databaseUrl(adminUrl, name);

    // An API server, a worker and a CLI command starting at the same moment on an empty database.
    const results = await Promise.all([1, 2, 3].map(() => migrate(url, createLogger("silent"))));

    const files = readdirSync(MIGRATIONS_DIR).filter((file) => /\.(sql|js|ts)$/.test(file));
    expect(results.map((applied) => applied.length).sort()).toEqual([0, 0, files.length]);
    const pool = new pg.Pool({ connectionString: url });
    const { rows } = await pool.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM schema_migrations",
    );
    expect(rows[0]?.count).toBe(files.length);
    const jobs = await pool.query("SELECT 1 FROM graphile_worker.jobs LIMIT 1");
    expect(jobs.rowCount).toBe(0);
    await endPool(pool);
  });

  it("waits while another process migrates, then finds the work done", async () => {
    const url = databaseUrl(adminUrl, name);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    let finished = false;
    const waiting = migrate(url, createLogger("silent")).then((applied) => {
      finished = true;
      return applied;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(finished).toBe(false);
    await other.end();
    expect(await waiting).toEqual([]);
  });
});
