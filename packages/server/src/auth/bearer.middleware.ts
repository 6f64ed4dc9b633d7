import { AppError } from "../errors.js";
import type { Authenticator } from "../http/rate-limit.middleware.js";
import type { AdminAuthService } from "../modules/admin/admin-auth.service.js";

const REALM = 'Bearer realm="Loyalty back-office"';

/**
 * Bearer authentication of the back-office: sets `req.admin` or answers 401 (no token, a
 * malformed, forged or expired one: RFC 6750's WWW-Authenticate says which). An operation for
 * the whole service answers 403 to a store's token.
 */
export function bearerAuth(adminAuth: AdminAuthService, scope: "service" | "store"): Authenticator {
  return async (req, res) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    if (!token) {
      res.setHeader("WWW-Authenticate", REALM);
      throw new AppError(
        "unauthorized",
        "Send an access token from POST /admin/token as Authorization: Bearer <token>.",
      );
    }
    try {
      req.admin = await adminAuth.authenticate(token);
    } catch (error) {
      if (error instanceof AppError && error.reason === "unauthorized") {
        res.setHeader("WWW-Authenticate", `${REALM}, error="invalid_token"`);
      }
      throw error;
    }
    if (scope === "service" && req.admin.storeId !== null) {
      res.setHeader("WWW-Authenticate", `${REALM}, error="insufficient_scope"`);
      throw new AppError("forbidden", "This operation needs a token for the whole service.");
    }
    return { identity: { policy: "admin", key: String(req.admin.userId) } };
  };
}
