import type {
  ClaimRefusal,
  ClaimRewardRequest,
  ClaimRewardResponse,
  CustomerCode,
  Reward,
} from "../generated/contracts.js";
import { customerIdText, type CustomerId } from "../hash.js";
import type { RequestOptions, StoreContext, Transport } from "../request.js";

/**
 * What a claim gives: the code (`code` is a string), or a refusal (`code` is null, `reason`
 * says why: insufficient-balance, voucher-inactive or usage-limit-reached). A refusal is an
 * answer to show the customer, not an error: check `result.code === null`.
 */
export type ClaimResult = ClaimRewardResponse | ClaimRefusal;

function isRefusal(status: number, body: unknown, headers: Headers): boolean {
  return (
    status === 404 &&
    !headers.get("content-type")?.includes("problem+json") &&
    typeof body === "object" &&
    body !== null &&
    (body as { code?: unknown }).code === null
  );
}

/** The reward catalogue (public), claims and a customer's codes (HMAC). */
export class Rewards {
  readonly #transport: Transport;
  readonly #store: StoreContext;

  constructor(transport: Transport, store: StoreContext) {
    this.#transport = transport;
    this.#store = store;
  }

  /** The rewards a customer can obtain now, cheapest (`triggerValue`) first. */
  async list(options?: RequestOptions): Promise<Reward[]> {
    return this.#transport.request(
      { method: "GET", path: "/reward/list", query: { domain: this.#store.domain } },
      options,
    );
  }

  /**
   * Exchanges a customer's points for a single-use voucher code. Resolves with the code, or
   * with the refusal when the customer cannot have the reward; throws for anything else (an
   * unknown customer is LoyaltyNotFoundError, a platform failure LoyaltyPlatformError).
   */
  async claim(
    externalId: CustomerId,
    request: ClaimRewardRequest,
    options?: RequestOptions,
  ): Promise<ClaimResult> {
    const id = customerIdText(externalId);
    return this.#transport.request(
      {
        method: "POST",
        path: `/reward/claim/${id}`,
        query: { domain: this.#store.domain, hash: this.#store.customerHash(id) },
        body: request,
        isResult: isRefusal,
      },
      options,
    );
  }

  /**
   * The codes a customer can still use, newest first (at most 100): claimed, not expired, and
   * named by none of their orders' `discountCodes`. Each with its reward's name and the
   * voucher's conditions. A customer the store has not seen yet has none.
   */
  async listCodes(externalId: CustomerId, options?: RequestOptions): Promise<CustomerCode[]> {
    const id = customerIdText(externalId);
    const { codes } = await this.#transport.request<{ codes: CustomerCode[] }>(
      {
        method: "GET",
        path: `/reward/codes/${id}`,
        query: { domain: this.#store.domain, hash: this.#store.customerHash(id) },
      },
      options,
    );
    return codes;
  }
}
