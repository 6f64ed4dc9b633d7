import { z } from "zod";
import { externalIdSchema, isoDateTimeSchema, pointsSchema } from "./common.js";
import { refundStatusSchema } from "./orders.js";
import { CLUB_BASES, CLUB_PERIODS } from "./program.js";

/**
 * The five events of the spec, then those of the store's expiry policy and clubs, written to the outbox
 * with the change that causes them.
 */
export const EVENT_TYPES = [
  "ORDER_REGISTERED",
  "POINTS_EARNED",
  "ORDER_REFUNDED",
  "POINTS_DEDUCTED",
  "REWARD_OBTAINED",
  "POINTS_EXPIRING",
  "POINTS_EXPIRED",
  "CLUB_CHANGED",
] as const;
export const eventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = (typeof EVENT_TYPES)[number];

/** A club as events name it. */
const eventClubSchema = z.object({
  id: externalIdSchema,
  name: z.string(),
  threshold: pointsSchema.min(0),
  multiplier: z.number().min(0),
});

/**
 * An order as events name it. Events are not served per revision, so the identifier is the
 * text the store registered: `externalRef` (2026-01-01) or the decimal `externalId`.
 */
export const eventOrderSchema = z.object({
  externalId: z.string(),
  externalReference: z.string().nullable(),
});

export const eventCustomerSchema = z.object({ externalId: externalIdSchema });

export const eventDataSchemas = {
  ORDER_REGISTERED: z.object({
    order: eventOrderSchema,
    customer: eventCustomerSchema,
    currency: z.string(),
    orderedAt: isoDateTimeSchema,
  }),
  POINTS_EARNED: z.object({
    /** The order that earned them; null for an activity (see `activity`). */
    order: eventOrderSchema.nullable(),
    /** Present for the points of an activity (`POST /api/activity`). */
    activity: z.object({ id: z.string(), kind: z.string() }).optional(),
    customer: eventCustomerSchema,
    /** Points credited. */
    points: pointsSchema.min(1),
    /** The customer's balance after the credit. */
    balance: pointsSchema,
    /**
     * Present when the store's pending period holds the points: when they become spendable.
     * The balance above already counts them.
     */
    availableAt: isoDateTimeSchema.optional(),
  }),
  ORDER_REFUNDED: z.object({
    order: eventOrderSchema,
    customer: eventCustomerSchema,
    refundStatus: refundStatusSchema,
    creditNoteId: z.string().nullable(),
  }),
  POINTS_DEDUCTED: z.object({
    order: eventOrderSchema,
    customer: eventCustomerSchema,
    /** Points taken back, as a positive number. */
    points: pointsSchema.min(1),
    /** The customer's balance after the deduction; it may be negative. */
    balance: pointsSchema,
    /** Present when some of the points were still pending: how many of `points` they were. */
    pendingPoints: pointsSchema.min(1).optional(),
  }),
  REWARD_OBTAINED: z.object({
    customer: eventCustomerSchema,
    rewardId: externalIdSchema,
    points: pointsSchema.min(1),
    balance: pointsSchema,
  }),
  /** The customer was warned that points will expire (sent once per expiry date). */
  POINTS_EXPIRING: z.object({
    customer: eventCustomerSchema,
    /** Points that will expire then, unless spent before. */
    points: pointsSchema.min(1),
    expiresAt: isoDateTimeSchema,
    /** Whether the warning email was queued (the service knows the customer's address). */
    emailed: z.boolean(),
  }),
  /** Points expired: an `expiry` transaction of the customer's history. */
  POINTS_EXPIRED: z.object({
    customer: eventCustomerSchema,
    /** Points taken, as a positive number. */
    points: pointsSchema.min(1),
    /** The customer's balance after the expiry. */
    balance: pointsSchema,
  }),
  /**
   * The customer's club changed: reached by earning or spending, or lost when the figure fell
   * (a refund, the period moving on) or a kept club's period ended. Not sent for the clubs a
   * store's change of clubs or club policy gives or takes: those are reviewed in the
   * background and sent as they are found.
   */
  CLUB_CHANGED: z.object({
    customer: eventCustomerSchema,
    /** The club now; null below the lowest threshold. */
    club: eventClubSchema.nullable(),
    /** The club before; null when the customer had none. */
    previousClub: eventClubSchema.nullable(),
    /** The figure the clubs are measured on (points, or an amount in the store's currency). */
    figure: z.number(),
    basis: z.enum(CLUB_BASES),
    period: z.enum(CLUB_PERIODS),
    /** When a club kept until the end of its period is reviewed; null otherwise. */
    keptUntil: isoDateTimeSchema.nullable(),
  }),
} satisfies Record<EventType, z.ZodType>;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

/**
 * The body POSTed to a store's webhook endpoint. Signed in the `Loyalty-Signature` header:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's secret>`.
 */
export const webhookEventSchema = z.discriminatedUnion(
  "type",
  EVENT_TYPES.map((type) =>
    z.object({
      /** Unique per event: use it to ignore a redelivery. */
      id: z.string(),
      type: z.literal(type),
      createdAt: isoDateTimeSchema,
      data: eventDataSchemas[type],
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
export type WebhookEvent = {
  [T in EventType]: { id: string; type: T; createdAt: string; data: EventData<T> };
}[EventType];

export const WEBHOOK_SIGNATURE_HEADER = "loyalty-signature";
/** The event's id again, so a receiver can drop a redelivery before parsing the body. */
export const WEBHOOK_EVENT_ID_HEADER = "loyalty-event-id";
