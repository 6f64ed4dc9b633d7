import type { Task } from "graphile-worker";
import { z } from "zod";
import type { ReferralsService } from "./referrals.service.js";

const invitationJob = z.object({ referralId: z.number().int().positive() });

export function referralsTasks(
  referrals: ReferralsService,
): Record<"send-referral-invitation", Task> {
  return {
    "send-referral-invitation": async (payload) => {
      await referrals.sendInvitation(invitationJob.parse(payload).referralId);
    },
  };
}
