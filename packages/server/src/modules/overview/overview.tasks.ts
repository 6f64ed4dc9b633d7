import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const overviewTaskDefinitions = {
  /** Moves the overview's deltas into its sums (OverviewService.foldDeltas). */
  "fold-overview-sums": defineTask({
    payload: z.object({}),
    handler:
      ({ overview }: Pick<Services, "overview">) =>
      async () => {
        await overview.foldDeltas();
      },
    // Once a minute: the overview reads a minute's deltas at most (a few thousand rows at 200
    // orders a second), and a fold has that much to move. The named queue runs one at a time;
    // a fold that fails is tried again (the next minute's folds the same rows anyway).
    cron: { match: "* * * * *", options: { maxAttempts: 3, queueName: "overview-sums" } },
  }),
};
