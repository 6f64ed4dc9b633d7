import { Logger as WorkerLogger, runMigrations } from "graphile-worker";
import type { Logger } from "pino";
import type { Queryable } from "../db/pool.js";

/**
 * The job queue is graphile-worker: jobs are rows in PostgreSQL, so a job is added in the same
 * transaction as the change it follows (an order and its processing commit together or not at
 * all), and workers hear of new jobs at once through LISTEN/NOTIFY.
 */

/** Every task the workers run, with its payload. */
export interface TaskPayloads {
  "process-order": { orderId: number };
  "process-refund": { refundId: number };
  "deliver-webhook": { deliveryId: number };
  "send-referral-invitation": { referralId: number };
  "credit-referral-bonus": { referralId: number };
  "reconcile-claims": Record<string, never>;
  "expire-idempotency-keys": Record<string, never>;
}
export type TaskName = keyof TaskPayloads;

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** A job with the same key replaces the pending one instead of adding another. */
  jobKey?: string;
}

/** Adds a job on `db`: inside a transaction, the job exists only if the transaction commits. */
export async function enqueue<T extends TaskName>(
  db: Queryable,
  task: T,
  payload: TaskPayloads[T],
  options: EnqueueOptions = {},
): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, $2::json, run_at => $3, max_attempts => $4, job_key => $5)`,
    [
      task,
      JSON.stringify(payload),
      options.runAt ?? null,
      options.maxAttempts ?? null,
      options.jobKey ?? null,
    ],
  );
}

/** graphile-worker's log lines, through the service's logger. */
export function workerLogger(logger: Logger): WorkerLogger {
  const child = logger.child({ component: "worker" });
  return new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { ...scope, ...meta };
    // LogLevel is an ambient const enum (not importable as a value here): its values are text.
    const severity: string = level;
    if (severity === "error") child.error(fields, message);
    else if (severity === "warning") child.warn(fields, message);
    else if (severity === "info") child.info(fields, message);
    else child.debug(fields, message);
  });
}

/** Installs or upgrades the job queue's own schema (`graphile_worker`). */
export async function migrateJobQueue(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, logger: workerLogger(logger) });
}
