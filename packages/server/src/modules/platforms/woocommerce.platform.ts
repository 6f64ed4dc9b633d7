/*
 * WooCommerce, through its REST API v3 (/wp-json/wc/v3), as documented in the WooCommerce REST
 * API docs (woocommerce.github.io/woocommerce-rest-api-docs, sources in
 * woocommerce/woocommerce-rest-api-docs, source/includes/wp-api-v3):
 * - _authentication.md: HTTP Basic with the key pair over HTTPS; over plain HTTP, OAuth 1.0a
 *   "one-legged" with the oauth_* parameters in the query string, HMAC-SHA1 or HMAC-SHA256, body
 *   not signed, timestamp within 15 minutes. The signing was checked against
 *   WC_REST_Authentication::check_oauth_signature (includes/class-wc-rest-authentication.php):
 *   every query parameter is signed, the key is the raw secret followed by "&".
 * - _coupons.md: POST /coupons (code, description, discount_type percent|fixed_cart, amount as a
 *   string, individual_use, usage_limit, usage_limit_per_user, free_shipping, minimum_amount,
 *   email_restrictions, date_expires, date_expires_gmt) and GET /coupons?code=. A code already
 *   taken answers 400 `woocommerce_rest_coupon_code_already_exists`
 *   (WC_REST_Coupons_V2_Controller::prepare_object_for_database); codes are stored in lower case
 *   (the `woocommerce_coupon_code` filter runs wc_strtolower).
 * - _customers.md: GET /customers?email=&role= (role defaults to `customer`).
 * - _introduction.md, Errors: a body `{ code, message, data: { status } }`.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { PlatformConnection, VoucherTerms } from "@loyalty/shared-types";
import {
  failForStatus,
  platformFetch,
  type PlatformHttpOptions,
  type PlatformResponse,
} from "./platform.http.js";
import { type DiscountCodeRequest, type PlatformAdapter, PlatformError } from "./platform.types.js";

const PLATFORM = "WooCommerce";
const API_PATH = "/wp-json/wc/v3";
const CODE_TAKEN = "woocommerce_rest_coupon_code_already_exists";

/** The documented coupon fields this adapter writes. */
interface CouponInput {
  code: string;
  description: string;
  discount_type: "percent" | "fixed_cart";
  amount: string;
  individual_use: boolean;
  usage_limit: number;
  usage_limit_per_user: number;
  free_shipping?: boolean;
  minimum_amount?: string;
  email_restrictions?: string[];
  date_expires?: string;
  date_expires_gmt?: string;
}

export class WooCommercePlatform implements PlatformAdapter {
  readonly kind = "woocommerce";

  constructor(
    private readonly connection: Extract<PlatformConnection, { platform: "woocommerce" }>,
    private readonly options: PlatformHttpOptions,
  ) {}

  async createDiscountCode(request: DiscountCodeRequest): Promise<void> {
    const response = await this.send("POST", "/coupons", {}, couponFor(request));
    if (isSuccess(response.status)) return;
    // The code is generated before the platform is asked: the one found is this claim's own.
    if (response.status === 400 && errorCode(response.body) === CODE_TAKEN) return;
    failForStatus(PLATFORM, response);
  }

  async discountCodeExists(code: string): Promise<boolean> {
    const coupons = listOf(await this.send("GET", "/coupons", { code }), "coupons");
    // WooCommerce lower-cases every code it stores; the service generates upper-case ones.
    const wanted = code.toLowerCase();
    return coupons.some((coupon) => stringField(coupon, "code")?.toLowerCase() === wanted);
  }

  async findCustomerByEmail(email: string): Promise<{ id: string } | null> {
    // Without role=all only the `customer` role is searched: a shop manager who buys is missed.
    const customers = listOf(
      await this.send("GET", "/customers", { email, role: "all" }),
      "customers",
    );
    const id = idOf(customers[0]);
    return id === null ? null : { id };
  }

  private send(
    method: "GET" | "POST",
    path: string,
    query: Record<string, string>,
    body?: CouponInput,
  ): Promise<PlatformResponse> {
    const endpoint = new URL(`${this.connection.url}${API_PATH}${path}`);
    // The URL OAuth signs: no query, no default port, as WordPress rebuilds it from its home URL.
    const base = `${endpoint.origin}${endpoint.pathname}`;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let parameters = query;
    if (endpoint.protocol === "https:") {
      const pair = `${this.connection.consumerKey}:${this.connection.consumerSecret}`;
      headers.Authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
    } else {
      // Over plain HTTP WooCommerce ignores Basic auth: the secret would travel in clear text.
      parameters = this.signed(method, base, query);
    }
    const search = Object.entries(parameters)
      .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
      .join("&");
    return platformFetch(PLATFORM, search ? `${base}?${search}` : base, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.options.timeoutMs,
      outbound: this.options.outbound,
    });
  }

  /** The query with WooCommerce's one-legged OAuth 1.0a parameters added (RFC 5849, no token). */
  private signed(
    method: string,
    base: string,
    query: Record<string, string>,
  ): Record<string, string> {
    const parameters: Record<string, string> = {
      ...query,
      oauth_consumer_key: this.connection.consumerKey,
      // 32 characters, as the documentation recommends; WooCommerce refuses a reused one.
      oauth_nonce: randomBytes(16).toString("hex"),
      oauth_signature_method: "HMAC-SHA256",
      oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const normalized = Object.entries(parameters)
      .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => `${name}=${value}`)
      .join("&");
    const baseString = `${method}&${percentEncode(base)}&${percentEncode(normalized)}`;
    // WooCommerce keys the HMAC with the secret as stored, not percent-encoded as RFC 5849 says.
    const signature = createHmac("sha256", `${this.connection.consumerSecret}&`)
      .update(baseString)
      .digest("base64");
    return { ...parameters, oauth_signature: signature };
  }
}

function couponFor(request: DiscountCodeRequest): CouponInput {
  const coupon: CouponInput = {
    code: request.code,
    description: request.title,
    ...discountOf(request.terms),
    // A reward is not stacked on the shop's other promotions.
    individual_use: true,
    usage_limit: 1,
    usage_limit_per_user: 1,
  };
  if (request.terms.minimumOrderAmount !== null) {
    coupon.minimum_amount = String(request.terms.minimumOrderAmount);
  }
  if (request.customer.email !== null) coupon.email_restrictions = [request.customer.email];
  // WooCommerce coupons have no start date: usable from creation, which is when startsAt is.
  if (request.expiresAt !== null) {
    const expires = utcSeconds(request.expiresAt);
    // The controller writes a field through WC_Coupon::set_<field>, and there is no
    // set_date_expires_gmt: date_expires carries the date, its "Z" read as UTC by
    // WC_Data::set_date_prop instead of the site's timezone.
    coupon.date_expires = expires;
    coupon.date_expires_gmt = expires;
  }
  return coupon;
}

function discountOf(terms: VoucherTerms): Pick<CouponInput, "discount_type" | "amount"> & {
  free_shipping?: true;
} {
  switch (terms.kind) {
    case "percentage":
      return { discount_type: "percent", amount: String(terms.value ?? 0) };
    case "fixed_amount":
      return { discount_type: "fixed_cart", amount: String(terms.value ?? 0) };
    case "free_shipping":
      // Takes effect where the shop's free shipping method requires "a valid free shipping coupon".
      return { discount_type: "fixed_cart", amount: "0", free_shipping: true };
  }
}

/** `YYYY-MM-DDTHH:MM:SSZ`: set_date_prop's pattern has no fraction of a second. */
function utcSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** RFC 3986 percent-encoding, as PHP's rawurlencode that WooCommerce signs with. */
function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function errorCode(body: unknown): unknown {
  return typeof body === "object" && body !== null ? (body as { code?: unknown }).code : undefined;
}

/** The array a collection endpoint answers; any failure throws the PlatformError it means. */
function listOf(response: PlatformResponse, what: string): unknown[] {
  if (!isSuccess(response.status)) failForStatus(PLATFORM, response);
  if (!Array.isArray(response.body)) {
    // A cache or security plugin's page served with 200, or a site without pretty permalinks.
    throw new PlatformError(
      "platform-unavailable",
      `${PLATFORM} answered HTTP ${response.status} without a JSON list of ${what}`,
    );
  }
  return response.body as unknown[];
}

function stringField(item: unknown, field: string): string | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const value = (item as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
}

function idOf(item: unknown): string | null {
  if (typeof item !== "object" || item === null) return null;
  const id = (item as { id?: unknown }).id;
  return typeof id === "number" || typeof id === "string" ? String(id) : null;
}
