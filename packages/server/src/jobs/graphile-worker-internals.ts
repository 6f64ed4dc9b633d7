import type { JobHelpers } from "graphile-worker";

/**
 * Everything here relies on graphile-worker's private fields and tables, which may change in
 * any release: it was written against this version, and test/jobs.test.ts fails when the
 * installed one differs, so that an upgrade re-reads this file before it ships.
 */
export const GRAPHILE_WORKER_VERSION = "0.17.3";

/**
 * graphile-worker 0.17.3's local queue, shut down while the database is away, can leave
 * promises rejected with no one to handle them: its completion (when its release failed), and
 * the return of its jobs to the queue (when it refused to track it, being released already).
 * An unhandled rejection ends a Node process: the API's, with its workers in it. Those
 * failures are logged by the queue, its jobs are freed by the heartbeat, and its pool is
 * replaced; here they are only marked handled. The internals touched are checked first.
 */
export function guardLocalQueue(localQueue: unknown): void {
  const queue = localQueue as {
    _finPromise?: unknown;
    background?: (promise: Promise<unknown>) => void;
  };
  if (queue._finPromise instanceof Promise) queue._finPromise.catch(() => {});
  const background = queue.background;
  if (typeof background !== "function") return;
  queue.background = function (this: unknown, promise: Promise<unknown>) {
    try {
      background.call(this, promise);
    } catch (error) {
      promise.catch(() => {});
      throw error;
    }
  };
}

/**
 * Makes the failure the running job is about to have its last: graphile-worker has no public
 * way to fail a job it holds for good. The queue never hands out a job whose attempts reached
 * its max_attempts (the generated `is_available` column of `_private_jobs`), and recording a
 * failure touches neither; `locked_by` limits it to a job this worker still holds. The job in
 * memory is what the failure's log line reads ("attempt 1 of 1").
 */
export async function lastAttempt(helpers: JobHelpers): Promise<void> {
  const { job } = helpers;
  await helpers.query(
    `UPDATE graphile_worker._private_jobs SET max_attempts = attempts
     WHERE id = $1 AND locked_by = $2`,
    [job.id, job.locked_by],
  );
  job.max_attempts = job.attempts;
}
