import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: webhook endpoints. */
export function webhooksAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
