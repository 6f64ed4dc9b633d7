import { z } from "zod";
import {
  currencySchema,
  domainSchema,
  externalIdSchema,
  isoDateTimeSchema,
  moneySchema,
  pointsSchema,
} from "./common.js";

export const voucherKindSchema = z.enum(["fixed_amount", "percentage", "free_shipping"]);
export type VoucherKind = z.infer<typeof voucherKindSchema>;

/** The current version of a reward's voucher, as a storefront shows it. */
export const voucherSchema = z.object({
  /** Increases with every edit; only the current version is ever listed. */
  version: z.number().int().min(1),
  kind: voucherKindSchema,
  /** Amount off (fixed_amount, in `currency`) or percentage off; null for free shipping. */
  value: z.number().min(0).nullable(),
  currency: currencySchema.nullable(),
  minimumOrderAmount: moneySchema.nullable(),
  /** Days a code stays valid after it is issued; null for no expiry. */
  validityDays: z.number().int().min(1).nullable(),
  /** Total codes this voucher may issue; null for no limit. */
  usageLimit: z.number().int().min(1).nullable(),
  remainingUses: z.number().int().min(0).nullable(),
});
export type Voucher = z.infer<typeof voucherSchema>;

export const rewardListQuerySchema = z.object({ domain: domainSchema });

export const rewardSchema = z.object({
  id: externalIdSchema,
  name: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  /** Cost in points; the list is sorted by it, ascending. */
  triggerValue: pointsSchema.min(1),
  voucher: voucherSchema,
});
export type Reward = z.infer<typeof rewardSchema>;

export const rewardListResponseSchema = z.array(rewardSchema);
export type RewardListResponse = z.infer<typeof rewardListResponseSchema>;

/** POST /reward/claim/{externalId} body. */
export const claimRewardRequestSchema = z.object({ rewardId: externalIdSchema });
export type ClaimRewardRequest = z.infer<typeof claimRewardRequestSchema>;

/** 201: the single-use code, bound to the customer's email on the store's platform. */
export const claimRewardResponseSchema = z.object({
  code: z.string(),
  rewardId: externalIdSchema,
  pointsSpent: pointsSchema.min(0),
  /** The balance after the claim. */
  balance: pointsSchema,
  expiresAt: isoDateTimeSchema.nullable(),
  voucher: voucherSchema,
});
export type ClaimRewardResponse = z.infer<typeof claimRewardResponseSchema>;

export const claimRefusalReasonSchema = z.enum([
  "insufficient-balance",
  "voucher-inactive",
  "usage-limit-reached",
]);

/**
 * 404 `application/json` (not a problem object): the exchange is refused. `code` is null;
 * `reason` says why, for the storefront to explain.
 */
export const claimRefusalSchema = z.object({
  code: z.null(),
  reason: claimRefusalReasonSchema,
});
export type ClaimRefusal = z.infer<typeof claimRefusalSchema>;
