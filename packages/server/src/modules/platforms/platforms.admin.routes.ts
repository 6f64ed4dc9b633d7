import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: the platform connection. */
export function platformsAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
