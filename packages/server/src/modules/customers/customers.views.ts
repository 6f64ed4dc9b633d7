import {
  type AdminCustomer,
  type ClubQualification,
  type ClubSummary,
  type CustomerHistoryResponse,
  type AdminCustomerSummary,
  type adminTransactionSchema,
  type CustomerExport,
} from "@loyalty/shared-types";
import type { z } from "zod";
import type { AdminCustomerRow } from "./customers.admin.repository.js";
import type { CustomerRecord, CustomerSummary } from "./customers.admin.service.js";
import type { ClubQualificationFigures, CustomerHistory } from "./customers.service.js";
import type { Club } from "../points/clubs.js";
import type { HistoryTransactionRow } from "./customers.repository.js";
import { JsonText } from "../../http/operation.js";

/** What the customer operations answer, in the back-office and on the storefront. */

export function adminCustomerView(row: AdminCustomerRow): AdminCustomer {
  return {
    externalId: row.externalId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    language: row.language,
    balance: row.balance,
    reservedPoints: row.reservedPoints,
    pendingPoints: row.pendingPoints,
    createdAt: row.createdAt.toISOString(),
    erasedAt: row.erasedAt?.toISOString() ?? null,
  };
}

export function clubQualificationView(figures: ClubQualificationFigures): ClubQualification {
  return {
    ...figures.policy,
    figure: figures.figure,
    periodStart: figures.periodStart?.toISOString() ?? null,
    keptUntil: figures.keptUntil?.toISOString() ?? null,
  };
}

export function customerSummaryView({
  customer,
  earnedLast12Months,
  club,
  clubQualification,
}: CustomerSummary): AdminCustomerSummary {
  return {
    ...adminCustomerView(customer),
    earnedLast12Months,
    club: club && { id: club.id, name: club.name, multiplier: club.multiplier },
    clubQualification: clubQualificationView(clubQualification),
  };
}

export function adminTransactionView(
  row: HistoryTransactionRow,
): z.infer<typeof adminTransactionSchema> {
  return {
    id: row.id,
    kind: row.kind,
    points: row.points,
    balanceAfter: row.balance_after,
    note: row.note,
    orderExternalId: row.order_external_id,
    rewardId: row.reward_id,
    referralId: row.referral_id,
    activity: row.activity,
    createdAt: row.created_at.toISOString(),
    pendingPoints: row.pending_points,
    availableAt: row.available_at?.toISOString() ?? null,
  };
}

export function customerExportView(record: CustomerRecord, store: { id: number; domain: string }) {
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

function clubSummary({ id, name, threshold, multiplier }: Club): ClubSummary {
  return { id, name, threshold, multiplier };
}

/**
 * GET /point/user-history/{externalId}, as JSON text: the head here, then the page's
 * transactions as PostgreSQL wrote them (storefrontHistoryPages), in the request's revision
 * (orders by `externalRef` in 2026-01-01, by number after). Keys in the order of
 * CustomerHistoryResponse.
 */
export function historyView(history: CustomerHistory): JsonText {
  const {
    club,
    nextClub,
    transactionsJson,
    negativeBalance,
    nextExpiry,
    clubQualification,
    ...figures
  } = history;
  const head = {
    ...figures,
    clubQualification: clubQualificationView(clubQualification),
    club: club && clubSummary(club),
    nextClub: nextClub && { ...clubSummary(nextClub), pointsToReach: nextClub.pointsToReach },
    nextExpiry: nextExpiry && {
      points: nextExpiry.points,
      expiresAt: nextExpiry.expiresAt.toISOString(),
    },
    negativeBalance: negativeBalance && {
      points: negativeBalance.points,
      reason:
        negativeBalance.kind === "manual_adjustment"
          ? ("store-adjustment" as const)
          : ("refund-after-spending" as const),
      transactionId: negativeBalance.transactionId,
    },
  } satisfies Omit<CustomerHistoryResponse, "transactions">;
  // The head is an object with keys: its closing brace makes way for the transactions.
  return new JsonText(`${JSON.stringify(head).slice(0, -1)},"transactions":${transactionsJson}}`);
}
