import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const ordersTaskDefinitions = {
  "process-order": defineTask({
    payload: z.object({ orderId: z.number().int().positive() }),
    handler:
      ({ orders }: Pick<Services, "orders">) =>
      async ({ orderId }, helpers) => {
        try {
          await orders.processOrder(orderId, { batch: true });
        } catch (error) {
          // One bad order must not hold back the others it was batched with: alone, it either
          // passes or fails by itself, and the queue retries it.
          helpers.logger.warn(
            `batch with order ${orderId} failed, processing it alone: ${String(error)}`,
          );
          await orders.processOrderAlone(orderId);
        }
      },
  }),
  "process-refund": defineTask({
    payload: z.object({ refundId: z.number().int().positive() }),
    handler:
      ({ orders }: Pick<Services, "orders">) =>
      async ({ refundId }) => {
        await orders.processRefund(refundId);
      },
  }),
};
