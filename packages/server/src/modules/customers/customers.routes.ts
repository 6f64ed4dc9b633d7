import { customerHistoryQuerySchema, type ApiRevision } from "@loyalty/shared-types";
import { Router } from "express";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { hmacAuth } from "../../auth/hmac.middleware.js";
import { parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";
import type { CustomersService } from "./customers.service.js";

/**
 * GET /point/user-history/{externalId} (HMAC hash). Its only errors are 401 and the revision
 * reasons: every parameter the hash check does not refuse is read, never refused.
 */
export function customersRoutes(context: AppContext, customers: CustomersService): Router {
  const { apiKeys, rateLimits } = context.services;
  const router = Router();

  router.get(
    "/point/user-history/:externalId",
    rateLimits.guard(hmacAuth(apiKeys, "path")),
    async (req, res) => {
      const query = parseRequest(customerHistoryQuerySchema, req.query, "query", "unauthorized");
      const history = await customers.history(
        req.store as AuthenticatedStore,
        req.customerExternalId as number,
        { limit: query.limit, cursor: query.cursor },
        req.revision as ApiRevision,
      );
      // A customer's own figures, changing with every order: no shared cache may keep them, and
      // the browser revalidates (the ETag makes that a 304 while nothing changed). The revision
      // changes how orders are named.
      res.set("Cache-Control", "private, no-cache").vary("revision").json(history);
    },
  );

  return router;
}
