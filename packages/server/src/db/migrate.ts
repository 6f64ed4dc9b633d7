import { fileURLToPath } from "node:url";
import { runner } from "node-pg-migrate";
import type { Logger } from "pino";
import { migrateJobQueue } from "../jobs/queue.js";

/** Timestamped SQL files, applied in order by node-pg-migrate under an advisory lock. */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * Applies every pending migration, the job queue's schema included (orders enqueue their jobs
 * in SQL, so it must exist before the first request); safe from several processes at once.
 */
export async function migrate(databaseUrl: string, logger: Logger): Promise<string[]> {
  await migrateJobQueue(databaseUrl, logger);
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: "up",
    migrationsTable: "schema_migrations",
    singleTransaction: true,
    checkOrder: true,
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
