import type { TaskList } from "graphile-worker";
import { idempotencyTasks } from "../modules/idempotency/idempotency.tasks.js";
import { ordersTasks } from "../modules/orders/orders.tasks.js";
import { referralsTasks } from "../modules/referrals/referrals.tasks.js";
import { rewardsTasks } from "../modules/rewards/rewards.tasks.js";
import { webhooksTasks } from "../modules/webhooks/webhooks.tasks.js";
import type { Services } from "../runtime.js";

/** Every task the workers run, from the modules that own them. */
export function taskList(services: Services): TaskList {
  return {
    ...ordersTasks(services.orders),
    ...webhooksTasks(services.webhooks),
    ...rewardsTasks(services.rewards),
    ...referralsTasks(services.referrals),
    ...idempotencyTasks(services.idempotency),
  };
}
