import type {
  CreateReferralRequest,
  CreateReferralResponse,
  RefereeCodeRequest,
  RefereeCodeResponse,
} from "../generated/contracts.js";
import { customerIdText, type CustomerId } from "../hash.js";
import type { RequestOptions, StoreContext, Transport } from "../request.js";

/** Referrals: a customer invites someone (HMAC); the invited person gets a code (public). */
export class Referrals {
  readonly #transport: Transport;
  readonly #store: StoreContext;

  constructor(transport: Transport, store: StoreContext) {
    this.#transport = transport;
    this.#store = store;
  }

  /**
   * Registers the referral of `referral.email` by the customer `referrerId`, and sends the
   * invitation email. Throws LoyaltyValidationError with reason referral-customer-already-exists,
   * referral-already-pending or referral-already-completed when the address cannot be referred.
   */
  async create(
    referrerId: CustomerId,
    referral: CreateReferralRequest,
    options?: RequestOptions,
  ): Promise<CreateReferralResponse> {
    const id = customerIdText(referrerId);
    return this.#transport.request(
      {
        method: "POST",
        path: "/point/referral",
        query: { externalId: id, hash: this.#store.customerHash(id), domain: this.#store.domain },
        body: referral,
      },
      options,
    );
  }

  /** The referred person's discount code, from the hash of their invitation (same code every time). */
  async getRefereeCode(
    request: RefereeCodeRequest,
    options?: RequestOptions,
  ): Promise<RefereeCodeResponse> {
    return this.#transport.request(
      { method: "POST", path: "/reward/referral/get-referee-code", body: request },
      options,
    );
  }
}
