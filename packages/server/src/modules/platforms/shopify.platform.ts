/*
 * Shopify, through the GraphQL Admin API, as documented on shopify.dev for the pinned version:
 * - docs/api/admin-graphql/<version>/mutations/discountCodeBasicCreate and
 *   discountCodeFreeShippingCreate, with their inputs (DiscountCodeBasicInput,
 *   DiscountCodeFreeShippingInput, DiscountContextInput, DiscountCustomerGetsInput,
 *   DiscountMinimumRequirementInput, DiscountShippingDestinationSelectionInput);
 * - objects/DiscountUserError and enums/DiscountErrorCode (`TAKEN`: "The input value is already
 *   taken", with field [<argument>, "code"] for a code the shop already has);
 * - queries/codeDiscountNodeByCode (case-insensitive) and queries/customers with the API search
 *   syntax (docs/api/usage/search-syntax: quoted values, backslash escapes);
 * - docs/api/usage/response-codes (401 token, 402 frozen shop, 403 scope, 404, 423 locked shop,
 *   429, 5xx) and the GraphQL `errors` of an HTTP 200 (extensions.code THROTTLED, ACCESS_DENIED,
 *   changelog "New error messages for GraphQL operations without necessary access scopes").
 */
import type { PlatformConnection, VoucherTerms } from "@loyalty/shared-types";
import { failForStatus, platformFetch, type PlatformHttpOptions } from "./platform.http.js";
import {
  type DiscountCodeRequest,
  type PlatformAdapter,
  PlatformError,
  type PlatformFailureReason,
} from "./platform.types.js";

const PLATFORM = "Shopify";

const CREATE_BASIC = `mutation CreateLoyaltyCode($basicCodeDiscount: DiscountCodeBasicInput!) {
  discountCodeBasicCreate(basicCodeDiscount: $basicCodeDiscount) {
    codeDiscountNode { id }
    userErrors { field code message }
  }
}`;

const CREATE_FREE_SHIPPING = `mutation CreateLoyaltyFreeShippingCode($freeShippingCodeDiscount: DiscountCodeFreeShippingInput!) {
  discountCodeFreeShippingCreate(freeShippingCodeDiscount: $freeShippingCodeDiscount) {
    codeDiscountNode { id }
    userErrors { field code message }
  }
}`;

const CODE_BY_TEXT = `query LoyaltyCodeExists($code: String!) {
  codeDiscountNodeByCode(code: $code) { id }
}`;

const CUSTOMER_BY_EMAIL = `query LoyaltyCustomerByEmail($query: String!) {
  customers(first: 1, query: $query) { nodes { id email } }
}`;

interface UserError {
  field?: string[] | null;
  code?: string | null;
  message?: string;
}

interface CreatePayload {
  codeDiscountNode?: { id: string } | null;
  userErrors?: UserError[];
}

interface GraphqlError {
  message?: string;
  extensions?: { code?: string };
}

export class ShopifyPlatform implements PlatformAdapter {
  readonly kind = "shopify";

  constructor(
    private readonly connection: Extract<PlatformConnection, { platform: "shopify" }>,
    private readonly options: PlatformHttpOptions,
  ) {}

  async createDiscountCode(request: DiscountCodeRequest): Promise<void> {
    const freeShipping = request.terms.kind === "free_shipping";
    const common = {
      title: request.title,
      code: request.code,
      startsAt: request.startsAt.toISOString(),
      ...(request.expiresAt && { endsAt: request.expiresAt.toISOString() }),
      usageLimit: 1,
      appliesOncePerCustomer: true,
      ...(request.terms.minimumOrderAmount !== null && {
        minimumRequirement: {
          subtotal: { greaterThanOrEqualToSubtotal: String(request.terms.minimumOrderAmount) },
        },
      }),
      // `context` replaced the deprecated `customerSelection` of code discounts in 2025-10
      // (shopify.dev changelog "Introducing the new context field to specify discount
      // eligibility"); 2026-10 lists it among the fields required on creation.
      context:
        request.customer.externalId === null
          ? { all: "ALL" }
          : { customers: { add: [`gid://shopify/Customer/${request.customer.externalId}`] } },
    };
    const data = freeShipping
      ? await this.graphql(CREATE_FREE_SHIPPING, {
          freeShippingCodeDiscount: { ...common, destination: { all: true } },
        })
      : await this.graphql(CREATE_BASIC, {
          basicCodeDiscount: {
            ...common,
            customerGets: { value: discountValue(request.terms), items: { all: true } },
          },
        });
    const payload = (
      freeShipping ? data.discountCodeFreeShippingCreate : data.discountCodeBasicCreate
    ) as CreatePayload | null | undefined;
    if (!payload) throw unexpected("no mutation payload");
    const userErrors = payload.userErrors ?? [];
    // The code is the service's own: a shop that already has it got it from an earlier attempt.
    const taken = userErrors.some(
      (error) => error.code === "TAKEN" && error.field?.at(-1) === "code",
    );
    if (taken) return;
    if (userErrors.length > 0) {
      throw new PlatformError(
        "platform-request-rejected",
        `${PLATFORM} refused the discount code: ${userErrors.map(describeUserError).join("; ")}`,
      );
    }
    if (!payload.codeDiscountNode) throw unexpected("neither a discount nor an error");
  }

  async discountCodeExists(code: string): Promise<boolean> {
    const data = await this.graphql(CODE_BY_TEXT, { code });
    return Boolean(data.codeDiscountNodeByCode);
  }

  async findCustomerByEmail(email: string): Promise<{ id: string } | null> {
    const data = await this.graphql(CUSTOMER_BY_EMAIL, {
      query: `email:${quoteSearchValue(email)}`,
    });
    const customers = data.customers as { nodes?: { id?: unknown; email?: unknown }[] } | undefined;
    const customer = customers?.nodes?.[0];
    // The search is a full-text one: a near match is not the person asked about.
    if (
      !customer ||
      typeof customer.email !== "string" ||
      customer.email.toLowerCase() !== email.toLowerCase()
    ) {
      return null;
    }
    const id =
      typeof customer.id === "string" && /^gid:\/\/shopify\/Customer\/(\d+)$/.exec(customer.id);
    if (!id) throw unexpected("a customer without a customer id");
    return { id: id[1]! };
  }

  /** One GraphQL request; resolves with `data`, throws PlatformError on any failure. */
  private async graphql(
    query: string,
    variables: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const response = await platformFetch(
      PLATFORM,
      `${this.connection.url}/admin/api/${this.connection.apiVersion}/graphql.json`,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-Shopify-Access-Token": this.connection.accessToken,
        },
        body: JSON.stringify({ query, variables }),
        timeoutMs: this.options.timeoutMs,
        outbound: this.options.outbound,
      },
    );
    if (response.status !== 200) failForStatus(PLATFORM, response);
    const body = response.body as { data?: unknown; errors?: unknown } | undefined;
    if (typeof body !== "object" || body === null) throw unexpected("a body that is not JSON");
    if (Array.isArray(body.errors) && body.errors.length > 0) {
      const errors = body.errors as GraphqlError[];
      throw new PlatformError(
        reasonForGraphqlErrors(errors),
        `${PLATFORM} answered GraphQL errors: ${errors
          .map((error) => `${error.extensions?.code ?? "ERROR"}: ${error.message ?? ""}`)
          .join("; ")
          .slice(0, 500)}`,
      );
    }
    if (typeof body.data !== "object" || body.data === null) throw unexpected("no data");
    return body.data as Record<string, unknown>;
  }
}

function discountValue(terms: VoucherTerms) {
  if (terms.value === null) throw new Error(`a ${terms.kind} voucher needs a value`);
  return terms.kind === "percentage"
    ? { percentage: terms.value / 100 }
    : { discountAmount: { amount: String(terms.value), appliesOnEachItem: false } };
}

/**
 * A rate limit is "come back later", a missing scope is the merchant's app configuration; any
 * other error is the request's.
 */
function reasonForGraphqlErrors(errors: GraphqlError[]): PlatformFailureReason {
  const codes = errors.map((error) => error.extensions?.code);
  if (codes.includes("THROTTLED")) return "platform-unavailable";
  if (codes.includes("ACCESS_DENIED")) return "platform-credentials-rejected";
  return "platform-request-rejected";
}

function describeUserError(error: UserError): string {
  const field = error.field?.join(".");
  return `${field ? `${field}: ` : ""}${error.message ?? error.code ?? "refused"}`;
}

/** A quoted search value: an email may hold quotes or backslashes, which would end it early. */
function quoteSearchValue(value: string): string {
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

/** A 200 that is not what the API documents: as good as no answer (a proxy, an outage page). */
function unexpected(what: string): PlatformError {
  return new PlatformError("platform-unavailable", `${PLATFORM} answered ${what}`);
}
