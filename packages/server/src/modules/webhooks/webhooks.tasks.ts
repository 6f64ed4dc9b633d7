import type { Task } from "graphile-worker";
import { z } from "zod";
import type { TaskPayloads } from "../../jobs/queue.js";
import type { WebhooksService } from "./webhooks.service.js";

const deliveryJob: z.ZodType<TaskPayloads["deliver-webhook"]> = z.object({
  deliveryId: z.number().int().positive(),
});

/**
 * `deliver-webhook`: one attempt of one delivery. It resolves whatever the endpoint answered
 * (the service schedules its own retries) and rejects only on an unexpected error, which the
 * job queue retries.
 */
export function webhooksTasks(webhooks: WebhooksService): Record<"deliver-webhook", Task> {
  return {
    "deliver-webhook": async (payload, helpers) => {
      const parsed = deliveryJob.safeParse(payload);
      if (!parsed.success) {
        throw new Error(`deliver-webhook job ${helpers.job.id}: invalid payload`, {
          cause: parsed.error,
        });
      }
      await webhooks.deliver(parsed.data.deliveryId);
    },
  };
}
