import { z } from "zod";
import { defineTask } from "../../jobs/task.js";
import type { Services } from "../../runtime.js";

const referralJob = z.object({ referralId: z.number().int().positive() });

export const referralsTaskDefinitions = {
  "send-referral-invitation": defineTask({
    payload: referralJob,
    handler:
      ({ referrals }: Pick<Services, "referrals">) =>
      async ({ referralId }) => {
        await referrals.sendInvitation(referralId);
      },
  }),
  "credit-referral-bonus": defineTask({
    payload: referralJob,
    handler:
      ({ referrals }: Pick<Services, "referrals">) =>
      async ({ referralId }) => {
        await referrals.creditBonus(referralId);
      },
  }),
};
