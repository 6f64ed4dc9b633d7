import { z } from "zod";
import {
  colorSchema,
  currencySchema,
  emailSchema,
  externalIdSchema,
  externalIdTextSchema,
  isoDateTimeSchema,
  languageSchema,
  numberQuerySchema,
  pointsSchema,
  storeDomainSchema,
  storeReferenceSchema,
} from "./common.js";
import { clubQualificationSchema, ledgerKindSchema } from "./customers.js";
import { eventTypeSchema } from "./events.js";
import { refundStatusSchema } from "./orders.js";
import { platformKindSchema, platformSettingsSchema } from "./platforms.js";
import { referralStatusSchema } from "./referrals.js";
import {
  calculatePointsQuerySchema,
  calculatePointsResponseSchema,
  ruleKindSchema,
} from "./points.js";
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
  /**
   * The stored connection's other settings (Shopify's `apiVersion`, PrestaShop's `languageId`
   * and `currencyId`), for a form to show what a save would keep; never a secret. Sealed with
   * the credentials, so null when none are stored.
   */
  settings: platformSettingsSchema
    .nullable()
    .describe(
      "The stored settings other than the URL and the secrets (Shopify: apiVersion; PrestaShop: languageId, currencyId); null when no credentials are stored.",
    ),
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
  /** Points of the balance still within the store's pending period. */
  pendingPoints: pointsSchema.min(0),
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
  /** The activity rewarded (activity bonus): the store's id for it, its kind and its name. */
  activity: z.object({ id: z.string(), kind: z.string(), label: z.string() }).nullable(),
  createdAt: isoDateTimeSchema,
  /** How the transaction moved the pending points (see the customer history). */
  pendingPoints: pointsSchema,
  /** An earning held by the pending period: when its points become spendable. */
  availableAt: isoDateTimeSchema.nullable(),
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

/* ---------- Lists ---------- */

/** Items per page of the back-office lists. */
export const ADMIN_PAGE_LIMIT = { default: 25, min: 1, max: 100 } as const;

const pageQueryFields = {
  /** Items per page, 1 to 100 (default 25). */
  limit: numberQuerySchema
    .pipe(z.number().int().min(ADMIN_PAGE_LIMIT.min).max(ADMIN_PAGE_LIMIT.max))
    .default(ADMIN_PAGE_LIMIT.default)
    .describe("Items per page, 1 to 100 (default 25)."),
  /** The `nextCursor` of the previous page; omit it for the first page. */
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, "must be the nextCursor of a previous page")
    .optional()
    .describe("The `nextCursor` of the previous page; omit it for the first page."),
};

/** Pass as `cursor` to read the next page; null on the last page. */
const nextCursorSchema = z.string().nullable();

/* ---------- Programme overview ---------- */

/** A calendar day, `2026-11-26`. */
export const isoDateSchema = z.iso.date();

/** The longest period the overview reads at once. */
export const OVERVIEW_MAX_DAYS = 366;

export const programOverviewQuerySchema = z
  .object({
    /** First day of the period, in UTC (default: 29 days before `to`). */
    from: isoDateSchema
      .optional()
      .describe("First day of the period, in UTC (default: 29 days before `to`)."),
    /** Last day of the period, included, in UTC (default: today). */
    to: isoDateSchema
      .optional()
      .describe("Last day of the period, included, in UTC (default: today)."),
  })
  .superRefine((query, ctx) => {
    if (!query.from || !query.to) return;
    const days = (Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 + 1;
    if (days < 1) {
      ctx.addIssue({ code: "custom", path: ["from"], message: "must not be after to" });
    } else if (days > OVERVIEW_MAX_DAYS) {
      ctx.addIssue({
        code: "custom",
        path: ["from"],
        message: `must be at most ${OVERVIEW_MAX_DAYS} days before to`,
      });
    }
  });
export type ProgramOverviewQuery = z.input<typeof programOverviewQuerySchema>;

export const programOverviewSchema = z.object({
  /** The period the flows and series cover, days in UTC, both included. */
  period: z.object({ from: isoDateSchema, to: isoDateSchema }),
  currency: currencySchema,
  /** Customers known to the programme (erased ones excluded). */
  members: z.number().int().min(0),
  /** Members with a ledger entry in the 30 days up to now. */
  activeMembers: z.number().int().min(0),
  /** Points moved during the period, by cause (all positive numbers). */
  points: z.object({
    earned: z.number().int().min(0),
    /** Referral bonuses. */
    bonuses: z.number().int().min(0),
    /** Spent on rewards. */
    redeemed: z.number().int().min(0),
    /** Taken back by refunds and cancellations. */
    deducted: z.number().int().min(0),
    /** Manual adjustments, net (may be negative). */
    adjusted: pointsSchema,
    expired: z.number().int().min(0),
  }),
  /**
   * Redeemed over earned and bonuses in the period, to four decimals (above 1 when customers
   * spent more than the period brought them); null when nothing was earned.
   */
  redemptionRate: z.number().min(0).nullable(),
  /**
   * Sum of the positive balances now: the points customers can still spend (erased customers'
   * included: erasure keeps their balance).
   */
  outstandingPoints: z.number().int().min(0),
  /**
   * The outstanding points in the store's currency, at the best value per point among the
   * fixed-amount rewards in that currency a customer can obtain now (current voucher version
   * active, codes left): what redeeming them all could cost at most. Null when the store has
   * no such reward.
   */
  liability: z
    .object({
      amount: z.number().min(0),
      /** Currency per point of the reward used. */
      valuePerPoint: z.number().min(0),
      rewardId: idSchema,
    })
    .nullable(),
  /** One entry per day of the period, oldest first, days without activity included. */
  daily: z.array(
    z.object({
      date: isoDateSchema,
      /** Orders whose points were credited that day. */
      ordersCredited: z.number().int().min(0),
      /** Rewards claimed that day (codes issued). */
      claims: z.number().int().min(0),
      pointsEarned: z.number().int().min(0),
      pointsRedeemed: z.number().int().min(0),
    }),
  ),
  /** The most claimed rewards of the period, at most 5, most claimed first. */
  topRewards: z.array(
    z.object({
      rewardId: idSchema,
      name: z.string(),
      claims: z.number().int().min(1),
      points: z.number().int().min(0),
    }),
  ),
});
export type ProgramOverview = z.infer<typeof programOverviewSchema>;

/* ---------- Points preview ---------- */

/**
 * What a product would earn: calculate's parameters (price: of one unit, in the store's
 * currency), without the domain, the store being in the path; and a quantity.
 */
export const pointsPreviewQuerySchema = calculatePointsQuerySchema.omit({ domain: true }).extend({
  quantity: numberQuerySchema
    .pipe(z.number().int().min(1).max(10_000))
    .default(1)
    .describe("Units in the order line, 1 to 10,000 (default 1)."),
});
export type PointsPreviewQuery = z.input<typeof pointsPreviewQuerySchema>;

/** `calculate`'s answer for one unit (club multipliers excluded), and the line's points. */
export const pointsPreviewSchema = calculatePointsResponseSchema.extend({
  /** The rule applied, by name; null when no active rule matches. */
  ruleName: z.string().nullable(),
  /** Points of the whole line (quantity units, floored once), as an order earns them. */
  linePoints: pointsSchema.min(0),
  /** The line's points for a member of each club, lowest threshold first. */
  clubs: z.array(
    z.object({
      id: idSchema,
      name: z.string(),
      multiplier: z.number().min(0),
      linePoints: pointsSchema.min(0),
    }),
  ),
});
export type PointsPreview = z.infer<typeof pointsPreviewSchema>;

/* ---------- Customer search and history ---------- */

export const customerSearchQuerySchema = z.object({
  /**
   * The start of an email (any case); digits also find the customer with that id (exact), as
   * well as the addresses starting with them. Omitted: every customer, newest first.
   */
  query: z
    .string()
    .trim()
    .min(1)
    .max(254)
    // No email holds a control character, and PostgreSQL refuses a NUL in text (a 500 before).
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
    .optional()
    .describe(
      "The start of an email (any case); digits find the customer with that id (exact) and the emails starting with them.",
    ),
  ...pageQueryFields,
});
export type CustomerSearchQuery = z.input<typeof customerSearchQuerySchema>;

/** A customer with the club the points of the last 12 months reach. */
export const adminCustomerSummarySchema = adminCustomerSchema.extend({
  /** Points earned over the rolling last 12 months: what clubs are measured on. */
  earnedLast12Months: pointsSchema.min(0),
  club: z.object({ id: idSchema, name: z.string(), multiplier: z.number().min(0) }).nullable(),
  /** The figure the store's clubs are measured on, over its period (see the club policy). */
  clubQualification: clubQualificationSchema,
});
export type AdminCustomerSummary = z.infer<typeof adminCustomerSummarySchema>;

export const customerSearchResponseSchema = z.object({
  customers: z.array(adminCustomerSummarySchema),
  nextCursor: nextCursorSchema,
});

export const customerTransactionsQuerySchema = z.object(pageQueryFields);

export const customerTransactionsResponseSchema = z.object({
  /** Newest first. */
  transactions: z.array(adminTransactionSchema),
  nextCursor: nextCursorSchema,
});

/* ---------- Voucher versions ---------- */

export const adminVoucherVersionSchema = adminVoucherSchema.extend({
  /** Codes this version may still issue under its usage limit; null without a limit. */
  codesRemaining: z.number().int().min(0).nullable(),
  /** Whether it is the version claims issue codes from now. */
  current: z.boolean(),
});
export type AdminVoucherVersion = z.infer<typeof adminVoucherVersionSchema>;

/* ---------- Platform connection test ---------- */

/** What the platform answered a harmless question (a customer look-up by email). */
export const platformConnectionTestSchema = z.object({
  platform: platformKindSchema,
  ok: z.boolean(),
  /** Why it failed, in the spec's terms; null when it worked. */
  reason: z
    .enum([
      "platform-credentials-rejected",
      "platform-resource-not-found",
      "platform-request-rejected",
      "platform-unavailable",
    ])
    .nullable(),
  /**
   * What went wrong, finer than `reason`, for a client to explain in its own words and language:
   * the credentials refused (`unauthorized`), another refusal (`request-rejected`), no API at the
   * address (`not-found`), a redirect (not followed), an error status of the platform's own
   * (`http-error`: 5xx, 429), no answer in time (`timeout`), an address of the service's own
   * network (`private-address`), no connection (`unreachable`), an answer cut off or too large
   * (`unreadable`), or an answer that is not the platform's API (`not-api`). Null when it worked.
   */
  cause: z
    .enum([
      "unauthorized",
      "request-rejected",
      "not-found",
      "redirect",
      "http-error",
      "timeout",
      "private-address",
      "unreachable",
      "unreadable",
      "not-api",
    ])
    .nullable()
    .describe(
      "What went wrong, finer than reason, for a client to explain in its own words; null when it worked.",
    ),
  /** The HTTP status the platform answered, when that status is what failed; else null. */
  httpStatus: z
    .number()
    .int()
    .nullable()
    .describe("The HTTP status the platform answered, when that status is what failed; else null."),
  /**
   * What went wrong, in English, for the merchant (never a credential nor the platform's own
   * words); null when it worked. A client in another language writes its own from `cause`.
   */
  message: z.string().nullable(),
  /** How long the platform took to answer. */
  durationMs: z.number().int().min(0),
});
export type PlatformConnectionTest = z.infer<typeof platformConnectionTestSchema>;

/* ---------- Webhook deliveries ---------- */

export const webhookDeliveryPathSchema = webhookPathSchema.extend({ deliveryId: idTextSchema });

export const webhookDeliveryStatusSchema = z.enum(["pending", "delivered", "failed"]);

export const webhookDeliveriesQuerySchema = z.object({
  status: webhookDeliveryStatusSchema.optional().describe("Only the deliveries with this status."),
  ...pageQueryFields,
});
export type WebhookDeliveriesQuery = z.input<typeof webhookDeliveriesQuerySchema>;

export const webhookDeliverySchema = z.object({
  id: idSchema,
  /** The event's id, sent in the `loyalty-event-id` header. */
  eventId: idSchema,
  event: eventTypeSchema,
  status: webhookDeliveryStatusSchema,
  attempts: z.number().int().min(0),
  /** The HTTP status the endpoint answered last; null when it never answered. */
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  /** When the next attempt is due; null once delivered or given up. */
  nextAttemptAt: isoDateTimeSchema.nullable(),
  deliveredAt: isoDateTimeSchema.nullable(),
  createdAt: isoDateTimeSchema,
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveriesResponseSchema = z.object({
  /** Newest first. */
  deliveries: z.array(webhookDeliverySchema),
  nextCursor: nextCursorSchema,
});
