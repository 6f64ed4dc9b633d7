import type { Task } from "graphile-worker";
import { z } from "zod";
import type { ReferralsService } from "./referrals.service.js";

const referralJob = z.object({ referralId: z.number().int().positive() });

export function referralsTasks(
  referrals: ReferralsService,
): Record<"send-referral-invitation" | "credit-referral-bonus", Task> {
  return {
    "send-referral-invitation": async (payload) => {
      await referrals.sendInvitation(referralJob.parse(payload).referralId);
    },
    "credit-referral-bonus": async (payload) => {
      await referrals.creditBonus(referralJob.parse(payload).referralId);
    },
  };
}
