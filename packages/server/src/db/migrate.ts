import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runner } from "node-pg-migrate";
import pg from "pg";
import type { Logger } from "pino";
import { migrateJobQueue } from "../jobs/queue.js";

/** Timestamped SQL files, applied in order by node-pg-migrate under an advisory lock. */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

const MIGRATIONS_TABLE = "schema_migrations";

/** The advisory lock a process holds while it migrates, so that processes take turns. */
export const MIGRATION_LOCK = 71_403_112_026;

/**
 * Applies every pending migration, the job queue's schema included (orders enqueue their jobs
 * in SQL, so it must exist before the first request). Processes starting together (an API
 * server and its workers) take turns: the others wait for the first, then find nothing to do.
 * node-pg-migrate's own lock would make them fail instead ("Another migration is already
 * running").
 */
export async function migrate(databaseUrl: string, logger: Logger): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  // The database going away while this waits is the awaited query's error, not an uncaught one.
  lock.on("error", (error) => logger.warn({ err: error }, "migration lock connection lost"));
  await lock.connect();
  try {
    const { rows } = await lock.query<{ free: boolean }>(
      "SELECT pg_try_advisory_lock($1) AS free",
      [MIGRATION_LOCK],
    );
    if (!rows[0]?.free) {
      logger.info("waiting for another process to finish migrating the database");
      await lock.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    }
    return await migrateLocked(databaseUrl, lock, logger);
  } finally {
    // Ending the session releases the lock.
    await lock.end().catch(() => {});
  }
}

async function migrateLocked(
  databaseUrl: string,
  client: pg.Client,
  logger: Logger,
): Promise<string[]> {
  await migrateJobQueue(databaseUrl, logger);
  const applied = await runner({
    // The lock's session: node-pg-migrate does not wait for a connection of its own to end
    // (its close calls client.end() without awaiting it), and one still open when the
    // database goes away was an uncaught error.
    dbClient: client,
    dir: MIGRATIONS_DIR,
    direction: "up",
    migrationsTable: MIGRATIONS_TABLE,
    singleTransaction: true,
    checkOrder: true,
    noLock: true,
    logger: {
      debug: (message: string) => logger.debug(message),
      info: (message: string) => logger.debug(message),
      warn: (message: string) => logger.warn(message),
      error: (message: string) => logger.error(message),
    },
  });
  const names = applied.map((m) => m.name);
  if (names.length > 0) {
    logger.info({ migrations: names }, "database migrated");
  }
  return names;
}

/** A process that does not migrate (MIGRATE_ON_START=false) found migrations not yet applied. */
export class DatabaseNotMigratedError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `The database is not migrated: ${pending.length} migration(s) of this version are not applied (${pending[0]}${pending.length > 1 ? ", …" : ""}). Run \`loyalty migrate\` first.`,
    );
    this.name = "DatabaseNotMigratedError";
  }
}

/** The migrations of MIGRATIONS_DIR the database has not recorded (all of them when empty). */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR))
    .filter((file) => /\.(sql|js|ts)$/.test(file))
    .map((file) => path.parse(file).name)
    .sort();
  const client = new pg.Client({ connectionString: databaseUrl });
  // A connection lost mid-query is that query's rejection, not an uncaught 'error' event.
  client.on("error", () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ table: string | null }>(
      "SELECT to_regclass($1)::text AS table",
      [`public.${MIGRATIONS_TABLE}`],
    );
    if (!rows[0]?.table) return files;
    const applied = await client.query<{ name: string }>(
      `SELECT name FROM public.${MIGRATIONS_TABLE}`,
    );
    const done = new Set(applied.rows.map((row) => row.name));
    return files.filter((name) => !done.has(name));
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Refuses to go on with a schema older than the code: without it, an unmigrated database shows
 * up as the first query's "relation … does not exist". A database ahead of the code (a rolling
 * deploy's old processes after `loyalty migrate`) is fine.
 */
export async function assertMigrated(databaseUrl: string): Promise<void> {
  const pending = await pendingMigrations(databaseUrl);
  if (pending.length > 0) throw new DatabaseNotMigratedError(pending);
}
