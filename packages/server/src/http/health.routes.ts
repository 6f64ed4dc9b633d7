import { Router } from "express";
import type pg from "pg";
import type { Logger } from "pino";

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and
 * the process is not shutting down). Outside the revisioned API: load balancers send no header.
 * Probes write no access log line: they come every few seconds from every balancer.
 */
export function healthRoutes(
  pool: pg.Pool,
  logger: Logger,
  isShuttingDown: () => boolean,
): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (req, res) => {
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
  });
  return router;
}
