import { z } from "zod";
import {
  customerHashSchema,
  domainSchema,
  externalIdSchema,
  externalIdTextSchema,
  isoDateTimeSchema,
  pointsSchema,
} from "./common.js";

/** Query of the HMAC-authenticated customer operations. */
export const customerAuthQuerySchema = z.object({
  hash: customerHashSchema,
  domain: domainSchema,
  /** Repeated from the path by some integrations; must then be equal to it. */
  externalId: externalIdTextSchema.optional(),
});

export const customerPathSchema = z.object({ externalId: externalIdTextSchema });

/** GET /point/user-history/{externalId}: paging on top of the HMAC parameters. */
export const customerHistoryQuerySchema = customerAuthQuerySchema.extend({
  /** Transactions per page, 1 to 100 (default 20); values out of range are clamped. */
  limit: z.string().optional(),
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor: z.string().optional(),
});

export const ledgerKindSchema = z.enum([
  "earn",
  "refund_deduction",
  "reward_redemption",
  "referral_bonus",
  "manual_adjustment",
  "expiry",
]);
export type LedgerKind = z.infer<typeof ledgerKindSchema>;

export const ledgerTransactionSchema = z.object({
  id: externalIdSchema,
  kind: ledgerKindSchema,
  /** Signed: positive credits, negative debits. */
  points: pointsSchema,
  balanceAfter: pointsSchema,
  /** The order concerned (earn, refund deduction), with the revision's identifier. */
  order: z
    .object({
      externalId: z.string(),
      externalReference: z.string().nullable(),
    })
    .nullable(),
  rewardId: externalIdSchema.nullable(),
  referralId: externalIdSchema.nullable(),
  /** A human-readable reason (the admin's note for manual adjustments). */
  note: z.string().nullable(),
  createdAt: isoDateTimeSchema,
});
export type LedgerTransaction = z.infer<typeof ledgerTransactionSchema>;

export const clubSummarySchema = z.object({
  id: externalIdSchema,
  name: z.string(),
  /** Points earned over the last 12 months needed to belong. */
  threshold: pointsSchema.min(0),
  /** Earn multiplier of the club (1 = none). */
  multiplier: z.number().min(0),
});
export type ClubSummary = z.infer<typeof clubSummarySchema>;

export const customerHistoryResponseSchema = z.object({
  externalId: externalIdSchema,
  /** May be negative when points of a refunded order had already been spent. */
  balance: pointsSchema,
  /** Points earned over the rolling last 12 months: what clubs are measured on. */
  earnedLast12Months: pointsSchema.min(0),
  club: clubSummarySchema.nullable(),
  nextClub: clubSummarySchema.extend({ pointsToReach: pointsSchema.min(0) }).nullable(),
  /** Newest first. */
  transactions: z.array(ledgerTransactionSchema),
  /** Pass as `cursor` to read the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type CustomerHistoryResponse = z.infer<typeof customerHistoryResponseSchema>;
