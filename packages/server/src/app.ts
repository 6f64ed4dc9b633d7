import express, { type Router } from "express";
import "./http/express-augment.js";
import { backOfficeRoutes } from "./http/back-office.routes.js";
import { errorHandler } from "./http/error-handler.js";
import { healthRoutes } from "./http/health.routes.js";
import { mountOperations, unmatchedRequests } from "./http/mount-operation.js";
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
 * The HTTP pipeline: request id, health probes, the API reference and the back-office's files
 * (outside the API: no revision, CORS or rate limit), then every operation of the registries,
 * each mounted once from its entry (see `mountOperations`), then what no operation took, then
 * one error path for everything that fails.
 */
export function createApp(context: AppContext, options: AppOptions = {}): express.Express {
  const { config, pool, logger } = context;
  const app = express();
  app.disable("x-powered-by");
  if (config.trustProxy !== undefined) app.set("trust proxy", config.trustProxy);
  app.use(requestId);
  app.use(healthRoutes(pool, logger, options.isShuttingDown ?? (() => false)));
  app.use(openApiRoutes(context));
  app.use(backOfficeRoutes(config.backOfficeDir, logger));
  mountOperations(app, operationRoutes(context), context);
  app.use(unmatchedRequests(context, options.routers));
  app.use(errorHandler(config.problemBaseUri, logger));
  return app;
}
