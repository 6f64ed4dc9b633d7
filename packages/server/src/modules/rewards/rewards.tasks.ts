import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const rewardsTaskDefinitions = {
  /** Settles claims whose request died midway. */
  "reconcile-claims": defineTask({
    payload: z.object({}),
    handler:
      ({ rewards }: Pick<Services, "rewards">) =>
      async () => {
        await rewards.reconcileStaleClaims();
      },
    // Once a minute; the named queue runs one at a time, so a slow run is never overlapped by
    // the next.
    cron: { match: "* * * * *", options: { maxAttempts: 1, queueName: "claims-reconciliation" } },
  }),
};
