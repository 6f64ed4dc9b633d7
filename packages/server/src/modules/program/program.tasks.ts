import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const programTaskDefinitions = {
  /** Makes the points whose pending period has ended spendable. */
  "release-pending-points": defineTask({
    payload: z.object({}),
    handler:
      ({ program }: Pick<Services, "program">) =>
      async () => {
        await program.releaseDuePoints();
      },
    // Once a minute; the named queue runs one at a time, so a long run is never overlapped.
    cron: { match: "* * * * *", options: { maxAttempts: 1, queueName: "pending-points" } },
  }),
  /** Warns of points about to expire, and expires those whose date has come. */
  "expire-points": defineTask({
    payload: z.object({}),
    handler:
      ({ program }: Pick<Services, "program">) =>
      async () => {
        await program.expirePoints();
      },
    // Once a minute: a date reached is acted on within the minute. The named queue runs one
    // at a time; a run with nothing due reads a few index entries.
    cron: { match: "* * * * *", options: { maxAttempts: 1, queueName: "points-expiry" } },
  }),
  /** Reviews the clubs that time alone changes (see ProgramService.reviewDueClubs). */
  "review-clubs": defineTask({
    payload: z.object({}),
    handler:
      ({ program }: Pick<Services, "program">) =>
      async () => {
        await program.reviewDueClubs();
      },
    cron: { match: "* * * * *", options: { maxAttempts: 1, queueName: "club-reviews" } },
  }),
  /** Reviews the club of every customer of a store, a batch per job, after its clubs changed. */
  "review-store-clubs": defineTask({
    payload: z.object({
      storeId: z.number().int().positive(),
      afterId: z.number().int().min(0),
      /** The store's clubs generation the review began at: a newer change stops it. */
      generation: z.number().int().min(0),
      /** The policy changed: clubs held under the old one are not kept. */
      fresh: z.boolean(),
    }),
    handler:
      ({ program }: Pick<Services, "program">) =>
      async (walk) => {
        await program.reviewStoreClubs(walk);
      },
  }),
  /** The email of a `POINTS_EXPIRING` warning, to a customer whose address the service has. */
  "send-expiry-warning": defineTask({
    payload: z.object({
      customerId: z.number().int().positive(),
      points: z.number().int().positive(),
      expiresAt: z.iso.datetime({ offset: true }),
    }),
    handler:
      ({ program }: Pick<Services, "program">) =>
      async (warning) => {
        await program.sendExpiryWarning(warning);
      },
  }),
};
