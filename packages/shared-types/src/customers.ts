import { z } from "zod";
import {
  customerHashSchema,
  domainSchema,
  externalIdSchema,
  externalIdTextSchema,
  isoDateTimeSchema,
  numberQuerySchema,
  pointsSchema,
} from "./common.js";
import {
  orderExternalIdSchema,
  orderExternalRefSchema,
  orderExternalReferenceSchema,
} from "./orders.js";
import { CLUB_BASES, CLUB_DOWNGRADES, CLUB_PERIODS } from "./program.js";
import { usesLegacyOrderRef, type ApiRevision } from "./revisions.js";

/** Query of the HMAC-authenticated customer operations. */
export const customerAuthQuerySchema = z.object({
  hash: customerHashSchema,
  domain: domainSchema,
  /** Repeated from the path by some integrations; must then be equal to it. */
  externalId: externalIdTextSchema.optional(),
});

export const customerPathSchema = z.object({ externalId: externalIdTextSchema });

/** Transactions per page of the customer history. */
export const HISTORY_PAGE_LIMIT = { default: 20, min: 1, max: 100 } as const;

/**
 * The history may answer only 401 and the revision reasons, so paging parameters never fail:
 * they are read as well as they can be, and a repeated one is ignored.
 */
export const historyPageQuerySchema = z.object({
  /**
   * Transactions per page, 1 to 100 (default 20). Values out of range are clamped, decimals
   * rounded down; a value that is not a number gets the default.
   */
  limit: numberQuerySchema
    .optional()
    .catch(undefined)
    .transform((limit) =>
      limit === undefined
        ? HISTORY_PAGE_LIMIT.default
        : Math.min(HISTORY_PAGE_LIMIT.max, Math.max(HISTORY_PAGE_LIMIT.min, Math.floor(limit))),
    ),
  /**
   * Opaque: the `nextCursor` of the previous page; omit it for the first page. A cursor the
   * service did not issue reads as the end of the list: no transactions and a null
   * `nextCursor`, with the balance and club as usual.
   */
  cursor: z.string().optional().catch(undefined),
});

/** GET /point/user-history/{externalId}: paging on top of the HMAC parameters. */
export const customerHistoryQuerySchema = customerAuthQuerySchema.extend(
  historyPageQuerySchema.shape,
);
export type CustomerHistoryQuery = z.infer<typeof customerHistoryQuerySchema>;
export type CustomerHistoryQueryInput = z.input<typeof customerHistoryQuerySchema>;

export const ledgerKindSchema = z.enum([
  "earn",
  "refund_deduction",
  "reward_redemption",
  "referral_bonus",
  "manual_adjustment",
  "expiry",
  "activity_bonus",
]);
export type LedgerKind = z.infer<typeof ledgerKindSchema>;

/** Revision 2026-01-01 names the order a transaction concerns as it was registered then. */
export const historyOrderV1Schema = z.object({ externalRef: orderExternalRefSchema });

/**
 * From revision 2026-06-18. `externalId` is a number whenever the order's identifier is a
 * whole number written plainly (every order registered from 2026-06-18, and 2026-01-01 orders
 * whose `externalRef` was such as "1001"): the value to send to refund it. An order registered
 * in 2026-01-01 under any other `externalRef` ("A-1001", "007") keeps it as text, since no
 * number names it.
 */
export const historyOrderV2Schema = z.object({
  externalId: z.union([orderExternalIdSchema, orderExternalRefSchema]),
  externalReference: orderExternalReferenceSchema.nullable(),
});

const ledgerTransactionFields = {
  id: externalIdSchema,
  kind: ledgerKindSchema,
  /** Signed: positive credits, negative debits. */
  points: pointsSchema,
  balanceAfter: pointsSchema,
  /** The reward bought (reward redemption). */
  rewardId: externalIdSchema.nullable(),
  /** The discount code the reward redemption obtained: the customer may look it up here. */
  voucherCode: z.string().nullable(),
  /** The referral rewarded (referral bonus). */
  referralId: externalIdSchema.nullable(),
  /** The activity rewarded (activity bonus): the store's id for it, its kind and its name. */
  activity: z.object({ id: z.string(), kind: z.string(), label: z.string() }).nullable(),
  /** A human-readable reason (the admin's note for manual adjustments). */
  note: z.string().nullable(),
  createdAt: isoDateTimeSchema,
  /**
   * How this transaction moved the pending points: an earning held by the store's pending
   * period adds all its points, a refund within the period takes its points back from them
   * (negative). 0 for everything else, and always 0 when the store has no pending period.
   */
  pendingPoints: pointsSchema,
  /** An earning held by the pending period: when its points become (or became) spendable. */
  availableAt: isoDateTimeSchema.nullable(),
  /** True while the points of this earning are still pending. */
  pending: z.boolean(),
};

export const ledgerTransactionV1Schema = z.object({
  ...ledgerTransactionFields,
  /** The order concerned (earn, refund deduction). */
  order: historyOrderV1Schema.nullable(),
});
export const ledgerTransactionV2Schema = z.object({
  ...ledgerTransactionFields,
  /** The order concerned (earn, refund deduction). */
  order: historyOrderV2Schema.nullable(),
});
export type LedgerTransactionV1 = z.infer<typeof ledgerTransactionV1Schema>;
export type LedgerTransactionV2 = z.infer<typeof ledgerTransactionV2Schema>;

export const clubSummarySchema = z.object({
  id: externalIdSchema,
  name: z.string(),
  /** Points earned over the last 12 months needed to belong. */
  threshold: pointsSchema.min(0),
  /** Earn multiplier of the club (1 = none). */
  multiplier: z.number().min(0),
});
export type ClubSummary = z.infer<typeof clubSummarySchema>;

/**
 * Why the points the customer can spend are below zero: the transaction that did it, which the
 * history lists. `refund-after-spending`: an order was refunded after its points were spent;
 * `store-adjustment`: the store took points back by hand.
 */
export const negativeBalanceSchema = z.object({
  /** How far below zero the spendable points are. */
  points: pointsSchema.min(1),
  reason: z.enum(["refund-after-spending", "store-adjustment"]),
  transactionId: externalIdSchema,
});
export type NegativeBalance = z.infer<typeof negativeBalanceSchema>;

/** The figure clubs are measured on, for one customer, over the store's period. */
export const clubQualificationSchema = z.object({
  basis: z.enum(CLUB_BASES),
  period: z.enum(CLUB_PERIODS),
  downgrade: z.enum(CLUB_DOWNGRADES),
  /** Points earned, or amount spent in the store's currency, over the period so far. */
  figure: z.number(),
  /** When the period counted began; null for `lifetime`. */
  periodStart: isoDateTimeSchema.nullable(),
  /** When the club is reviewed next when it may be lost (end-of-period downgrades, a calendar year's end); null when it is kept for ever, or lost as soon as the figure falls. */
  keptUntil: isoDateTimeSchema.nullable(),
});
export type ClubQualification = z.infer<typeof clubQualificationSchema>;

const customerHistoryFields = {
  externalId: externalIdSchema,
  /**
   * Every point the customer holds: `availablePoints` + `pendingPoints`, the sum of the
   * transactions. May be negative when points of a refunded order had already been spent.
   */
  balance: pointsSchema,
  /** What the customer can spend now. Equal to `balance` unless the store has a pending period. */
  availablePoints: pointsSchema,
  /** Points earned by orders still within the store's pending period: not spendable yet. */
  pendingPoints: pointsSchema.min(0),
  /** When the spendable points are below zero, why; null otherwise. */
  negativeBalance: negativeBalanceSchema.nullable(),
  /**
   * The next points to expire under the store's expiry policy, and when: null when the store's
   * points never expire or the customer has none that will.
   */
  nextExpiry: z.object({ points: pointsSchema.min(1), expiresAt: isoDateTimeSchema }).nullable(),
  /** Points earned over the rolling last 12 months: what clubs are measured on. */
  earnedLast12Months: pointsSchema.min(0),
  /** The highest club reached; null below the lowest threshold or when the store has none. */
  club: clubSummarySchema.nullable(),
  /**
   * The club above, with what is still to earn; null at the top. For a store whose clubs count
   * the amount spent, `pointsToReach` is the amount still to spend, in whole units of the
   * store's currency (rounded up).
   */
  nextClub: clubSummarySchema.extend({ pointsToReach: pointsSchema.min(0) }).nullable(),
  /** What the club is measured on, as the store set it, and where the customer stands. */
  clubQualification: clubQualificationSchema,
  /** Pass as `cursor` to read the next page; null on the last page. */
  nextCursor: z.string().nullable(),
};

export const customerHistoryResponseV1Schema = z.object({
  ...customerHistoryFields,
  /** Newest first. */
  transactions: z.array(ledgerTransactionV1Schema),
});
export const customerHistoryResponseV2Schema = z.object({
  ...customerHistoryFields,
  /** Newest first. */
  transactions: z.array(ledgerTransactionV2Schema),
});
export type CustomerHistoryResponseV1 = z.infer<typeof customerHistoryResponseV1Schema>;
export type CustomerHistoryResponseV2 = z.infer<typeof customerHistoryResponseV2Schema>;
export type CustomerHistoryResponse = CustomerHistoryResponseV1 | CustomerHistoryResponseV2;

/** The history response of a revision: 2026-01-01 or the one of 2026-06-18 and later. */
export function customerHistoryResponseSchemaFor(revision: ApiRevision) {
  return usesLegacyOrderRef(revision)
    ? customerHistoryResponseV1Schema
    : customerHistoryResponseV2Schema;
}
