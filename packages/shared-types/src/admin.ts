import { z } from "zod";
import {
  colorSchema,
  currencySchema,
  emailSchema,
  externalIdSchema,
  externalIdTextSchema,
  isoDateTimeSchema,
  languageSchema,
  pointsSchema,
  storeDomainSchema,
  storeReferenceSchema,
} from "./common.js";
import { ledgerKindSchema } from "./customers.js";
import { eventTypeSchema } from "./events.js";
import { refundStatusSchema } from "./orders.js";
import { platformKindSchema } from "./platforms.js";
import { referralStatusSchema } from "./referrals.js";
import { ruleKindSchema } from "./points.js";
import { voucherInputSchema, voucherTermsSchema } from "./rewards.js";
import { widgetKindSchema } from "./widgets.js";

/*
 * The back-office (admin) API: Bearer JWT, under /admin. A token is for the whole service or
 * for one store; a store token never reads or changes another store.
 */

/** A store, a rule, a club… as the admin API names it in paths: its numeric id. */
export const idSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
export const idTextSchema = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, "must be a positive whole number")
  .transform(Number)
  .pipe(idSchema);

/** `Authorization: Bearer <JWT>` of the admin operations. */
export const bearerAuthorizationHeaderSchema = z
  .string()
  .regex(/^Bearer [A-Za-z0-9._~+/-]+=*$/, "must be Bearer followed by an access token");

/* ---------- Tokens ---------- */

export const ADMIN_TOKEN_TYPE = "Bearer";

/** POST /admin/token body: an admin's credentials, and the store to limit the token to. */
export const adminTokenRequestSchema = z.object({
  email: emailSchema,
  password: z.string().min(1).max(1024),
  /**
   * A service admin may ask for a token limited to one store (least privilege); a store
   * admin's token is always for their store.
   */
  storeId: idSchema.optional(),
});
export type AdminTokenRequest = z.infer<typeof adminTokenRequestSchema>;

export const adminTokenResponseSchema = z.object({
  accessToken: z.string(),
  tokenType: z.literal(ADMIN_TOKEN_TYPE),
  /** Seconds the token stays valid. */
  expiresIn: z.number().int().min(1),
  expiresAt: isoDateTimeSchema,
  /** The store the token is limited to; null for a service token. */
  storeId: idSchema.nullable(),
});
export type AdminTokenResponse = z.infer<typeof adminTokenResponseSchema>;

/* ---------- Path parameters ---------- */

export const storePathSchema = z.object({ storeId: idTextSchema });
export const apiKeyPathSchema = storePathSchema.extend({
  keyId: z.string().regex(/^lk_[a-z0-9]{10}$/, "must be a key id such as lk_0123456789"),
});
export const rulePathSchema = storePathSchema.extend({ ruleId: idTextSchema });
export const clubPathSchema = storePathSchema.extend({ clubId: idTextSchema });
export const rewardPathSchema = storePathSchema.extend({ rewardId: idTextSchema });
export const webhookPathSchema = storePathSchema.extend({ endpointId: idTextSchema });
export const customerAdminPathSchema = storePathSchema.extend({
  externalId: externalIdTextSchema,
});

/* ---------- Stores ---------- */

export const adminStoreSchema = z.object({
  id: idSchema,
  /** The `<store_reference>` of the customer HMAC key: for the store's server, never a page. */
  reference: storeReferenceSchema,
  domain: z.string(),
  name: z.string(),
  language: languageSchema,
  currency: currencySchema,
  /** Widgets paint with it where their configuration leaves a colour unset. */
  brandingColor: colorSchema,
  platform: platformKindSchema,
  createdAt: isoDateTimeSchema,
  updatedAt: isoDateTimeSchema,
});
export type AdminStore = z.infer<typeof adminStoreSchema>;

const storeNameSchema = z.string().trim().max(200);

export const createStoreRequestSchema = z.object({
  domain: storeDomainSchema,
  /** Generated (unguessable) when omitted. */
  reference: storeReferenceSchema.optional(),
  name: storeNameSchema.default(""),
  language: languageSchema.default("en"),
  currency: currencySchema.default("EUR"),
  brandingColor: colorSchema.default(""),
});
export type CreateStoreRequest = z.input<typeof createStoreRequestSchema>;

export const updateStoreRequestSchema = z
  .object({
    domain: storeDomainSchema,
    name: storeNameSchema,
    language: languageSchema,
    currency: currencySchema,
    brandingColor: colorSchema,
  })
  .partial()
  .strict();
export type UpdateStoreRequest = z.input<typeof updateStoreRequestSchema>;

/* ---------- API keys ---------- */

export const apiKeySchema = z.object({
  /** The key's public id (`lk_<prefix>`): what lists show and revocation takes. */
  id: z.string(),
  label: z.string(),
  active: z.boolean(),
  createdAt: isoDateTimeSchema,
  revokedAt: isoDateTimeSchema.nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const createApiKeyRequestSchema = z.object({
  label: z.string().trim().max(200).default(""),
});

/** 201: the plain key, shown this once. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

/* ---------- Attribution rules ---------- */

const ruleFields = {
  name: z.string().trim().max(200),
  /** Points per unit of currency spent, to four decimals (as stored). */
  rate: z.number().min(0).max(1_000_000).multipleOf(0.0001),
  /** Fixed points added per item. */
  pointsPerItem: z.number().int().min(0).max(1_000_000),
  active: z.boolean(),
};

export const attributionRuleSchema = z.object({
  id: idSchema,
  kind: ruleKindSchema,
  /** The product or category id; null for the default rule. */
  targetId: externalIdSchema.nullable(),
  ...ruleFields,
  createdAt: isoDateTimeSchema,
  updatedAt: isoDateTimeSchema,
});
export type AttributionRule = z.infer<typeof attributionRuleSchema>;

export const createRuleRequestSchema = z
  .object({
    kind: ruleKindSchema,
    targetId: externalIdSchema.nullable().default(null),
    name: ruleFields.name.default(""),
    rate: ruleFields.rate.default(0),
    pointsPerItem: ruleFields.pointsPerItem.default(0),
    active: ruleFields.active.default(true),
  })
  .superRefine((rule, ctx) => {
    if (rule.kind === "default" && rule.targetId !== null) {
      ctx.addIssue({
        code: "custom",
        path: ["targetId"],
        message: "must be null for a default rule",
      });
    }
    if (rule.kind !== "default" && rule.targetId === null) {
      ctx.addIssue({
        code: "custom",
        path: ["targetId"],
        message: `is required for a ${rule.kind} rule`,
      });
    }
  });
export type CreateRuleRequest = z.input<typeof createRuleRequestSchema>;

/** The kind and target of a rule are what it is: to change them, create another rule. */
export const updateRuleRequestSchema = z.object(ruleFields).partial().strict();
export type UpdateRuleRequest = z.input<typeof updateRuleRequestSchema>;

/* ---------- Clubs ---------- */

const clubFields = {
  name: z.string().trim().min(1).max(100),
  /** Points earned over the rolling last 12 months needed to belong. */
  threshold: z.number().int().min(0).max(1_000_000_000),
  /** Earn multiplier (1 = none), to three decimals (as stored). */
  multiplier: z.number().min(0).max(100).multipleOf(0.001),
};

export const clubSchema = z.object({
  id: idSchema,
  ...clubFields,
  createdAt: isoDateTimeSchema,
  updatedAt: isoDateTimeSchema,
});
export type Club = z.infer<typeof clubSchema>;

export const createClubRequestSchema = z.object({
  ...clubFields,
  multiplier: clubFields.multiplier.default(1),
});
export type CreateClubRequest = z.input<typeof createClubRequestSchema>;
export const updateClubRequestSchema = z.object(clubFields).partial().strict();
export type UpdateClubRequest = z.input<typeof updateClubRequestSchema>;

/* ---------- Rewards and vouchers ---------- */

export const adminVoucherSchema = voucherTermsSchema.extend({
  version: z.number().int().min(1),
  usageLimit: z.number().int().min(1).nullable(),
  /** Codes this version issued (claims confirmed or in progress). */
  codesIssued: z.number().int().min(0),
  createdAt: isoDateTimeSchema,
});

export const adminRewardSchema = z.object({
  id: idSchema,
  name: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  triggerValue: pointsSchema.min(1),
  /** False: deactivated, left out of /reward/list and refused to claims. */
  active: z.boolean(),
  /** The current version; editing the voucher makes a new one. */
  voucher: adminVoucherSchema,
  createdAt: isoDateTimeSchema,
  updatedAt: isoDateTimeSchema,
});
export type AdminReward = z.infer<typeof adminRewardSchema>;

const rewardFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).nullable(),
  imageUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable(),
  triggerValue: z.number().int().min(1).max(1_000_000_000),
  active: z.boolean(),
};

export const createRewardRequestSchema = z.object({
  ...rewardFields,
  description: rewardFields.description.default(null),
  imageUrl: rewardFields.imageUrl.default(null),
  active: rewardFields.active.default(true),
  voucher: voucherInputSchema,
});
export type CreateRewardRequest = z.input<typeof createRewardRequestSchema>;

/**
 * A `voucher` makes a new version of the voucher: codes already issued keep their terms, and
 * only the new version is listed from now on.
 */
export const updateRewardRequestSchema = z
  .object({ ...rewardFields, voucher: voucherInputSchema })
  .partial()
  .strict();
export type UpdateRewardRequest = z.input<typeof updateRewardRequestSchema>;

/* ---------- Widget configurations ---------- */

/** A widget configuration as the back-office reads it. */
export const adminWidgetConfigurationSchema = z.object({
  kind: widgetKindSchema,
  /** The default (in the store's language) until one is saved. */
  isDefault: z.boolean(),
  updatedAt: isoDateTimeSchema.nullable(),
});

/* ---------- Platform connection ---------- */

/** The platform connection as it reads back: never the credentials. */
export const platformConnectionSummarySchema = z.object({
  platform: platformKindSchema,
  url: z.string().nullable(),
  /** Whether credentials are stored (always false for the sandbox, which needs none). */
  hasCredentials: z.boolean(),
});
export type PlatformConnectionSummary = z.infer<typeof platformConnectionSummarySchema>;

/* ---------- Webhook endpoints ---------- */

export const webhookEndpointSchema = z.object({
  id: idSchema,
  url: z.string(),
  /** The event types delivered; empty for all of them. */
  events: z.array(eventTypeSchema),
  active: z.boolean(),
  createdAt: isoDateTimeSchema,
  updatedAt: isoDateTimeSchema,
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const createWebhookEndpointRequestSchema = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  events: z.array(eventTypeSchema).max(10).default([]),
});
export type CreateWebhookEndpointRequest = z.input<typeof createWebhookEndpointRequestSchema>;

/** 201: the signing secret, shown this once. */
export const createdWebhookEndpointSchema = webhookEndpointSchema.extend({ secret: z.string() });

/* ---------- Customers ---------- */

export const adminCustomerSchema = z.object({
  externalId: externalIdSchema,
  email: z.string().nullable(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  language: z.string().nullable(),
  balance: pointsSchema,
  /** Points held by claims waiting for the platform. */
  reservedPoints: pointsSchema.min(0),
  createdAt: isoDateTimeSchema,
  /** Set once the customer's personal data was erased. */
  erasedAt: isoDateTimeSchema.nullable(),
});
export type AdminCustomer = z.infer<typeof adminCustomerSchema>;

export const pointAdjustmentRequestSchema = z.object({
  /** Signed whole points: positive credits, negative debits. */
  points: z
    .number()
    .int()
    .min(-1_000_000_000)
    .max(1_000_000_000)
    .refine((points) => points !== 0, "must not be 0"),
  /** Why: shown in the customer's history as the transaction's note. */
  reason: z.string().trim().min(1).max(500),
});
export type PointAdjustmentRequest = z.infer<typeof pointAdjustmentRequestSchema>;

export const adminTransactionSchema = z.object({
  id: idSchema,
  kind: ledgerKindSchema,
  points: pointsSchema,
  balanceAfter: pointsSchema,
  note: z.string().nullable(),
  orderExternalId: z.string().nullable(),
  rewardId: idSchema.nullable(),
  referralId: idSchema.nullable(),
  createdAt: isoDateTimeSchema,
});

export const pointAdjustmentResponseSchema = z.object({
  transaction: adminTransactionSchema,
  balance: pointsSchema,
});

/** Everything the service holds about a customer (GDPR access and portability). */
export const customerExportSchema = z.object({
  exportedAt: isoDateTimeSchema,
  store: z.object({ id: idSchema, domain: z.string() }),
  customer: adminCustomerSchema,
  orders: z.array(
    z.object({
      externalId: z.string(),
      externalReference: z.string().nullable(),
      currency: currencySchema,
      orderedAt: isoDateTimeSchema,
      pointsEarned: pointsSchema.nullable(),
      pointsDeducted: pointsSchema,
      refundStatus: refundStatusSchema.nullable(),
      /** The order as the store registered it. */
      payload: z.unknown(),
    }),
  ),
  transactions: z.array(adminTransactionSchema),
  claims: z.array(
    z.object({
      rewardId: idSchema,
      code: z.string(),
      points: pointsSchema,
      status: z.enum(["reserved", "confirmed", "released"]),
      expiresAt: isoDateTimeSchema.nullable(),
      createdAt: isoDateTimeSchema,
    }),
  ),
  /** The people this customer invited. */
  referralsMade: z.array(
    z.object({
      id: idSchema,
      email: z.string(),
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      status: referralStatusSchema,
      createdAt: isoDateTimeSchema,
      completedAt: isoDateTimeSchema.nullable(),
    }),
  ),
  /** The invitation this customer came by, if any. */
  referredBy: z
    .object({
      referralId: idSchema,
      referrerExternalId: externalIdSchema,
      refereeCode: z.string().nullable(),
    })
    .nullable(),
});
export type CustomerExport = z.infer<typeof customerExportSchema>;

/** After erasure: the customer stays (the ledger's sums with it), anonymised. */
export const customerErasureResponseSchema = z.object({
  externalId: externalIdSchema,
  erasedAt: isoDateTimeSchema,
  balance: pointsSchema,
});
