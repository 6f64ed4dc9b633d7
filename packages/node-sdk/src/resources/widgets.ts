import type {
  CartWidgetResponse,
  LauncherWidgetResponse,
  ProductPointsWidgetResponse,
  ProgramPresentationWidgetResponse,
} from "../generated/contracts.js";
import type { RequestOptions, StoreContext, Transport } from "../request.js";

/** The storefront widgets' configurations, as set in the back-office (public). */
export class Widgets {
  readonly #transport: Transport;
  readonly #store: StoreContext;

  constructor(transport: Transport, store: StoreContext) {
    this.#transport = transport;
    this.#store = store;
  }

  #get<T>(path: string, options: RequestOptions | undefined): Promise<T> {
    return this.#transport.request(
      { method: "GET", path, query: { domain: this.#store.domain } },
      options,
    );
  }

  /** The cart widget's configuration. */
  async cart(options?: RequestOptions): Promise<CartWidgetResponse> {
    return this.#get("/store/widget/cart", options);
  }

  /** The product-points widget's configuration. */
  async productPoints(options?: RequestOptions): Promise<ProductPointsWidgetResponse> {
    return this.#get("/store/widget/product-points", options);
  }

  /** The programme presentation widget's configuration. */
  async programPresentation(options?: RequestOptions): Promise<ProgramPresentationWidgetResponse> {
    return this.#get("/store/widget/program-presentation", options);
  }

  /**
   * The launcher's configuration, with the referral programme's offer (`referral`, null while
   * the store takes no invitations). Beyond the spec.
   */
  async launcher(options?: RequestOptions): Promise<LauncherWidgetResponse> {
    return this.#get("/store/widget/launcher", options);
  }
}
