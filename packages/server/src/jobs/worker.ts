import { EventEmitter } from "node:events";
import { readlinkSync } from "node:fs";
import os from "node:os";
import pg from "pg";
import {
  parseCronItems,
  run,
  type Runner,
  type TaskList,
  type WorkerEvents,
} from "graphile-worker";
import { sessionsFollowNiceness } from "../db/niceness.js";
import { forgetPool, observeJobs, observePool } from "../metrics/metrics.js";
import { listenToEveryClient } from "../db/pool.js";
import type { AppContext } from "../runtime.js";
import { tracedTasks } from "../tracing/tracing.js";
import { guardLocalQueue } from "./graphile-worker-internals.js";
import { workerLogger } from "./queue.js";
import { cronItems } from "./registry.js";
import { failingForGood } from "./task.js";

/**
 * How the job queue runs jobs in every worker process, apart from the process's own settings:
 * under load, fetch and complete jobs by the hundred rather than one query each (an order's
 * job fetched before another job's batch credited its order is a no-op; the batch takes the
 * jobs no worker holds off the queue, so the local queue's size bounds those). Jobs held in a
 * local queue or awaiting completion may run again after a crash: every task is idempotent.
 * `pnpm bench` measures a no-op job under the same settings, the yardstick of order processing.
 */
export const QUEUE_SETTINGS = {
  pollInterval: 2_000,
  preset: {
    worker: { localQueue: { size: 100 }, completeJobBatchDelay: 5, failJobBatchDelay: 5 },
  },
} as const;

export interface Workers {
  stop(): Promise<void>;
}

/**
 * Where a pid means something: the host and, on Linux, the pid namespace. Containers sharing a
 * hostname (host networking) each have their own pids, and must not judge each other's.
 */
function pidScope(): string {
  try {
    return `${os.hostname()} ${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return os.hostname();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A pool of the job queue's workers, as started by `run`. */
interface RunningPool {
  runner: Runner;
  poolId: string;
}

/**
 * Starts the job workers: inside the API process by default, or alone (`loyalty worker`) for
 * operators who scale them apart. Any number of them may run against one database.
 *
 * A worker killed without warning (SIGKILL, a lost machine) leaves its jobs locked, and the
 * queue only unlocks them after four hours. So every worker beats a heartbeat, and unlocks
 * the jobs of workers silent for six beats, or of dead processes on its own machine.
 *
 * The job queue shuts its pool down for good when it cannot record a job's outcome (the
 * database restarting is enough), and says so only in its log: the process would go on
 * serving, and beating, with nothing processing jobs. So a pool that shuts down without being
 * asked is replaced by a new one, started again with backoff while the database is away. The
 * jobs the old pool still held are freed by the next heartbeat (a pool of this very process
 * that is not the running one).
 */
export async function startWorkers(
  context: AppContext,
  databaseUrl: string,
  taskList: TaskList,
): Promise<Workers> {
  const { config, pool } = context;
  const logger = context.logger.child({ component: "worker" });
  // A job its task cannot even read is not retried: it would fail the same way each time.
  const tasks = tracedTasks(failingForGood(taskList));
  const hostname = pidScope();
  /** The running pool; undefined while a failed one is being replaced. */
  let current: RunningPool | undefined;
  let stopping = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let restarting: Promise<void> = Promise.resolve();
  // One connection pool for every runner of this process. The job queue checks clients out
  // between its queries with no 'error' listener of its own: the database going away in that
  // moment would be an uncaught exception, ending the process. A listener on every client makes
  // it only the failed query it also is.
  const pgPool = new pg.Pool({
    connectionString: databaseUrl,
    // Twice what one runner uses: a replaced runner that hangs may hold its share a while.
    max: 2 * (config.workerConcurrency + 2),
    application_name: "loyalty-worker",
  });
  const connectionLost = (error: Error) =>
    logger.warn({ err: error }, "a job queue connection was lost");
  pgPool.on("error", connectionLost);
  listenToEveryClient(pgPool, connectionLost);
  sessionsFollowNiceness(pgPool, logger);
  observePool("job-queue", pgPool);

  const launch = async (): Promise<void> => {
    const events: WorkerEvents = new EventEmitter();
    let poolId: string | undefined;
    /** The pool once `run` returned it; a shutdown before that is remembered until then. */
    const state: { started?: RunningPool; endedEarly?: unknown } = {};
    const ended = (reason: unknown) => {
      if (state.started) lost(state.started, reason);
      else state.endedEarly ??= reason;
    };
    events.on("pool:create", ({ workerPool }) => {
      poolId = workerPool.id;
    });
    events.on("localQueue:init", ({ localQueue }) => guardLocalQueue(localQueue));
    observeJobs(events);
    events.on("pool:gracefulShutdown", ({ message }) => ended(message));
    const runner: Runner = await run({
      pgPool,
      concurrency: config.workerConcurrency,
      noHandleSignals: true,
      pollInterval: QUEUE_SETTINGS.pollInterval,
      // Due is judged by this process's clock, as the crontab and the programme's dates
      // (pending periods) are: a worker whose clock an operator moves (libfaketime, to rehearse
      // a period ending) runs what is due by it, not by PostgreSQL's.
      useNodeTime: true,
      taskList: tasks,
      // The queue keeps the schedule: a scheduled job is added once, whatever the number of
      // workers running.
      parsedCronItems: parseCronItems(cronItems()),
      events,
      logger: workerLogger(context.logger),
      preset: QUEUE_SETTINGS.preset,
    });
    if (!poolId) {
      await runner.stop().catch(() => {});
      throw new Error("the job queue did not report its worker pool");
    }
    const started = { runner, poolId };
    state.started = started;
    current = started;
    void runner.promise.then(
      () => ended("the worker pool ended"),
      (error: unknown) => ended(error),
    );
    if (state.endedEarly !== undefined) lost(started, state.endedEarly);
  };

  /** A pool that shuts down unasked: forgotten (it finishes on its own) and replaced. */
  const lost = (failed: RunningPool, reason: unknown) => {
    if (stopping || current !== failed) return;
    current = undefined;
    logger.error(
      { reason: reason instanceof Error ? reason.message : reason, poolId: failed.poolId },
      "the job workers stopped without being asked: starting them again",
    );
    restarting = replace();
  };
  const replace = async () => {
    for (let attempt = 0; !stopping; attempt++) {
      const delay = Math.min(30_000, 250 * 2 ** attempt);
      await new Promise<void>((resolve) => {
        wake = resolve;
        retryTimer = setTimeout(resolve, delay);
      });
      if (stopping) return;
      try {
        await launch();
        logger.info({ poolId: current?.poolId }, "workers started again");
        void heartbeat();
        return;
      } catch (error) {
        logger.error({ err: error, retryInMs: delay }, "the job workers could not start again");
      }
    }
  };

  const beat = async () => {
    // Without a running pool there is nothing to vouch for.
    const poolId = current?.poolId;
    if (!poolId) return;
    await pool.query(
      `INSERT INTO worker_heartbeats (pool_id, hostname, pid) VALUES ($1, $2, $3)
       ON CONFLICT (pool_id) DO UPDATE SET seen_at = now()`,
      [poolId, hostname, process.pid],
    );
    const { rows } = await pool.query<{
      pool_id: string;
      hostname: string;
      pid: number;
      silent: boolean;
    }>(
      `SELECT pool_id, hostname, pid, seen_at < now() - $2 * interval '1 millisecond' AS silent
       FROM worker_heartbeats WHERE pool_id <> $1`,
      [poolId, config.workerHeartbeatMs * 6],
    );
    const dead = rows
      .filter(
        (row) =>
          row.silent ||
          (row.hostname === hostname && (row.pid === process.pid || !isAlive(row.pid))),
      )
      .map((row) => row.pool_id);
    if (dead.length === 0) return;
    await pool.query(
      `WITH gone AS (DELETE FROM worker_heartbeats WHERE pool_id = ANY ($1::text[]))
       SELECT graphile_worker.force_unlock_workers($1::text[])`,
      [dead],
    );
    logger.warn({ workers: dead }, "unlocked the jobs of workers that stopped beating");
  };
  const heartbeat = () =>
    beat().catch((error: unknown) => logger.error({ err: error }, "worker heartbeat failed"));

  await launch();
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), config.workerHeartbeatMs);
  logger.info(
    { concurrency: config.workerConcurrency, poolId: current?.poolId },
    "workers started",
  );

  const stop = async () => {
    stopping = true;
    clearInterval(timer);
    clearTimeout(retryTimer);
    wake?.();
    await restarting;
    const last = current;
    current = undefined;
    if (last) {
      // It may have ended on its own meanwhile: there is nothing left to stop then.
      await last.runner.stop().catch((error: unknown) => {
        logger.warn({ err: error }, "the job workers had already stopped");
      });
      await pool
        .query(`DELETE FROM worker_heartbeats WHERE pool_id = $1`, [last.poolId])
        .catch(() => {});
    }
    forgetPool("job-queue");
    await pgPool.end().catch(() => {});
  };
  let stopped: Promise<void> | undefined;
  return {
    stop: () => (stopped ??= stop()),
  };
}
