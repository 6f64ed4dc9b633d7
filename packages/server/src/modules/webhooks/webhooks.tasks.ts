import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const webhooksTaskDefinitions = {
  /**
   * One attempt of one delivery. It resolves whatever the endpoint answered (the service
   * schedules its own retries) and rejects only on an unexpected error, which the job queue
   * retries.
   */
  "deliver-webhook": defineTask({
    payload: z.object({ deliveryId: z.number().int().positive() }),
    handler:
      ({ webhooks }: Pick<Services, "webhooks">) =>
      async ({ deliveryId }) => {
        await webhooks.deliver(deliveryId);
      },
  }),
};
