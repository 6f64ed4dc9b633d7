import { fileURLToPath } from "node:url";
import { runner } from "node-pg-migrate";
import pg from "pg";
import type { Logger } from "pino";
import { migrateJobQueue } from "../jobs/queue.js";

/** Timestamped SQL files, applied in order by node-pg-migrate under an advisory lock. */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

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
    return await migrateLocked(databaseUrl, logger);
  } finally {
    // Ending the session releases the lock.
    await lock.end().catch(() => {});
  }
}

async function migrateLocked(databaseUrl: string, logger: Logger): Promise<string[]> {
  await migrateJobQueue(databaseUrl, logger);
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: "up",
    migrationsTable: "schema_migrations",
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
