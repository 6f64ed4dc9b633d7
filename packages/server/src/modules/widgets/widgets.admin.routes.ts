import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: widget configurations. */
export function widgetsAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
