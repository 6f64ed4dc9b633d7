import { EventEmitter } from "node:events";
import { readlinkSync } from "node:fs";
import os from "node:os";
import { run, type Runner, type TaskList, type WorkerEvents } from "graphile-worker";
import type { AppContext } from "../runtime.js";
import { workerLogger } from "./queue.js";

const LOCAL_QUEUE_SIZE = 100;

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

/**
 * Starts the job workers: inside the API process by default, or alone (`loyalty worker`) for
 * operators who scale them apart. Any number of them may run against one database.
 *
 * A worker killed without warning (SIGKILL, a lost machine) leaves its jobs locked, and the
 * queue only unlocks them after four hours. So every worker beats a heartbeat, and unlocks
 * the jobs of workers silent for six beats, or of dead processes on its own machine.
 */
export async function startWorkers(
  context: AppContext,
  databaseUrl: string,
  taskList: TaskList,
): Promise<Workers> {
  const { config, pool } = context;
  const logger = context.logger.child({ component: "worker" });
  const events: WorkerEvents = new EventEmitter();
  let poolId: string | undefined;
  events.on("pool:create", ({ workerPool }) => {
    poolId = workerPool.id;
  });
  const runner: Runner = await run({
    connectionString: databaseUrl,
    concurrency: config.workerConcurrency,
    maxPoolSize: config.workerConcurrency + 2,
    noHandleSignals: true,
    pollInterval: 2_000,
    taskList,
    // Once a minute, on one worker of all those running (the queue keeps the schedule); the
    // named queue runs one at a time, so a slow run is never overlapped by the next. Expired
    // idempotency keys are deleted every ten minutes, so that each run has little to delete.
    crontab: [
      "* * * * * reconcile-claims ?max=1&queue=claims-reconciliation",
      "*/10 * * * * expire-idempotency-keys ?max=1",
    ].join("\n"),
    events,
    logger: workerLogger(context.logger),
    preset: {
      worker: {
        // Under load, fetch and complete jobs by the hundred rather than one query each: an
        // order's job is often a no-op once another job has credited it in a batch. Jobs held
        // in a local queue or awaiting completion may run again after a crash: every task is
        // idempotent.
        localQueue: { size: LOCAL_QUEUE_SIZE },
        completeJobBatchDelay: 5,
        failJobBatchDelay: 5,
      },
    },
  });
  if (!poolId) throw new Error("the job queue did not report its worker pool");
  const self = { poolId, hostname: pidScope(), pid: process.pid };

  const beat = async () => {
    await pool.query(
      `INSERT INTO worker_heartbeats (pool_id, hostname, pid) VALUES ($1, $2, $3)
       ON CONFLICT (pool_id) DO UPDATE SET seen_at = now()`,
      [self.poolId, self.hostname, self.pid],
    );
    const { rows } = await pool.query<{
      pool_id: string;
      hostname: string;
      pid: number;
      silent: boolean;
    }>(
      `SELECT pool_id, hostname, pid, seen_at < now() - $2 * interval '1 millisecond' AS silent
       FROM worker_heartbeats WHERE pool_id <> $1`,
      [self.poolId, config.workerHeartbeatMs * 6],
    );
    const dead = rows
      .filter(
        (row) =>
          row.silent ||
          (row.hostname === self.hostname && (row.pid === self.pid || !isAlive(row.pid))),
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
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), config.workerHeartbeatMs);

  runner.promise.catch((error: unknown) => logger.error({ err: error }, "workers stopped"));
  logger.info({ concurrency: config.workerConcurrency, poolId }, "workers started");

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    clearInterval(timer);
    await runner.stop();
    await pool
      .query(`DELETE FROM worker_heartbeats WHERE pool_id = $1`, [self.poolId])
      .catch(() => {});
  };
  return {
    stop: () => (stopping ??= stop()),
  };
}
