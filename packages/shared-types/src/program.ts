import { z } from "zod";
import { activityRulesSchema } from "./activities.js";

/** The longest pending period a store may set: a year covers every return policy. */
export const MAX_PENDING_DAYS = 365;
/** The longest lifetime or inactivity period before points expire: ten years. */
export const MAX_EXPIRY_MONTHS = 120;

const expiryPeriodFields = {
  /** Months, from each earning (`lifetime`) or from the customer's last earning or spending (`inactivity`). */
  months: z.number().int().min(1).max(MAX_EXPIRY_MONTHS),
  /**
   * Days before points expire that the customer is warned (`POINTS_EXPIRING`, and an email when
   * the service knows their address). Points never expire less than this long after their
   * warning: points already due when expiry is turned on expire this many days later. 0: no
   * warning.
   */
  warningDays: z.number().int().min(0).max(365).default(30),
};

/**
 * When points expire. `off` (default): never. `lifetime`: each earning's points expire `months`
 * after they were earned, the oldest points being spent first. `inactivity`: all the points the
 * customer can spend expire `months` after their last earning or spending.
 */
export const expiryPolicySchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("off") }).strict(),
  z.object({ mode: z.literal("lifetime"), ...expiryPeriodFields }).strict(),
  z.object({ mode: z.literal("inactivity"), ...expiryPeriodFields }).strict(),
]);
export type ExpiryPolicy = z.output<typeof expiryPolicySchema>;
export type ExpiryMode = ExpiryPolicy["mode"];

/** What a club's threshold counts: points earned (net of refunds), or the amount spent on orders (net of refunds, in the store's currency). */
export const CLUB_BASES = ["points-earned", "amount-spent"] as const;
/** Over what time the threshold is counted. */
export const CLUB_PERIODS = ["rolling-12-months", "calendar-year", "lifetime"] as const;
/** When a customer whose figure fell below their club's threshold leaves it. */
export const CLUB_DOWNGRADES = ["immediately", "end-of-period"] as const;

/**
 * How customers reach and keep clubs. The defaults are the spec's: points earned over the
 * rolling last 12 months, and a customer leaves a club as soon as the figure is below it.
 *
 * - `basis`: `points-earned` counts the points orders, referrals and activities brought, less
 *   what refunds took back (spending never counts); `amount-spent` counts what the customer
 *   paid for orders dated in the period (`totalPaid`, or the sum of its lines), less refunds,
 *   and the clubs' thresholds are then amounts in whole units of the store's currency.
 * - `period`: `rolling-12-months`, `calendar-year` (1 January to 31 December, UTC; the figure
 *   starts again each year) or `lifetime`.
 * - `downgrade`: `immediately`, or `end-of-period`: a club reached is kept until the end of the
 *   period (the calendar year; 12 months after it was reached for a rolling period), then
 *   reviewed on the figure of the period that ended. With `calendar-year`, the club last year's
 *   figure reached is kept all this year. A lifetime never ends: it takes `immediately` (a
 *   lifetime's figure falls only by refunds, which must take the club back).
 */
export const clubPolicySchema = z
  .object({
    basis: z.enum(CLUB_BASES).default("points-earned"),
    period: z.enum(CLUB_PERIODS).default("rolling-12-months"),
    downgrade: z.enum(CLUB_DOWNGRADES).default("immediately"),
  })
  .strict();
export type ClubPolicy = z.output<typeof clubPolicySchema>;
/** The spec's clubs: points earned over the rolling last 12 months, lost as soon as below. */
export const DEFAULT_CLUB_POLICY: ClubPolicy = {
  basis: "points-earned",
  period: "rolling-12-months",
  downgrade: "immediately",
};
export type ClubBasis = ClubPolicy["basis"];
export type ClubPeriod = ClubPolicy["period"];

/**
 * How a store's points programme runs, beyond the spec's defaults. Every field defaults to the
 * spec's behaviour, so a store that never sets them (or sets `{}`) runs exactly as the spec says.
 * PUT replaces the whole document: a field left out goes back to its default.
 */
export const programSettingsSchema = z
  .object({
    /**
     * Days points earned by an order stay pending, counted from the order's date: the store's
     * return window. Pending points count in the balance but cannot be spent; a refund or
     * cancellation within the period takes them back first, so spending points of an order
     * that is then returned cannot leave a negative balance. 0 (default): available at once.
     */
    pendingDays: z.number().int().min(0).max(MAX_PENDING_DAYS).default(0),
    /** When points expire; `{ "mode": "off" }` (default): never. */
    expiry: expiryPolicySchema.default({ mode: "off" }),
    /** Ways to earn beyond orders (`POST /api/activity`): none by default. */
    activities: activityRulesSchema.default([]),
    /** How clubs are reached and kept; the spec's rolling 12 months of points by default. */
    clubs: clubPolicySchema.default(DEFAULT_CLUB_POLICY),
  })
  .strict()
  .superRefine((settings, context) => {
    // A lifetime never ends: kept "until the end of the period", a club reached by an order
    // that is then refunded would be kept for ever.
    if (settings.clubs.period === "lifetime" && settings.clubs.downgrade === "end-of-period") {
      context.addIssue({
        code: "custom",
        path: ["clubs", "downgrade"],
        message: "must be immediately when clubs are counted over the customer's lifetime",
      });
    }
    // Points still pending when their lifetime ends would expire unspendable: the period must
    // end first (a month counts 28 days here, the shortest).
    const { expiry, pendingDays } = settings;
    if (expiry.mode === "lifetime" && pendingDays >= expiry.months * 28) {
      context.addIssue({
        code: "custom",
        path: ["pendingDays"],
        message: `must be shorter than the points' lifetime (${expiry.months * 28} days or less)`,
      });
    }
  });
export type ProgramSettings = z.output<typeof programSettingsSchema>;
export type ProgramSettingsInput = z.input<typeof programSettingsSchema>;
