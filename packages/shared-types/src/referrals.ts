import { z } from "zod";
import {
  customerHashSchema,
  domainSchema,
  emailSchema,
  externalIdTextSchema,
  isoDateTimeSchema,
  languageSchema,
  personNameSchema,
  pointsSchema,
} from "./common.js";
import { voucherTermsInputSchema, voucherTermsSchema } from "./rewards.js";

/** POST /point/referral query: the referrer, authenticated by the customer HMAC. */
export const createReferralQuerySchema = z.object({
  externalId: externalIdTextSchema,
  hash: customerHashSchema,
  domain: domainSchema,
});

export const createReferralRequestSchema = z.object({
  /** The invited person's address; the invitation is sent there. */
  email: emailSchema,
  firstName: personNameSchema.optional(),
  lastName: personNameSchema.optional(),
  /** Language of the invitation email; the store's default language otherwise. */
  language: languageSchema.optional(),
});
export type CreateReferralRequest = z.infer<typeof createReferralRequestSchema>;

export const referralStatusSchema = z.enum(["pending", "completed"]);

export const createReferralResponseSchema = z.object({
  /** Unguessable referral hash, given to the invited person to fetch their code. */
  hash: z.string(),
  status: referralStatusSchema,
  email: emailSchema,
});
export type CreateReferralResponse = z.infer<typeof createReferralResponseSchema>;

/** The parameter of an invitation's link that carries the referral hash. */
export const REFERRAL_LINK_PARAMETER = "loyalty_referral";

/** What the storefront tells a customer about inviting a friend. */
export const referralOfferSchema = z.object({
  /** Points the customer earns when the friend's first order is registered. */
  referrerBonus: pointsSchema.min(0),
  /** What the friend's code gives. */
  refereeVoucher: voucherTermsSchema,
  /**
   * The page an invitation links to (the programme's `landingUrl`, else the store's home page).
   * With `loyalty_referral=<hash>` added, it is the link a customer shares with the friend they
   * invited, by other means than the email.
   */
  landingUrl: z.string(),
});
export type ReferralOffer = z.infer<typeof referralOfferSchema>;

/** POST /reward/referral/get-referee-code body: the referral hash from the invitation. */
export const refereeCodeRequestSchema = z.object({
  referralHash: z.string().trim().min(1).max(200),
});
export type RefereeCodeRequest = z.infer<typeof refereeCodeRequestSchema>;

/** The referee's discount code: issued once, the same code on every later request. */
export const refereeCodeResponseSchema = z.object({
  code: z.string(),
  /** What the code gives, as the store's referral programme said when the invitation left. */
  voucher: voucherTermsSchema,
  /** When the code stops being valid; null for no expiry. */
  expiresAt: isoDateTimeSchema.nullable(),
});
export type RefereeCodeResponse = z.infer<typeof refereeCodeResponseSchema>;

/**
 * A store's referral programme, as the back-office sets it. The terms an invitation promises
 * are kept with it: later edits of the programme never change a pending invitation.
 */
export const referralProgramSchema = z.object({
  /** False: POST /point/referral refuses new referrals; pending ones still complete. */
  active: z.boolean().default(true),
  /** Points the referrer earns when the referee's first order is registered. */
  referrerBonus: pointsSchema.min(0).max(1_000_000),
  /** The discount code the referee gets with get-referee-code. */
  refereeVoucher: voucherTermsInputSchema,
  /** The page the invitation links to, with `loyalty_referral=<hash>`; the store's home page when null. */
  landingUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .default(null),
});
export type ReferralProgram = z.output<typeof referralProgramSchema>;
export type ReferralProgramInput = z.input<typeof referralProgramSchema>;
