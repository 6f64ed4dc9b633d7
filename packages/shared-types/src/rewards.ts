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

/**
 * What a discount code gives: fixed amount off, percentage off or free shipping, with an
 * optional minimum order and a validity from the day the code is issued.
 */
export const voucherTermsSchema = z.object({
  kind: voucherKindSchema,
  /** Amount off (fixed_amount, in `currency`) or percentage off, to the hundredth (stored so:
   * a finer value would be rounded, 0.001 % to nothing); null for free shipping. */
  value: z.number().min(0).max(1_000_000_000).multipleOf(0.01).nullable(),
  /** The currency of a fixed amount off; null for the other kinds. */
  currency: currencySchema.nullable(),
  minimumOrderAmount: moneySchema.multipleOf(0.01).nullable(),
  /** Days a code stays valid after it is issued; null for no expiry. */
  validityDays: z.number().int().min(1).max(36_500).nullable(),
});
export type VoucherTerms = z.infer<typeof voucherTermsSchema>;

/**
 * Each kind with the fields it needs: a value for an amount or a percentage (at most 100),
 * none for free shipping, and a currency for a fixed amount only.
 */
function checkVoucherTerms(terms: VoucherTerms, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) =>
    ctx.addIssue({ code: "custom", path: [path], message });
  if (terms.kind === "free_shipping") {
    if (terms.value !== null) issue("value", "must be null for free shipping");
  } else if (terms.value === null) {
    issue("value", `is required for ${terms.kind}`);
  } else if (terms.value === 0) {
    issue("value", "must be more than 0");
  }
  if (terms.kind === "percentage" && terms.value !== null && terms.value > 100) {
    issue("value", "must be at most 100 for a percentage");
  }
  if (terms.kind === "fixed_amount" && terms.currency === null) {
    issue("currency", "is required for a fixed amount");
  }
  // The currency is the fixed amount's: on another kind it would say nothing, or mislead.
  if (terms.kind !== "fixed_amount" && terms.currency !== null) {
    issue("currency", `must be null for ${terms.kind}`);
  }
}

/** Terms as the back-office writes them: what a kind does not use may be left out. */
const voucherTermsInputFields = {
  kind: voucherKindSchema,
  value: voucherTermsSchema.shape.value.default(null),
  currency: voucherTermsSchema.shape.currency.default(null),
  minimumOrderAmount: voucherTermsSchema.shape.minimumOrderAmount.default(null),
  validityDays: voucherTermsSchema.shape.validityDays.default(null),
};

/** Voucher terms as the back-office writes them (a referral programme's referee voucher). */
export const voucherTermsInputSchema = z
  .object(voucherTermsInputFields)
  .superRefine(checkVoucherTerms);

/** A reward's voucher as the back-office writes it: terms and an optional total usage limit. */
export const voucherInputSchema = z
  .object({
    ...voucherTermsInputFields,
    /** Total codes the voucher may issue; null for no limit. */
    usageLimit: z.number().int().min(1).max(1_000_000_000).nullable().default(null),
  })
  .superRefine(checkVoucherTerms);
export type VoucherInput = z.input<typeof voucherInputSchema>;

/** The current version of a reward's voucher, as a storefront shows it. */
export const voucherSchema = voucherTermsSchema.extend({
  /** Increases with every edit; only the current version is ever listed. */
  version: z.number().int().min(1),
  /** Total codes this voucher may issue; null for no limit. A reward whose voucher issued them
   * all is left out of the list. */
  usageLimit: z.number().int().min(1).nullable(),
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

/** The most codes the customer's code list gives: the newest. */
export const MAX_CUSTOMER_CODES = 100;

/**
 * A code the customer claimed and can still use: confirmed, not expired, and named by none of
 * their orders' `discountCodes`. `voucher` is what the code was issued with (a later edit of the
 * reward's voucher does not change a code already given).
 */
export const customerCodeSchema = z.object({
  code: z.string(),
  rewardId: externalIdSchema,
  rewardName: z.string(),
  pointsSpent: pointsSchema.min(0),
  claimedAt: isoDateTimeSchema,
  /** Null for a code that never expires. */
  expiresAt: isoDateTimeSchema.nullable(),
  voucher: voucherTermsSchema.pick({
    kind: true,
    value: true,
    currency: true,
    minimumOrderAmount: true,
  }),
});
export type CustomerCode = z.infer<typeof customerCodeSchema>;

/** GET /reward/codes/{externalId}: the customer's usable codes, newest first. */
export const customerCodesResponseSchema = z.object({
  codes: z.array(customerCodeSchema).max(MAX_CUSTOMER_CODES),
});
export type CustomerCodesResponse = z.infer<typeof customerCodesResponseSchema>;
