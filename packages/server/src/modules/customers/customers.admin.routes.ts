import {
  ADMIN_OPERATIONS,
  type AdminCustomer,
  type AdminCustomerSummary,
  type adminTransactionSchema,
  type CustomerExport,
} from "@loyalty/shared-types";
import { Router } from "express";
import type { z } from "zod";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
import type { AdminCustomerRow } from "./customers.admin.repository.js";
import {
  CustomersAdminService,
  type CustomerRecord,
  type CustomerSummary,
} from "./customers.admin.service.js";
import type { HistoryTransactionRow } from "./customers.repository.js";

function adminCustomerView(row: AdminCustomerRow): AdminCustomer {
  return {
    externalId: row.externalId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    language: row.language,
    balance: row.balance,
    reservedPoints: row.reservedPoints,
    createdAt: row.createdAt.toISOString(),
    erasedAt: row.erasedAt?.toISOString() ?? null,
  };
}

function customerSummaryView({
  customer,
  earnedLast12Months,
  club,
}: CustomerSummary): AdminCustomerSummary {
  return {
    ...adminCustomerView(customer),
    earnedLast12Months,
    club: club && { id: club.id, name: club.name, multiplier: club.multiplier },
  };
}

function adminTransactionView(row: HistoryTransactionRow): z.infer<typeof adminTransactionSchema> {
  return {
    id: row.id,
    kind: row.kind,
    points: row.points,
    balanceAfter: row.balance_after,
    note: row.note,
    orderExternalId: row.order_external_id,
    rewardId: row.reward_id,
    referralId: row.referral_id,
    createdAt: row.created_at.toISOString(),
  };
}

function customerExportView(record: CustomerRecord, store: { id: number; domain: string }) {
  return {
    exportedAt: record.exportedAt.toISOString(),
    store: { id: store.id, domain: store.domain },
    customer: adminCustomerView(record.customer),
    orders: record.orders.map((order) => ({
      externalId: order.externalId,
      externalReference: order.externalReference,
      currency: order.currency,
      orderedAt: order.orderedAt.toISOString(),
      pointsEarned: order.pointsEarned,
      pointsDeducted: order.pointsDeducted,
      refundStatus: order.refundStatus,
      payload: order.payload,
    })),
    transactions: record.transactions.map(adminTransactionView),
    claims: record.claims.map((claim) => ({
      rewardId: claim.rewardId,
      code: claim.code,
      points: claim.points,
      status: claim.status,
      expiresAt: claim.expiresAt?.toISOString() ?? null,
      createdAt: claim.createdAt.toISOString(),
    })),
    referralsMade: record.referralsMade.map((referral) => ({
      id: referral.id,
      email: referral.email,
      firstName: referral.firstName,
      lastName: referral.lastName,
      status: referral.status,
      createdAt: referral.createdAt.toISOString(),
      completedAt: referral.completedAt?.toISOString() ?? null,
    })),
    referredBy: record.referredBy ?? null,
  } satisfies CustomerExport;
}

/** Back-office: customers (search, ledger, point adjustments, export, erasure). */
export function customersAdminRoutes(context: AppContext): Router {
  const customers = new CustomersAdminService(context.pool, context.clock);
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.searchCustomers, async ({ store, query }) => {
    const page = await customers.search(store.id, query.query, query);
    return {
      customers: page.customers.map(customerSummaryView),
      nextCursor: page.nextCursor,
    };
  });

  adminRoute(router, context, ADMIN_OPERATIONS.getAdminCustomer, async ({ store, params }) =>
    customerSummaryView(await customers.summary(store.id, params.externalId)),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.adjustCustomerPoints,
    async ({ store, params, body }) => {
      const { transaction, balance } = await customers.adjust(store.id, params.externalId, body);
      return { transaction: adminTransactionView(transaction), balance };
    },
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.listCustomerTransactions,
    async ({ store, params, query }) => {
      const page = await customers.transactions(store.id, params.externalId, query);
      return {
        transactions: page.transactions.map(adminTransactionView),
        nextCursor: page.nextCursor,
      };
    },
  );
  adminRoute(router, context, ADMIN_OPERATIONS.exportCustomer, async ({ store, params }) =>
    customerExportView(await customers.export(store.id, params.externalId), store),
  );
  adminRoute(router, context, ADMIN_OPERATIONS.eraseCustomer, async ({ store, params }) => {
    const erased = await customers.erase(store.id, params.externalId);
    return {
      externalId: erased.externalId,
      erasedAt: (erased.erasedAt as Date).toISOString(),
      balance: erased.balance,
    };
  });
  return router;
}
