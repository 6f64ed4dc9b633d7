import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const idempotencyTaskDefinitions = {
  /** Keys are remembered for 24 hours only. */
  "expire-idempotency-keys": defineTask({
    payload: z.object({}),
    handler:
      ({ idempotency }: Pick<Services, "idempotency">) =>
      async () => {
        await idempotency.deleteExpired();
      },
    // Every ten minutes, so that each run has little to delete.
    cron: { match: "*/10 * * * *", options: { maxAttempts: 1 } },
  }),
};
