import { z } from "zod";

/** The longest pending period a store may set: a year covers every return policy. */
export const MAX_PENDING_DAYS = 365;

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
  })
  .strict();
export type ProgramSettings = z.output<typeof programSettingsSchema>;
export type ProgramSettingsInput = z.input<typeof programSettingsSchema>;
