import type { RequestOptions, Transport } from "../request.js";
import type {
  ApiRevision,
  DefaultRevision,
  RefundOrderRequest,
  RefundOrderResponse,
  RegisterOrderRequest,
  RegisterOrderResponse,
} from "../revision.js";

/**
 * Orders and refunds (HTTP Basic with the API key). Both answer 201 once the request is stored;
 * points are computed shortly after (see the history, or the POINTS_EARNED webhook).
 */
export class Orders<R extends ApiRevision = DefaultRevision> {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Registers an order (from a checkout or order-paid hook). Registering the same order again
   * changes nothing: the first registration stands.
   */
  async register<C extends ApiRevision = R>(
    order: RegisterOrderRequest<C>,
    options?: RequestOptions<C>,
  ): Promise<RegisterOrderResponse<C>> {
    return this.#transport.request(
      { method: "POST", path: "/api/order/register", body: order, basicAuth: true },
      options,
    );
  }

  /**
   * Declares an order cancelled, refunded or partially refunded (from a credit-note hook).
   * Amounts and quantities are CUMULATIVE since the order was placed, never the current credit
   * note's: declaring the same state twice deducts nothing the second time.
   */
  async refund<C extends ApiRevision = R>(
    refund: RefundOrderRequest<C>,
    options?: RequestOptions<C>,
  ): Promise<RefundOrderResponse<C>> {
    return this.#transport.request(
      { method: "POST", path: "/api/order/refund", body: refund, basicAuth: true },
      options,
    );
  }
}
