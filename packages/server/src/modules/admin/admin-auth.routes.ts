import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { AdminAuthService } from "./admin-auth.service.js";

/** POST /admin/token: an admin's email and password for a short-lived bearer token. */
export function adminAuthRoutes({ adminAuth }: { adminAuth: AdminAuthService }): OperationRoute[] {
  return [
    // RFC 6749 §5.1: a token response is never cached.
    operationRoute(ADMIN_OPERATIONS.createAdminToken, ({ body }) => adminAuth.issueToken(body), {
      headers: { Pragma: "no-cache" },
    }),
  ];
}
