import express, { type Router } from "express";
import "./http/express-augment.js";
import { backOfficeRoutes } from "./http/back-office.routes.js";
import { errorHandler } from "./http/error-handler.js";
import { healthRoutes } from "./http/health.routes.js";
import { mountOperations, unmatchedRequests } from "./http/mount-operation.js";
import { parseQueryOnce } from "./http/query-once.js";
import { requestId } from "./http/request-id.js";
import { openApiRoutes } from "./openapi/openapi.routes.js";
import { operationRoutes } from "./routes.js";
import type { AppContext } from "./runtime.js";

export interface AppOptions {
  /** Reports shutdown to the readiness probe. */
  isShuttingDown?: () => boolean;
  /** Routers mounted where no operation matched (tests mount probes of the middlewares here). */
  routers?: Router[];
}

/**
 * The HTTP pipeline: request id, then every operation of the registries, each mounted once from
 * its entry (see `mountOperations`), storefront reads first, then the health probes, the API
 * reference and the back-office's files (outside the API: no revision, CORS or rate limit; their
 * paths are no operation's), then what nothing took, then one error path for everything that
 * fails. The operations come before the rest because every storefront read would otherwise walk
 * those three first: 2 to 3 % of calculate's throughput (`pnpm bench`, 2026-11-27).
 */
export function createApp(context: AppContext, options: AppOptions = {}): express.Express {
  const { config, pool, logger } = context;
  const app = express();
  app.disable("x-powered-by");
  if (config.trustProxy !== undefined) app.set("trust proxy", config.trustProxy);
  parseQueryOnce(app);
  app.use(requestId);
  mountOperations(app, operationRoutes(context), context);
  app.use(healthRoutes(pool, logger, options.isShuttingDown ?? (() => false)));
  app.use(openApiRoutes(context));
  app.use(backOfficeRoutes(config.backOfficeDir, logger));
  app.use(unmatchedRequests(context, options.routers));
  app.use(errorHandler(config.problemBaseUri, logger));
  return app;
}
