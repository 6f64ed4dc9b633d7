import type { CalculatePointsResponse } from "../generated/contracts.js";
import {
  checkOptionNames,
  type RequestOptions,
  type StoreContext,
  type Transport,
} from "../request.js";

export interface CalculatePointsParams {
  /** The price of one unit, at least 1. */
  price: number;
  /** The product's id in the store's platform: product rules match it. */
  product?: number;
  /** The product's categories: category rules match any of them. */
  categories?: readonly number[];
}

/** Points of products (public). */
export class Products {
  readonly #transport: Transport;
  readonly #store: StoreContext;

  constructor(transport: Transport, store: StoreContext) {
    this.#transport = transport;
    this.#store = store;
  }

  /** The points one unit of a product earns under the store's active rules, and the rule. */
  async calculatePoints(
    params: CalculatePointsParams,
    options?: RequestOptions,
  ): Promise<CalculatePointsResponse> {
    checkOptionNames(params, ["price", "product", "categories"], "products.calculatePoints");
    return this.#transport.request(
      {
        method: "GET",
        path: "/point/product-points/calculate",
        query: {
          price: params.price,
          product: params.product,
          categories: params.categories?.join(","),
          domain: this.#store.domain,
        },
      },
      options,
    );
  }
}
