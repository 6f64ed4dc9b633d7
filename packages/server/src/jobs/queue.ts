import { Logger as WorkerLogger, runMigrations } from "graphile-worker";
import type { Logger } from "pino";
import type { Queryable } from "../db/pool.js";
import type { TaskName, TaskPayload } from "./registry.js";

/**
 * The job queue is graphile-worker: jobs are rows in PostgreSQL, so a job is added in the same
 * transaction as the change it follows (an order and its processing commit together or not at
 * all), and workers hear of new jobs at once through LISTEN/NOTIFY.
 */

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
  payload: TaskPayload<T>,
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

/** A field of a job's payload in SQL: a plain name, written in the statement's text. */
const PAYLOAD_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A job of `task` for each row of an SQL statement (see jobSql). */
export interface JobSql<T extends TaskName> {
  /** Bind it as a parameter: a task's name is never written in a statement. */
  task: T;
  /** `json_build_object(...)` of the payload's fields, from the statement's expressions. */
  payload: string;
}

/**
 * The parts of SQL adding a job of `task` per row, for statements that add their jobs
 * themselves (`graphile_worker.add_job($n, <payload>)`, in the transaction of the rows they
 * follow). `fields` gives the SQL expression of each field of the task's payload: renaming the
 * task or a field fails to compile here rather than failing the jobs at run time.
 */
export function jobSql<T extends TaskName>(
  task: T,
  fields: { [Field in keyof TaskPayload<T>]-?: string },
): JobSql<T> {
  const entries = Object.entries(fields as Record<string, string>);
  for (const [field] of entries) {
    if (!PAYLOAD_FIELD.test(field)) throw new Error(`not a payload field for SQL: ${field}`);
  }
  return {
    task,
    payload: `json_build_object(${entries
      .map(([field, expression]) => `'${field}', ${expression}`)
      .join(", ")})`,
  };
}

/**
 * The job in graphile-worker's log lines, without its payload: the line is kept wherever the
 * logs go, and a payload is the jobs' business only (its last_error and the job's id suffice).
 */
function withoutPayload(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const job = meta?.job;
  if (typeof job !== "object" || job === null || !("payload" in job)) return meta ?? {};
  const { payload: _payload, ...rest } = job as Record<string, unknown>;
  return { ...meta, job: rest };
}

/** graphile-worker's log lines, through the service's logger. */
export function workerLogger(logger: Logger): WorkerLogger {
  const child = logger.child({ component: "worker" });
  return new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { ...scope, ...withoutPayload(meta) };
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
