import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

export const ordersTaskDefinitions = {
  /**
   * One order: alone when its store's batch failed (so that the failure is its own or not),
   * else with as many of its store's pending orders as wait (jobs queued before store jobs).
   */
  "process-order": defineTask({
    payload: z.object({
      orderId: z.number().int().positive(),
      alone: z.boolean().optional(),
    }),
    handler:
      ({ orders }: Pick<Services, "orders">) =>
      async ({ orderId, alone }, helpers) => {
        if (alone) {
          // A failure is counted on the order (other batches leave it out), and retried.
          await orders.processOrderAlone(orderId);
          return;
        }
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
  /**
   * A store's pending orders, credited in batches, then its pending refunds, applied in
   * batches: the job its registrations and refund declarations add.
   */
  "credit-store-orders": defineTask({
    payload: z.object({ storeId: z.number().int().positive() }),
    handler:
      ({ orders }: Pick<Services, "orders">) =>
      async ({ storeId }) => {
        await orders.creditStore(storeId);
      },
  }),
  /** A crediting job for the stores whose pending orders or refunds waited a minute with none. */
  "credit-stranded-orders": defineTask({
    payload: z.object({}),
    handler:
      ({ orders }: Pick<Services, "orders">) =>
      async () => {
        await orders.creditStrandedOrders();
      },
    cron: { match: "* * * * *", options: { maxAttempts: 1, queueName: "stranded-orders" } },
  }),
  /**
   * One refund, applied alone: its store's crediting job applies refunds in batches, and hands
   * those of a batch that failed to jobs of their own (so that the failure is its own or not).
   */
  "process-refund": defineTask({
    payload: z.object({ refundId: z.number().int().positive() }),
    handler:
      ({ orders }: Pick<Services, "orders">) =>
      async ({ refundId }) => {
        await orders.processRefund(refundId);
      },
  }),
};
