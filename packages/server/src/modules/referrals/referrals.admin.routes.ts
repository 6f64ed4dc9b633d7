import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: the referral programme. */
export function referralsAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
