import { OPERATIONS, usesLegacyOrderRef } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { CustomersService } from "./customers.service.js";
import { historyView } from "./customers.views.js";

/**
 * GET /point/user-history/{externalId} (HMAC hash). Its only errors are 401 and the revision
 * reasons: every parameter the hash check does not refuse is read, never refused.
 *
 * A customer's own figures, changing with every order: no shared cache may keep them, and the
 * browser revalidates (the ETag makes that a 304 while nothing changed). The revision changes
 * how orders are named.
 */
export function customersRoutes({ customers }: { customers: CustomersService }): OperationRoute[] {
  return [
    operationRoute(
      OPERATIONS.getCustomerHistory,
      async ({ store, customerId, query, revision }) =>
        historyView(
          await customers.history(
            store,
            customerId,
            { limit: query.limit, cursor: query.cursor },
            usesLegacyOrderRef(revision),
          ),
        ),
      { cacheControl: "private, no-cache", vary: "revision" },
    ),
  ];
}
