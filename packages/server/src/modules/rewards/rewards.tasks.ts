import type { Task } from "graphile-worker";
import type { RewardsService } from "./rewards.service.js";

/** The workers' crontab runs it every minute: it settles claims whose request died midway. */
export function rewardsTasks(rewards: RewardsService): Record<"reconcile-claims", Task> {
  return {
    "reconcile-claims": async () => {
      await rewards.reconcileStaleClaims();
    },
  };
}
