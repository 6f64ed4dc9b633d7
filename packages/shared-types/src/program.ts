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
  })
  .strict()
  .superRefine((settings, context) => {
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
