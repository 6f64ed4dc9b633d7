import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: attribution rules and clubs. */
export function pointsAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
