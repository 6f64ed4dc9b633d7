import { z } from "zod";
import {
  currencySchema,
  emailSchema,
  externalIdSchema,
  isoDateTimeSchema,
  languageSchema,
  moneySchema,
} from "./common.js";
import { usesLegacyOrderRef, type ApiRevision } from "./revisions.js";

/** 2026-01-01: the store's order identifier, as text. */
export const orderExternalRefSchema = z.string().trim().min(1).max(64);
/** From 2026-06-18: the store platform's numeric order identifier. */
export const orderExternalIdSchema = externalIdSchema;
/** From 2026-06-18: the store's own order reference as shown to the customer (`#1001`). */
export const orderExternalReferenceSchema = z.string().trim().min(1).max(64);

/** A line of the platform's order, identified so that credit notes can name it. */
export const lineIdSchema = z.union([
  z.string().trim().min(1).max(64),
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
]);

export const orderCustomerSchema = z.object({
  /** The customer's identifier in the store's platform (the one hashed for widgets). */
  externalId: externalIdSchema,
  /** Needed to bind reward codes to the customer and to complete referrals. */
  email: emailSchema.optional(),
  firstName: z.string().trim().max(100).optional(),
  lastName: z.string().trim().max(100).optional(),
  /** The customer's language, for emails; the store's default language otherwise. */
  language: languageSchema.optional(),
});

export const orderLineSchema = z
  .object({
    lineId: lineIdSchema,
    productId: externalIdSchema,
    variantId: externalIdSchema.optional(),
    /** Every category the product belongs to: category rules match any of them. */
    categoryIds: z.array(externalIdSchema).max(100).default([]),
    name: z.string().trim().max(255).optional(),
    sku: z.string().trim().max(100).optional(),
    quantity: z.number().int().min(1).max(100_000),
    /** Unit price before discounts. */
    unitPrice: moneySchema,
    /**
     * What the customer paid for the whole line after discounts, taxes included as the store
     * displays them. Points are earned on this amount. Defaults to unitPrice × quantity.
     */
    totalPaid: moneySchema.optional(),
  })
  .transform((line) => ({
    ...line,
    totalPaid: line.totalPaid ?? Math.round(line.unitPrice * line.quantity * 100) / 100,
  }));

const orderBodyFields = {
  customer: orderCustomerSchema,
  currency: currencySchema,
  /** When the customer placed the order; defaults to the time of registration. */
  orderedAt: isoDateTimeSchema.optional(),
  lines: z.array(orderLineSchema).min(1).max(1000),
  shippingAmount: moneySchema.optional(),
  discountAmount: moneySchema.optional(),
  /** The order's grand total as paid. */
  totalPaid: moneySchema.optional(),
  /**
   * The discount codes the customer entered, as the platform reports them: a reward code named
   * here (in any case) is used, and leaves the customer's list of codes.
   */
  discountCodes: z.array(z.string().trim().min(1).max(255)).max(20).default([]),
};

function uniqueLineIds(lines: readonly { lineId: string | number }[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  lines.forEach((line, index) => {
    const key = String(line.lineId);
    if (seen.has(key)) {
      ctx.addIssue({
        code: "custom",
        path: ["lines", index, "lineId"],
        message: `lineId ${key} appears more than once in the order`,
      });
    }
    seen.add(key);
  });
}

function renamedField(name: string, revision: string, instead: string) {
  return z
    .never({ error: `${name} is not a field in revision ${revision}: use ${instead}` })
    .optional();
}

/** Order registration payload, revision 2026-01-01. */
export const registerOrderRequestV1Schema = z
  .object({
    externalRef: orderExternalRefSchema,
    externalId: renamedField("externalId", "2026-01-01", "externalRef"),
    externalReference: renamedField(
      "externalReference",
      "2026-01-01",
      "revision 2026-06-18 or later",
    ),
    ...orderBodyFields,
  })
  .superRefine((order, ctx) => uniqueLineIds(order.lines, ctx));

/** Order registration payload from revision 2026-06-18 (served to every later revision). */
export const registerOrderRequestV2Schema = z
  .object({
    externalId: orderExternalIdSchema,
    externalReference: orderExternalReferenceSchema.optional(),
    externalRef: renamedField("externalRef", "2026-06-18", "externalId"),
    ...orderBodyFields,
  })
  .superRefine((order, ctx) => uniqueLineIds(order.lines, ctx));

export type RegisterOrderRequestV1 = z.infer<typeof registerOrderRequestV1Schema>;
export type RegisterOrderRequestV2 = z.infer<typeof registerOrderRequestV2Schema>;
export type RegisterOrderRequestV1Input = z.input<typeof registerOrderRequestV1Schema>;
export type RegisterOrderRequestV2Input = z.input<typeof registerOrderRequestV2Schema>;
export type OrderLine = z.infer<typeof orderLineSchema>;

/** Processing state of a registered order or a declared refund. */
export const processingStatusSchema = z.enum(["pending", "processed"]);

const registrationResponseFields = {
  status: processingStatusSchema,
  /** When the service first stored this order. */
  receivedAt: isoDateTimeSchema,
};

export const registerOrderResponseV1Schema = z.object({
  externalRef: orderExternalRefSchema,
  ...registrationResponseFields,
});
export const registerOrderResponseV2Schema = z.object({
  externalId: orderExternalIdSchema,
  externalReference: orderExternalReferenceSchema.nullable(),
  ...registrationResponseFields,
});
export type RegisterOrderResponseV1 = z.infer<typeof registerOrderResponseV1Schema>;
export type RegisterOrderResponseV2 = z.infer<typeof registerOrderResponseV2Schema>;

/**
 * What the store declares of an order's refunds. Amounts and quantities are CUMULATIVE since the
 * order was placed, never the delta of the current credit note: replaying a declaration
 * changes nothing, a new credit note deducts only what it adds.
 */
export const refundStatusSchema = z.enum(["partially_refunded", "refunded", "cancelled"]);
export type RefundStatus = z.infer<typeof refundStatusSchema>;

export const refundLineSchema = z.object({
  lineId: lineIdSchema,
  /** Cumulative quantity refunded on this line. */
  quantity: z.number().int().min(0).max(100_000),
  /** Cumulative amount refunded on this line, when the refund is not by whole units. */
  amount: moneySchema.optional(),
});

const refundBodyFields = {
  /** `refunded` and `cancelled` deduct everything the order still holds. */
  status: refundStatusSchema,
  /** The store's identifier of the latest credit note, for the audit trail. */
  creditNoteId: z.string().trim().min(1).max(64).optional(),
  /** Cumulative amount refunded on the order, when lines are not itemised. */
  refundedAmount: moneySchema.optional(),
  /** Cumulative refunds per order line. */
  lines: z.array(refundLineSchema).max(1000).optional(),
  refundedAt: isoDateTimeSchema.optional(),
};

function partialRefundNamesWhat(
  refund: {
    status: string;
    refundedAmount?: number | undefined;
    lines?: { lineId: string | number }[] | undefined;
  },
  ctx: z.RefinementCtx,
) {
  // A line named twice would be counted twice, taking points another line earned.
  if (refund.lines) uniqueLineIds(refund.lines, ctx);
  if (
    refund.status === "partially_refunded" &&
    refund.refundedAmount === undefined &&
    !refund.lines?.length
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["lines"],
      message: "a partial refund needs lines or refundedAmount (cumulative)",
    });
  }
}

export const refundOrderRequestV1Schema = z
  .object({
    externalRef: orderExternalRefSchema,
    externalId: renamedField("externalId", "2026-01-01", "externalRef"),
    ...refundBodyFields,
  })
  .superRefine(partialRefundNamesWhat);

export const refundOrderRequestV2Schema = z
  .object({
    externalId: orderExternalIdSchema,
    externalRef: renamedField("externalRef", "2026-06-18", "externalId"),
    ...refundBodyFields,
  })
  .superRefine(partialRefundNamesWhat);

export type RefundOrderRequestV1 = z.infer<typeof refundOrderRequestV1Schema>;
export type RefundOrderRequestV2 = z.infer<typeof refundOrderRequestV2Schema>;
export type RefundOrderRequestV1Input = z.input<typeof refundOrderRequestV1Schema>;
export type RefundOrderRequestV2Input = z.input<typeof refundOrderRequestV2Schema>;

const refundResponseFields = {
  status: processingStatusSchema,
  receivedAt: isoDateTimeSchema,
};
export const refundOrderResponseV1Schema = z.object({
  externalRef: orderExternalRefSchema,
  ...refundResponseFields,
});
export const refundOrderResponseV2Schema = z.object({
  externalId: orderExternalIdSchema,
  ...refundResponseFields,
});
export type RefundOrderResponseV1 = z.infer<typeof refundOrderResponseV1Schema>;
export type RefundOrderResponseV2 = z.infer<typeof refundOrderResponseV2Schema>;

type V2Requests = {
  register: typeof registerOrderRequestV2Schema;
  refund: typeof refundOrderRequestV2Schema;
};

/**
 * The request schemas of each revision from 2026-06-18, made on first use: the contract of
 * 2026-06-18, whose refusal of `externalRef` names the revision asked for (a 2026-08-26 request
 * is not told about 2026-06-18).
 */
const v2Requests = new Map<ApiRevision, V2Requests>([
  ["2026-06-18", { register: registerOrderRequestV2Schema, refund: refundOrderRequestV2Schema }],
]);

function v2RequestsFor(revision: ApiRevision): V2Requests {
  let requests = v2Requests.get(revision);
  if (requests === undefined) {
    const externalRef = renamedField("externalRef", revision, "externalId");
    // safeExtend keeps the schemas' refinements (unique line ids, what a partial refund names).
    requests = {
      register: registerOrderRequestV2Schema.safeExtend({ externalRef }),
      refund: refundOrderRequestV2Schema.safeExtend({ externalRef }),
    };
    v2Requests.set(revision, requests);
  }
  return requests;
}

/** The order contracts of a revision: 2026-01-01 or the one of 2026-06-18 and later. */
export function orderSchemasFor(revision: ApiRevision) {
  if (usesLegacyOrderRef(revision)) {
    return {
      register: registerOrderRequestV1Schema,
      registerResponse: registerOrderResponseV1Schema,
      refund: refundOrderRequestV1Schema,
      refundResponse: refundOrderResponseV1Schema,
    };
  }
  const requests = v2RequestsFor(revision);
  return {
    register: requests.register,
    registerResponse: registerOrderResponseV2Schema,
    refund: requests.refund,
    refundResponse: refundOrderResponseV2Schema,
  };
}
