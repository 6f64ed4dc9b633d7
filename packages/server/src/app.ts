import express, { type Router } from "express";
import "./http/express-augment.js";
import { backOfficeRoutes } from "./http/back-office.routes.js";
import { corsMiddleware } from "./http/cors.middleware.js";
import { errorHandler, notFoundHandler } from "./http/error-handler.js";
import { healthRoutes } from "./http/health.routes.js";
import { httpLogger } from "./http/logger.js";
import { requestId } from "./http/request-id.js";
import { revisionMiddleware } from "./http/revision.middleware.js";
import { openApiRoutes } from "./openapi/openapi.routes.js";
import { adminRoutes, apiRoutes, storefrontRoutes } from "./routes.js";
import type { AppContext } from "./runtime.js";

export interface AppOptions {
  /** Reports shutdown to the readiness probe. */
  isShuttingDown?: () => boolean;
  /** Routers mounted with the API's (tests mount probes of the middlewares here). */
  routers?: Router[];
}

/**
 * The HTTP pipeline: request id, health probes, the API reference and the back-office's files
 * (outside the API: no revision, CORS or rate limit), CORS, the revision of the request, rate
 * limits, the storefront reads (the hot path: no access log line, no body), then the log line and
 * the other operations (each authenticates, then reads its body), then one error path for
 * everything that fails.
 */
export function createApp(context: AppContext, options: AppOptions = {}): express.Express {
  const { config, pool, clock, logger } = context;
  const app = express();
  app.disable("x-powered-by");
  if (config.trustProxy !== undefined) app.set("trust proxy", config.trustProxy);
  app.use(requestId);
  app.use(healthRoutes(pool, logger, options.isShuttingDown ?? (() => false)));
  app.use(openApiRoutes(context));
  app.use(backOfficeRoutes(config.backOfficeDir, logger));
  app.use(corsMiddleware);
  app.use(revisionMiddleware(clock));
  app.use(context.services.rateLimits.beforeRouting);
  storefrontRoutes(context, app);
  app.use(httpLogger(logger));
  // No body is read here: each operation reads its own, up to its own limit, once the
  // request's credentials are checked (an unauthenticated request is never parsed).
  for (const router of [
    ...apiRoutes(context),
    ...adminRoutes(context),
    ...(options.routers ?? []),
  ]) {
    app.use(router);
  }
  app.use(notFoundHandler);
  app.use(errorHandler(config.problemBaseUri, logger));
  return app;
}
