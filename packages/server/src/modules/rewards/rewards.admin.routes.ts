import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: rewards and their vouchers. */
export function rewardsAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
