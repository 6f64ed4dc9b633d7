import type { Task } from "graphile-worker";
import { z } from "zod";
import type { OrdersService } from "./orders.service.js";

const orderJob = z.object({ orderId: z.number().int().positive() });
const refundJob = z.object({ refundId: z.number().int().positive() });

export function ordersTasks(
  orders: OrdersService,
): Record<"process-order" | "process-refund", Task> {
  return {
    "process-order": async (payload, helpers) => {
      const { orderId } = orderJob.parse(payload);
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
    "process-refund": async (payload) => {
      const { refundId } = refundJob.parse(payload);
      await orders.processRefund(refundId);
    },
  };
}
