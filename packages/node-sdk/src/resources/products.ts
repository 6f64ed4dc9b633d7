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

/** Products per calculate-many request: the server's limit. */
const BATCH_LIMIT = 100;

const isId = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

/** A product as its page shows it: `<product>:<price>[:<category>|…]` on the wire. */
function itemText(item: CalculatePointsParams, index: number): string {
  checkOptionNames(item, ["price", "product", "categories"], "products.calculateManyPoints");
  // A text would be read as other fields, or other products: the answers would not line up.
  if (
    typeof item.price !== "number" ||
    !Number.isFinite(item.price) ||
    (item.product !== undefined && !isId(item.product)) ||
    (item.categories !== undefined && !item.categories.every(isId))
  ) {
    throw new TypeError(
      `products.calculateManyPoints: product ${index} needs a numeric price, and whole-number product and categories`,
    );
  }
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
   * The points of many products at once (a collection page's), each as `calculatePoints`
   * computes it, in the order given: one request per 100 products.
   */
  async calculateManyPoints(
    products: readonly CalculatePointsParams[],
    options?: RequestOptions,
  ): Promise<ProductPoints[]> {
    const items = products.map(itemText);
    const requests: Promise<ProductPoints[]>[] = [];
    for (let start = 0; start < items.length; start += BATCH_LIMIT) {
      const chunk = items.slice(start, start + BATCH_LIMIT);
      requests.push(
        this.#transport
          .request<{ items: ProductPoints[] }>(
            {
              method: "GET",
              path: "/point/product-points/calculate-many",
              query: { items: chunk.join(","), domain: this.#store.domain },
            },
            options,
          )
          .then((answer) => answer.items),
      );
    }
    return (await Promise.all(requests)).flat();
  }
}
