// First: it traces, when the environment asks for it, before express and pg are loaded.
import "./tracing/register-server.js";
import { isIPv6, type AddressInfo } from "node:net";
import { createApp } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { DatabaseNotMigratedError } from "./db/migrate.js";
import { createLogger } from "./http/logger.js";
import { createHttpServer } from "./http/server.js";
import { limitHeapGrowth } from "./heap.js";
import { startWorkers, type Workers } from "./jobs/worker.js";
import { taskList } from "./jobs/tasks.js";
import { openRuntime } from "./runtime.js";
import { serveMetrics, type MetricsEndpoint } from "./metrics/metrics.server.js";
import { listenForStopSignals } from "./signals.js";
import { stopTracing } from "./tracing/tracing.js";

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  limitHeapGrowth(config.heapGrowthPercent);
  const logger = createLogger(config.logLevel);
  const signals = listenForStopSignals();
  const runtime = await openRuntime(config, logger);
  if (signals.pending) {
    logger.info({ signal: signals.pending }, "stopped while starting");
    await runtime.close();
    process.exit(0);
  }
  await runtime.storeChanges.start();
  const metrics: MetricsEndpoint | undefined = config.metrics
    ? await serveMetrics({ ...config.metrics, pool: runtime.context.pool, logger })
    : undefined;
  const workers: Workers | undefined =
    config.workers === "in-process"
      ? await startWorkers(runtime.context, runtime.databaseUrl, taskList(runtime.context.services))
      : undefined;
  let shuttingDown = false;
  const app = createApp(runtime.context, { isShuttingDown: () => shuttingDown });

  const server = createHttpServer(app, config.http);
  // Without HOST, Node's default: every interface, IPv6 and IPv4 alike.
  if (config.host) server.listen(config.port, config.host);
  else server.listen(config.port);

  // Stop taking requests, let those in flight finish (bounded), then close the database.
  signals.onStop(async (signal) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, "shutting down");
    const forced = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
    forced.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearTimeout(forced);
    await workers?.stop();
    await metrics?.close();
    await runtime.close();
    await stopTracing();
    logger.info("stopped");
    process.exit(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  }).catch(async (error: unknown) => {
    logger.fatal({ err: error }, "cannot listen");
    await workers?.stop();
    await runtime.close();
    process.exit(1);
  });
  const address = server.address() as AddressInfo;
  logger.info(
    {
      host: address.address,
      port: address.port,
      database: config.databaseUrl ? "DATABASE_URL" : "embedded",
    },
    "listening",
  );
  process.stdout.write(`Loyalty API listening on ${urlOf(address)}\n`);
}

/** Where the server can be reached: `localhost` when it listens on every interface. */
function urlOf({ address, port }: AddressInfo): string {
  const host =
    address === "::" || address === "0.0.0.0"
      ? "localhost"
      : isIPv6(address)
        ? `[${address}]`
        : address;
  return `http://${host}:${port}`;
}

main().catch((error: unknown) => {
  const reason =
    error instanceof ConfigError || error instanceof DatabaseNotMigratedError
      ? error.message
      : error instanceof Error
        ? error.stack
        : String(error);
  process.stderr.write(`The server could not start: ${reason}\n`);
  process.exit(1);
});
