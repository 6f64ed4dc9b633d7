import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import type { Logger } from "pino";
import { enableScrapeMetrics, observePool, readQueue, registry } from "./metrics.js";

export interface MetricsEndpoint {
  /** Where Prometheus scrapes it. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the process's metrics for Prometheus at `GET /metrics`, on a port of its own
 * (METRICS_PORT), apart from the API: no operation, rate limit or access log is involved, and
 * an operator exposes it to the monitoring network only. Anything else there is a 404.
 */
export async function serveMetrics(options: {
  port: number;
  host: string | undefined;
  pool: pg.Pool;
  logger: Logger;
}): Promise<MetricsEndpoint> {
  const { port, host, pool, logger } = options;
  enableScrapeMetrics(pool);
  observePool("app", pool);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found\n");
      return;
    }
    // A queue that cannot be read leaves its gauges out of this scrape, not the others.
    readQueue()
      .catch((error: unknown) =>
        logger.warn({ err: error }, "the job queue could not be read for the metrics"),
      )
      .then(() => registry.metrics())
      .then(
        (text) => {
          res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
          res.end(req.method === "HEAD" ? undefined : text);
        },
        (error: unknown) => {
          logger.warn({ err: error }, "metrics could not be collected");
          res
            .writeHead(500, { "content-type": "text/plain; charset=utf-8" })
            .end("Metrics failed\n");
        },
      );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (host) server.listen(port, host, resolve);
    else server.listen(port, resolve);
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shown}:${address.port}/metrics`;
  logger.info({ url }, "metrics served");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
