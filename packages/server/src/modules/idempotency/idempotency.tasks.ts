import type { Task } from "graphile-worker";
import type { IdempotencyService } from "./idempotency.service.js";

/** The workers' crontab runs it every ten minutes: keys are remembered for 24 hours only. */
export function idempotencyTasks(
  idempotency: IdempotencyService,
): Record<"expire-idempotency-keys", Task> {
  return {
    "expire-idempotency-keys": async () => {
      await idempotency.deleteExpired();
    },
  };
}
