import {
  customerHash,
  customerIdText,
  type CustomerId,
  type HashCredentials,
  type WidgetAttributes,
} from "./hash.js";
import {
  Transport,
  checkMaxRetries,
  checkOptionNames,
  checkRevision,
  checkTimeout,
  type StoreContext,
} from "./request.js";
import { Customers } from "./resources/customers.js";
import { Activities } from "./resources/activities.js";
import { Orders } from "./resources/orders.js";
import { Products } from "./resources/products.js";
import { Referrals } from "./resources/referrals.js";
import { Rewards } from "./resources/rewards.js";
import { Widgets } from "./resources/widgets.js";
import { API_REVISION, type ApiRevision, type DefaultRevision } from "./revision.js";
import { webhooks } from "./webhooks.js";

export interface LoyaltyClientOptions<R extends ApiRevision = ApiRevision> {
  /** An active API key of the store (back-office). Server-side only. */
  apiKey: string;
  /** The store's internal reference (back-office), the other half of the hash key. Server-side only. */
  storeReference: string;
  /** The store's domain as declared in the back-office: an origin, `https://shop.example`. */
  domain: string;
  /** The API's URL, `https://loyalty.example.com` (a path prefix is kept). */
  baseUrl: string;
  /**
   * The API revision of every call (a call may override it). Defaults to `API_REVISION`, the
   * one this release is written for; the client's types follow the revision given here.
   */
  revision?: R;
  /** Milliseconds each attempt may take: 30 000 by default. */
  timeout?: number;
  /**
   * Retries after a connection error, a timeout, 429, 502, 503, or a 5xx with `Retry-After`:
   * 2 by default.
   */
  maxRetries?: number;
  /** The fetch to call (a test double, an instrumented fetch): the global one by default. */
  fetch?: typeof fetch;
  /** Where warnings go (a deprecated revision): console.warn by default. */
  logger?: (message: string) => void;
}

const CLIENT_OPTIONS = [
  "apiKey",
  "storeReference",
  "domain",
  "baseUrl",
  "revision",
  "timeout",
  "maxRetries",
  "fetch",
  "logger",
] as const;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const WHERE = "LoyaltyClient";

function requiredString(options: Record<string, unknown>, name: string, hint: string): string {
  const value = options[name];
  if (typeof value !== "string" || value.trim() === "") {
    throw new TypeError(`${WHERE}: ${name} is required (${hint}).`);
  }
  return value;
}

function httpUrl(value: string, name: string, example: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new TypeError(`${WHERE}: ${name} must be a URL such as ${example}; received "${value}".`);
  }
  return url;
}

function optionalFunction<F>(value: unknown, name: string): F | undefined {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`${WHERE}: ${name} must be a function.`);
  }
  return value as F | undefined;
}

/**
 * The Loyalty Points API for a store's backend. One client per store; it is safe to share
 * between requests.
 *
 * ```ts
 * const loyalty = new LoyaltyClient({ apiKey, storeReference, domain, baseUrl });
 * await loyalty.orders.register(order);
 * ```
 */
export class LoyaltyClient<R extends ApiRevision = DefaultRevision> {
  /** The revision every call uses unless it says otherwise. */
  readonly revision: R;
  readonly domain: string;
  readonly baseUrl: string;
  /** Register orders and declare refunds. */
  readonly orders: Orders<R>;
  /** Reward ways to earn beyond orders: sign-ups, birthdays, reviews… */
  readonly activities: Activities;
  /** The points a product earns. */
  readonly products: Products;
  /** A customer's balance, club and history. */
  readonly customers: Customers<R>;
  /** The reward catalogue, and claims. */
  readonly rewards: Rewards;
  /** Referrals and the referred person's code. */
  readonly referrals: Referrals;
  /** The storefront widgets' configurations. */
  readonly widgets: Widgets;
  /** Verify webhook deliveries. */
  readonly webhooks = webhooks;
  // Private fields: the key and reference never show in a log of the client.
  readonly #credentials: HashCredentials;

  constructor(options: LoyaltyClientOptions<R>) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(
        `${WHERE}: options are required (apiKey, storeReference, domain, baseUrl).`,
      );
    }
    checkOptionNames(options, CLIENT_OPTIONS, WHERE);
    const given = options as unknown as Record<string, unknown>;
    this.#credentials = {
      apiKey: requiredString(given, "apiKey", "an API key of the store, from the back-office"),
      storeReference: requiredString(
        given,
        "storeReference",
        "the store's reference, from the back-office",
      ),
    };
    this.domain = requiredString(
      given,
      "domain",
      "the store's origin, such as https://shop.example",
    );
    httpUrl(this.domain, "domain", "https://shop.example");
    const baseUrl = requiredString(given, "baseUrl", "the API's URL");
    httpUrl(baseUrl, "baseUrl", "https://loyalty.example.com");
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.revision = (
      options.revision === undefined ? API_REVISION : checkRevision(options.revision, WHERE)
    ) as R;

    const transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey: this.#credentials.apiKey,
      revision: this.revision,
      timeout:
        options.timeout === undefined ? DEFAULT_TIMEOUT_MS : checkTimeout(options.timeout, WHERE),
      maxRetries:
        options.maxRetries === undefined
          ? DEFAULT_MAX_RETRIES
          : checkMaxRetries(options.maxRetries, WHERE),
      fetch: optionalFunction<typeof fetch>(options.fetch, "fetch"),
      // eslint-disable-next-line no-console -- the documented default; pass `logger` to redirect it
      logger: optionalFunction<(message: string) => void>(options.logger, "logger") ?? console.warn,
    });
    const store: StoreContext = {
      domain: this.domain,
      customerHash: (externalId) => this.customerHash(externalId),
    };
    this.orders = new Orders<R>(transport);
    this.activities = new Activities(transport);
    this.products = new Products(transport, store);
    this.customers = new Customers<R>(transport, store);
    this.rewards = new Rewards(transport, store);
    this.referrals = new Referrals(transport, store);
    this.widgets = new Widgets(transport, store);
  }

  /** The customer's hash (hex HMAC-SHA512 of the id keyed `<storeReference>:<apiKey>`). */
  customerHash(externalId: CustomerId): string {
    return customerHash(externalId, this.#credentials);
  }

  /**
   * The attributes of a widget tag: the store's `domain` and `api-base`, and for a logged-in
   * customer `customer-id` and `customer-hash`. Never the reference or the key. Pass `apiBase`
   * when browsers reach the API at another URL than this server does.
   */
  widgetAttributes(
    externalId?: CustomerId | null,
    { apiBase = this.baseUrl }: { apiBase?: string } = {},
  ): WidgetAttributes {
    const attributes: WidgetAttributes = { domain: this.domain, "api-base": apiBase };
    if (externalId !== undefined && externalId !== null) {
      attributes["customer-id"] = customerIdText(externalId);
      attributes["customer-hash"] = this.customerHash(externalId);
    }
    return attributes;
  }
}
