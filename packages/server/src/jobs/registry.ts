import type { CronItem } from "graphile-worker";
import type { z } from "zod";
import { idempotencyTaskDefinitions } from "../modules/idempotency/idempotency.tasks.js";
import { ordersTaskDefinitions } from "../modules/orders/orders.tasks.js";
import { overviewTaskDefinitions } from "../modules/overview/overview.tasks.js";
import { programTaskDefinitions } from "../modules/program/program.tasks.js";
import { referralsTaskDefinitions } from "../modules/referrals/referrals.tasks.js";
import { rewardsTaskDefinitions } from "../modules/rewards/rewards.tasks.js";
import { webhooksTaskDefinitions } from "../modules/webhooks/webhooks.tasks.js";
import type { TaskDefinition } from "./task.js";

/**
 * Every task the workers run, from the modules that own them: the one place a task is named.
 * `enqueue`, the jobs added by SQL (`jobSql`), the worker's task list and its crontab read it,
 * so renaming a task, or a field of its payload, fails to compile wherever it is used.
 */
export const taskRegistry = {
  ...ordersTaskDefinitions,
  ...webhooksTaskDefinitions,
  ...rewardsTaskDefinitions,
  ...programTaskDefinitions,
  ...referralsTaskDefinitions,
  ...idempotencyTaskDefinitions,
  ...overviewTaskDefinitions,
} satisfies Record<string, TaskDefinition>;

export type TaskName = keyof typeof taskRegistry;

/** What a job of `T` carries, as its adder writes it. */
export type TaskPayload<T extends TaskName> = z.input<(typeof taskRegistry)[T]["payload"]>;

/** The crontab: the registry's tasks that have a schedule. */
export function cronItems(): CronItem[] {
  return Object.entries(taskRegistry).flatMap(([task, definition]: [string, TaskDefinition]) =>
    definition.cron
      ? [{ task, match: definition.cron.match, options: definition.cron.options }]
      : [],
  );
}
