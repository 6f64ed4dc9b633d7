import type { Command } from "commander";
import { loadConfig } from "../../config.js";
import { limitHeapGrowth } from "../../heap.js";
import { createLogger } from "../../http/logger.js";
import { taskList } from "../../jobs/tasks.js";
import { startWorkers } from "../../jobs/worker.js";
import { serveMetrics } from "../../metrics/metrics.server.js";
import { listenForStopSignals } from "../../signals.js";
import { stopTracing } from "../../tracing/tracing.js";
import type { CliContext } from "../context.js";

/**
 * `worker`: the job workers alone, until a stop signal. Unlike the other commands it owns its
 * process: it listens for the process's signals and ends it once the workers have stopped.
 */
export function workerCommand(program: Command, cli: CliContext): void {
  const { deps } = cli;
  program
    .command("worker")
    .description(
      "run the job workers alone (orders, refunds, emails, webhooks, claim reconciliation, expired idempotency keys), for API servers started with WORKERS=off",
    )
    .action(
      cli.action(async () => {
        const config = loadConfig(deps.env);
        limitHeapGrowth(config.heapGrowthPercent);
        // Logs on stdout at LOG_LEVEL, as the server's.
        const logger = createLogger(config.logLevel, deps.stdout);
        const signals = listenForStopSignals();
        const runtime = await deps.openRuntime(config, logger);
        const metrics =
          config.metrics && !signals.pending
            ? await serveMetrics({ ...config.metrics, pool: runtime.context.pool, logger })
            : undefined;
        const workers = signals.pending
          ? undefined
          : await startWorkers(
              runtime.context,
              runtime.databaseUrl,
              taskList(runtime.context.services),
            );
        // Jobs in progress finish (or are handed back to the queue) before the process exits.
        let stopping = false;
        signals.onStop(async (signal) => {
          if (stopping) return;
          stopping = true;
          logger.info({ signal }, "stopping workers");
          await workers?.stop();
          await metrics?.close();
          await runtime.close();
          await stopTracing();
          process.exit(0);
        });
        if (signals.pending) return;
        deps.stdout.write(`Loyalty workers running (concurrency ${config.workerConcurrency})\n`);
      }),
    );
}
