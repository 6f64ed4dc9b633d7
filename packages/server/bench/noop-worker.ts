import { run } from "graphile-worker";
import { loadConfig } from "../src/config.js";
import { workerLogger } from "../src/jobs/queue.js";
import { QUEUE_SETTINGS } from "../src/jobs/worker.js";
import { createLogger } from "../src/http/logger.js";

/**
 * The yardstick of order processing (issue 22: at least 0.8x its throughput): graphile-worker
 * running a task that does nothing, with the settings and concurrency of a `loyalty worker`
 * process, on the same database. `pnpm bench` queues the jobs, starts this, and times the
 * queue's emptying as it times the orders'.
 */
const config = loadConfig(process.env);
const runner = await run({
  connectionString: config.databaseUrl,
  concurrency: config.workerConcurrency,
  noHandleSignals: true,
  pollInterval: QUEUE_SETTINGS.pollInterval,
  preset: QUEUE_SETTINGS.preset,
  taskList: { [process.env["BENCH_NOOP_TASK"] ?? "bench_noop"]: async () => {} },
  // Logged as a worker process logs, so that only the task's work differs.
  logger: workerLogger(createLogger(config.logLevel)),
});
process.stdout.write("no-op workers running\n");
const stop = () => void runner.stop().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
