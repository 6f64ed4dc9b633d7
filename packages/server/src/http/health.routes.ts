import type { RequestHandler } from "express";
import type pg from "pg";
import type { Logger } from "pino";

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and
 * the process is not shutting down). Outside the revisioned API: load balancers send no header.
 * Probes write no access log line: they come every few seconds from every balancer. One plain
 * middleware rather than a router: every request of the API passes through it first.
 */
export function healthRoutes(
  pool: pg.Pool,
  logger: Logger,
  isShuttingDown: () => boolean,
): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    if (req.path === "/healthz") {
      res.json({ status: "ok" });
      return;
    }
    if (req.path !== "/readyz") return next();
    if (isShuttingDown()) {
      res.status(503).json({ status: "shutting-down" });
      return;
    }
    try {
      await pool.query("SELECT 1");
      res.json({ status: "ready" });
    } catch (error) {
      logger.warn({ err: error, reqId: req.requestId }, "readiness check failed");
      res.status(503).json({ status: "database-unavailable" });
    }
  };
}
