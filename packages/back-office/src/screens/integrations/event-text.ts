import { msg } from "@lit/localize";
import type { EventType } from "@loyalty/shared-types";

/** An event of the programme, in words. */
export function eventLabel(event: EventType): string {
  switch (event) {
    case "ORDER_REGISTERED":
      return msg("Order registered");
    case "POINTS_EARNED":
      return msg("Points earned");
    case "ORDER_REFUNDED":
      return msg("Order refunded");
    case "POINTS_DEDUCTED":
      return msg("Points deducted");
    case "REWARD_OBTAINED":
      return msg("Reward obtained");
    case "POINTS_EXPIRING":
      return msg("Points about to expire");
    case "POINTS_EXPIRED":
      return msg("Points expired");
    case "CLUB_CHANGED":
      return msg("Club changed");
  }
}
