import { Router } from "express";
import type { AppContext } from "../runtime.js";

/** GET /openapi.json and the reference page at /docs. */
export function openApiRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
