import { customerIdText, type CustomerId } from "../hash.js";
import {
  checkOptionNames,
  type RequestOptions,
  type StoreContext,
  type Transport,
} from "../request.js";
import type { ApiRevision, CustomerHistory, DefaultRevision } from "../revision.js";

export interface HistoryParams {
  /** Transactions per page, 1 to 100 (20 by default). */
  limit?: number;
  /** The `nextCursor` of the previous page; none for the first. */
  cursor?: string;
}

/** A customer's points (HMAC: the client computes the customer hash). */
export class Customers<R extends ApiRevision = DefaultRevision> {
  readonly #transport: Transport;
  readonly #store: StoreContext;

  constructor(transport: Transport, store: StoreContext) {
    this.#transport = transport;
    this.#store = store;
  }

  /**
   * One page of a customer's history: balance, club, and transactions newest first. A
   * customer the store has not seen yet has a balance of 0.
   */
  async history<C extends ApiRevision = R>(
    externalId: CustomerId,
    params: HistoryParams = {},
    options?: RequestOptions<C>,
  ): Promise<CustomerHistory<C>> {
    checkOptionNames(params, ["limit", "cursor"], "customers.history");
    const id = customerIdText(externalId);
    return this.#transport.request(
      {
        method: "GET",
        path: `/point/user-history/${id}`,
        query: {
          domain: this.#store.domain,
          hash: this.#store.customerHash(id),
          limit: params.limit,
          cursor: params.cursor,
        },
      },
      options,
    );
  }

  /**
   * Every page of a customer's history, one request per page, from `params.cursor` (or the
   * newest) to the oldest: `for await (const page of client.customers.historyPages(id))`.
   */
  async *historyPages<C extends ApiRevision = R>(
    externalId: CustomerId,
    params: HistoryParams = {},
    options?: RequestOptions<C>,
  ): AsyncGenerator<CustomerHistory<C>, void, undefined> {
    let cursor = params.cursor;
    do {
      const page: CustomerHistory<C> = await this.history(
        externalId,
        { ...params, cursor },
        options,
      );
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}
