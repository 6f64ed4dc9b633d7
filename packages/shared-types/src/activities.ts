import { z } from "zod";
import { isoDateTimeSchema, pointsSchema } from "./common.js";
import { orderCustomerSchema } from "./orders.js";

/** The ways to earn beyond orders every store may reward; a store may name its own besides. */
export const BUILT_IN_ACTIVITY_KINDS = [
  "signup",
  "birthday",
  "review",
  "newsletter",
  "social_follow",
] as const;
export type BuiltInActivityKind = (typeof BUILT_IN_ACTIVITY_KINDS)[number];

/** A kind of activity: a built-in one, or a store's own (`photo_review`, `instagram_story`). */
export const activityKindSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{1,39}$/,
    "must be 2 to 40 lower-case letters, digits or _, from a letter",
  );
export type ActivityKind = z.infer<typeof activityKindSchema>;

export const activityPeriodSchema = z.enum(["day", "week", "month", "year", "lifetime"]);
export type ActivityPeriod = z.infer<typeof activityPeriodSchema>;

/**
 * What a store gives for an activity, and how often: at most `limit.count` credits per customer
 * per calendar `limit.period` (UTC; weeks start on Monday), or per lifetime. A sign-up is credited
 * once per lifetime and a birthday once per year whatever the limit says.
 */
export const activityRuleSchema = z
  .object({
    kind: activityKindSchema,
    /** The name customers see in their history ("Photo review"); empty: the kind's own. */
    label: z.string().trim().max(80).default(""),
    points: z.number().int().min(1).max(1_000_000),
    limit: z
      .object({ count: z.number().int().min(1).max(1_000), period: activityPeriodSchema })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();
export type ActivityRule = z.output<typeof activityRuleSchema>;

/** The store's activity rules, one per kind. */
export const activityRulesSchema = z
  .array(activityRuleSchema)
  .max(50)
  .refine(
    (rules) => new Set(rules.map((rule) => rule.kind)).size === rules.length,
    "must name each kind once",
  );

/** The limit a kind obeys whatever the store set: a sign-up once, a birthday once a year. */
export const FIXED_ACTIVITY_LIMITS: Partial<
  Record<BuiltInActivityKind, { count: number; period: ActivityPeriod }>
> = {
  signup: { count: 1, period: "lifetime" },
  birthday: { count: 1, period: "year" },
};

/** POST /api/activity: something a customer did that the store rewards. */
export const recordActivityRequestSchema = z
  .object({
    /**
     * The store's own identifier of this activity (the review's id, `signup-1001`): the same
     * activity sent again, however often and concurrently, is credited once.
     */
    activityId: z.string().trim().min(1).max(128),
    kind: activityKindSchema,
    customer: orderCustomerSchema,
    /** When it happened; the time of the request otherwise. */
    occurredAt: isoDateTimeSchema.optional(),
  })
  .strict();
export type RecordActivityRequest = z.infer<typeof recordActivityRequestSchema>;

/**
 * `credited`: the points were added. `limit-reached`: the kind's limit for the period was
 * reached. `not-rewarded`: the store gives nothing for this kind. The first answer of an
 * activity is the answer to every later sending of it.
 */
export const activityOutcomeSchema = z.enum(["credited", "limit-reached", "not-rewarded"]);
export type ActivityOutcome = z.infer<typeof activityOutcomeSchema>;

export const recordActivityResponseSchema = z.object({
  activityId: z.string(),
  kind: activityKindSchema,
  outcome: activityOutcomeSchema,
  /** Points credited (0 unless credited). */
  points: pointsSchema.min(0),
  /** The customer's balance after the activity. */
  balance: pointsSchema,
  recordedAt: isoDateTimeSchema,
});
export type RecordActivityResponse = z.infer<typeof recordActivityResponseSchema>;
