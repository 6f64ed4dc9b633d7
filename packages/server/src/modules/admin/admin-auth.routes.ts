import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { Router } from "express";
import { operationBody } from "../../http/body.js";
import { expressPath } from "../../http/operation-route.js";
import type { AdminAuthService } from "./admin-auth.service.js";

/** POST /admin/token: an admin's email and password for a short-lived bearer token. */
export function adminAuthRoutes(adminAuth: AdminAuthService, bodyLimit: string): Router {
  const router = Router();
  const operation = ADMIN_OPERATIONS.createAdminToken;
  router.post(
    expressPath(operation.path),
    ...operationBody(operation, bodyLimit),
    async (req, res) => {
      const token = await adminAuth.issueToken(req.body ?? {});
      // RFC 6749 §5.1: a token response is never cached.
      res.set({ "Cache-Control": "no-store", Pragma: "no-cache" });
      res.status(operation.successStatus).json(token);
    },
  );
  return router;
}
