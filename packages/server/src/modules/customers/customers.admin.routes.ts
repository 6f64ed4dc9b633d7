import { Router } from "express";
import type { AppContext } from "../../runtime.js";

/** Back-office: customers (point adjustments, export, erasure). */
export function customersAdminRoutes(_context: AppContext): Router {
  const router = Router();
  return router;
}
