import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** The URL of another database on the same server. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** `<prefix>_<unix seconds>_<random>`: the time lets a later run drop what a killed run left. */
export function testDatabaseName(prefix: string): string {
  return `${prefix}_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString("hex")}`;
}

/** Drops test databases older than two hours: leftovers of runs that were killed. */
export async function dropAbandonedTestDatabases(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname ~ '^loyalty_(test|template)_[0-9]+_[0-9a-f]+$'`,
  );
  const cutoff = Date.now() / 1000 - 2 * 3600;
  for (const { datname } of rows) {
    if (Number(datname.split("_")[2]) < cutoff) {
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of this test file's own, copied from the run's template; with
 * `empty`, one with no schema at all, as an operator's new database.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject("adminDatabaseUrl");
  const name = testDatabaseName("loyalty_test");
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(
    options.empty
      ? `CREATE DATABASE ${name}`
      : `CREATE DATABASE ${name} TEMPLATE ${inject("templateDatabase")}`,
  );
  await admin.end();
  return {
    url: databaseUrl(adminUrl, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * Ends a pool and waits for its connections to close. pg-pool's `end()` resolves as soon as it
 * has asked its idle clients to end, before they have: a database dropped right after (`WITH
 * (FORCE)` terminates its sessions) then kills a connection still closing, and the ended pool,
 * with no one listening, reports it as an uncaught error that fails the run.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const open = pool.totalCount;
  let removed = 0;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on("remove", () => {
      removed += 1;
      if (removed >= open) resolve();
    });
  });
  await pool.end();
  await closed;
}
