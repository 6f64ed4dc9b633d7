import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import { countWebhookDelivery, type WebhookOutcome } from "../../metrics/metrics.js";
import type { Services } from "../../runtime.js";
import type { DeliveryOutcome } from "./webhooks.service.js";

/** An attempt's outcome as the metrics name it: a failed attempt, a delivery given up. */
const METRIC_OUTCOME: Record<DeliveryOutcome, WebhookOutcome> = {
  delivered: "delivered",
  "retry-scheduled": "failed",
  failed: "given_up",
  skipped: "skipped",
};

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
        countWebhookDelivery(METRIC_OUTCOME[await webhooks.deliver(deliveryId)]);
      },
  }),
};
