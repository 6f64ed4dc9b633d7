import { z } from "zod";
import {
  customerHashSchema,
  domainSchema,
  emailSchema,
  externalIdTextSchema,
  languageSchema,
} from "./common.js";
import { voucherSchema } from "./rewards.js";

/** POST /point/referral query: the referrer, authenticated by the customer HMAC. */
export const createReferralQuerySchema = z.object({
  externalId: externalIdTextSchema,
  hash: customerHashSchema,
  domain: domainSchema,
});

export const createReferralRequestSchema = z.object({
  /** The invited person's address; the invitation is sent there. */
  email: emailSchema,
  firstName: z.string().trim().max(100).optional(),
  lastName: z.string().trim().max(100).optional(),
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

/** POST /reward/referral/get-referee-code body: the referral hash from the invitation. */
export const refereeCodeRequestSchema = z.object({
  referralHash: z.string().trim().min(1).max(200),
});
export type RefereeCodeRequest = z.infer<typeof refereeCodeRequestSchema>;

/** The referee's discount code: issued once, the same code on every later request. */
export const refereeCodeResponseSchema = z.object({
  code: z.string(),
  voucher: voucherSchema,
});
export type RefereeCodeResponse = z.infer<typeof refereeCodeResponseSchema>;
