import express, { type RequestHandler, type Router } from "express";
import "./http/express-augment.js";
import { jsonBody } from "./http/body.js";
import { corsMiddleware } from "./http/cors.middleware.js";
import { errorHandler, notFoundHandler } from "./http/error-handler.js";
import { rateLimitMiddleware } from "./http/rate-limit.middleware.js";
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
 * The HTTP pipeline: request id, health probes, CORS, the revision of the request, rate limits,
 * the storefront reads (the hot path: no access log line, no body), then the log line, the body
 * and the other operations, then one error path for everything that fails.
 */
export function createApp(context: AppContext, options: AppOptions = {}): express.Express {
  const { config, pool, clock, logger } = context;
  const app = express();
  app.disable("x-powered-by");
  if (config.trustProxy !== undefined) app.set("trust proxy", config.trustProxy);
  app.use(requestId);
  app.use(healthRoutes(pool, logger, options.isShuttingDown ?? (() => false)));
  app.use(openApiRoutes(context));
  app.use(corsMiddleware);
  app.use(revisionMiddleware(clock));
  app.use(rateLimitMiddleware(config.rateLimits));
  storefrontRoutes(context, app);
  app.use(httpLogger(logger));
  // The back-office reads a body only once the request's token is checked (adminRoute): an
  // unauthenticated request is refused without parsing what it sent.
  const outsideBackOffice =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      req.path.startsWith("/admin/") ? next() : handler(req, res, next);
  app.use(jsonBody(config.bodyLimit).map(outsideBackOffice));
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
