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
};
