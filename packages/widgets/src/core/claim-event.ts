/**
 * The event a claim dispatches (rewards.ts) and every widget of the page listens to
 * (element.ts): a claim in one widget spends the balance the others show.
 */
export const CLAIMED_EVENT = "loyalty-reward-claimed";

/** The `loyalty-reward-claimed` event's detail: the store's script may apply the code itself. */
export interface RewardClaimedDetail {
  rewardId: number;
  code: string;
  pointsSpent: number;
  balance: number;
  expiresAt: string | null;
  /** The store and the customer, so that every widget of the page knows whose balance moved. */
  domain: string;
  customerId: string;
}
