import type { CalculatePointsResponse, ProductPoints } from "../generated/contracts.js";
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

/** A product as its page shows it: `<product>:<price>[:<category>|…]` on the wire. */
function itemText(item: CalculatePointsParams): string {
  checkOptionNames(item, ["price", "product", "categories"], "products.calculateManyPoints");
  const categories = item.categories?.length ? `:${item.categories.join("|")}` : "";
  return `${item.product ?? ""}:${item.price}${categories}`;
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

  /**
   * The points of many products at once (a collection page's, up to 100) in one request, each
   * as `calculatePoints` computes it, in the order given.
   */
  async calculateManyPoints(
    products: readonly CalculatePointsParams[],
    options?: RequestOptions,
  ): Promise<ProductPoints[]> {
    const { items } = await this.#transport.request<{ items: ProductPoints[] }>(
      {
        method: "GET",
        path: "/point/product-points/calculate-many",
        query: { items: products.map(itemText).join(","), domain: this.#store.domain },
      },
      options,
    );
    return items;
  }
}
