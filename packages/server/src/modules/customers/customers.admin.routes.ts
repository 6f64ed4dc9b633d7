import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import {
  adminTransactionView,
  customerExportView,
  customerSummaryView,
} from "./customers.views.js";

/** Back-office: customers (search, ledger, point adjustments, export, erasure). */
export function customersAdminRoutes({
  customersAdmin,
}: Pick<Services, "customersAdmin">): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.searchCustomers, async ({ store, query }) => {
      const page = await customersAdmin.search(store.id, query.query, query);
      return {
        customers: page.customers.map(customerSummaryView),
        nextCursor: page.nextCursor,
      };
    }),

    operationRoute(ADMIN_OPERATIONS.getAdminCustomer, async ({ store, params }) =>
      customerSummaryView(await customersAdmin.summary(store.id, params.externalId)),
    ),
    operationRoute(ADMIN_OPERATIONS.adjustCustomerPoints, async ({ store, params, body }) => {
      const { transaction, balance } = await customersAdmin.adjust(
        store.id,
        params.externalId,
        body,
      );
      return { transaction: adminTransactionView(transaction), balance };
    }),
    operationRoute(ADMIN_OPERATIONS.listCustomerTransactions, async ({ store, params, query }) => {
      const page = await customersAdmin.transactions(store.id, params.externalId, query);
      return {
        transactions: page.transactions.map(adminTransactionView),
        nextCursor: page.nextCursor,
      };
    }),
    operationRoute(ADMIN_OPERATIONS.exportCustomer, async ({ store, params }) =>
      customerExportView(await customersAdmin.export(store.id, params.externalId), store),
    ),
    operationRoute(ADMIN_OPERATIONS.eraseCustomer, async ({ store, params }) => {
      const erased = await customersAdmin.erase(store.id, params.externalId);
      return {
        externalId: erased.externalId,
        erasedAt: (erased.erasedAt as Date).toISOString(),
        balance: erased.balance,
      };
    }),
  ];
}
