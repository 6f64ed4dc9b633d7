import type { RecordActivityRequest, RecordActivityResponse } from "../generated/contracts.js";
import type { RequestOptions, Transport } from "../request.js";
import type { ApiRevision } from "../revision.js";

/**
 * Ways to earn beyond orders (HTTP Basic with the API key): sign-ups, birthdays, reviews,
 * newsletter subscriptions, social follows and the store's own kinds, as its back-office rewards
 * them.
 */
export class Activities {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Reports an activity. The same `activityId` sent again (a retried hook, two servers) is
   * credited once and answers as the first time; a kind the store does not reward answers
   * `not-rewarded`, one past its limit for the period `limit-reached`.
   */
  async record<C extends ApiRevision>(
    activity: RecordActivityRequest,
    options?: RequestOptions<C>,
  ): Promise<RecordActivityResponse> {
    return this.#transport.request(
      { method: "POST", path: "/api/activity", body: activity, basicAuth: true },
      options,
    );
  }
}
