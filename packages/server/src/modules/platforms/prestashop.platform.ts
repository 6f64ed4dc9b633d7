/*
 * PrestaShop 1.7 and 8, through the webservice (`<shop>/api/...`), as documented and written:
 * - devdocs.prestashop-project.org/{1.7,8}/webservice: reference (the /api gateway),
 *   resources/cart_rules (date_from, date_to and name required), cheat-sheet (output_format;
 *   filter[field]=[value], a literal and case-insensitive match; display=[field,...]) and
 *   tutorials/testing-access (the key as the Basic user name with no password, the key in the
 *   URL "very risky");
 * - PrestaShop/PrestaShop classes/CartRule.php `$definition` (isDate dates `Y-m-d H:i:s`,
 *   multilingual name, code isCleanHtml of 254, reduction_percent isPercentage, isFloat amounts)
 *   and checkValidity (dates are read in the shop's own timezone);
 * - webservice/dispatcher.php (POST and PUT bodies are read raw from php://input; the key from
 *   PHP_AUTH_USER or the Authorization header) and classes/webservice/WebserviceRequest.php:
 *   input is XML only (SimpleXMLElement; maintainers confirm in issue #14889 that the webservice
 *   takes no JSON body), `<name><language id="n">`, a `|` in a filter value splits it into
 *   alternatives; 401 for a bad key or a resource the key may not use, 405 for a method the key
 *   may not use, 400 for a validation error, 500 for unparsable XML;
 * - classes/webservice/WebserviceOutputJSON.php: a list with `display` answers
 *   `{"<resources>":[...]}`, an empty one `[]`, an error `{"errors":[{"code","message"}]}`.
 */
import type { PlatformConnection, VoucherTerms } from "@loyalty/shared-types";
import {
  failForStatus,
  platformFetch,
  type PlatformHttpOptions,
  type PlatformResponse,
} from "./platform.http.js";
import { type DiscountCodeRequest, type PlatformAdapter, PlatformError } from "./platform.types.js";

const PLATFORM = "PrestaShop";

/** date_to is required: a code without expiry ends where no shop will still be running. */
const NO_EXPIRY = "2099-12-31 23:59:59";

const DAY_MS = 24 * 60 * 60 * 1000;

type Query = Record<string, string>;

export class PrestaShopPlatform implements PlatformAdapter {
  readonly kind = "prestashop";

  constructor(
    private readonly connection: Extract<PlatformConnection, { platform: "prestashop" }>,
    private readonly options: PlatformHttpOptions,
  ) {}

  async createDiscountCode(request: DiscountCodeRequest): Promise<void> {
    // PrestaShop keeps any number of cart rules with one code, so the code is looked up first.
    // Two attempts racing between the lookup and the POST would both create: that takes a retry
    // overlapping a first attempt still in flight, and the duplicate is inert, since the shop
    // resolves a typed code to one cart rule (CartRule::getIdByCode), usable once.
    if (await this.discountCodeExists(request.code)) return;
    const response = await this.request(
      "POST",
      "cart_rules",
      {},
      cartRuleXml(request, this.connection),
    );
    // A 200 to a POST is the resource list of a request the shop did not read as a creation.
    if (response.status !== 201) throw unexpected(`HTTP ${response.status} to the creation`);
  }

  async discountCodeExists(code: string): Promise<boolean> {
    const rows = await this.list("cart_rules", {
      "filter[code]": `[${code}]`,
      display: "[id,code]",
    });
    // Checked because a `|` in a filter value reads as "or" and lets other codes through;
    // case-insensitively because the shop matches typed codes that way at checkout.
    return rows.some((row) => typeof row.code === "string" && sameText(row.code, code));
  }

  async findCustomerByEmail(email: string): Promise<{ id: string } | null> {
    const rows = await this.list("customers", {
      "filter[email]": `[${email}]`,
      display: "[id,email]",
    });
    const customer = rows.find(
      (row) => typeof row.email === "string" && sameText(row.email, email),
    );
    if (!customer) return null;
    if (!/^\d+$/.test(String(customer.id))) throw unexpected("a customer without an id");
    return { id: String(customer.id) };
  }

  /** The rows of a filtered list; PrestaShop answers `[]` rather than an empty list. */
  private async list(resource: string, query: Query): Promise<Record<string, unknown>[]> {
    const response = await this.request("GET", resource, query);
    if (response.status !== 200) throw unexpected(`HTTP ${response.status} to a list`);
    const body = response.body;
    if (Array.isArray(body) && body.length === 0) return [];
    const rows =
      typeof body === "object" && body !== null
        ? (body as Record<string, unknown>)[resource]
        : undefined;
    if (!Array.isArray(rows)) throw unexpected(`a ${resource} list that is not JSON`);
    return rows.filter(
      (row): row is Record<string, unknown> => typeof row === "object" && row !== null,
    );
  }

  private async request(
    method: "GET" | "POST",
    resource: string,
    query: Query,
    xml?: string,
  ): Promise<PlatformResponse> {
    const search = new URLSearchParams({ ...query, output_format: "JSON" });
    const response = await platformFetch(
      PLATFORM,
      `${this.connection.url}/api/${resource}?${search.toString()}`,
      {
        method,
        headers: {
          // In the header rather than as ws_key: URLs end up in logs and error messages.
          Authorization: `Basic ${this.basicCredentials()}`,
          ...(xml !== undefined && { "Content-Type": "application/xml; charset=utf-8" }),
        },
        ...(xml !== undefined && { body: xml }),
        timeoutMs: this.options.timeoutMs,
        outbound: this.options.outbound,
      },
    );
    if (response.status < 200 || response.status >= 300) this.fail(response);
    return response;
  }

  private basicCredentials(): string {
    return Buffer.from(`${this.connection.webserviceKey}:`).toString("base64");
  }

  private fail(response: PlatformResponse): never {
    const body =
      typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? "");
    // A shop in debug mode prints PHP stack traces, whose arguments include the key.
    const said = [this.connection.webserviceKey, this.basicCredentials()].reduce(
      (text, secret) => text.replaceAll(secret, "[webservice key]"),
      body,
    );
    // The key lacks the method on the resource (a key ticked for GET only): the merchant's key
    // to fix, not a request to change.
    if (response.status === 405) {
      throw new PlatformError(
        "platform-credentials-rejected",
        `${PLATFORM} answered HTTP 405: ${said.slice(0, 500)}`,
      );
    }
    failForStatus(PLATFORM, { status: response.status, body: said });
  }
}

/** The cart rule a discount code is on PrestaShop, as the webservice's XML. */
function cartRuleXml(
  request: DiscountCodeRequest,
  connection: Extract<PlatformConnection, { platform: "prestashop" }>,
): string {
  const { terms, customer } = request;
  const fields: [string, string | number][] = [
    ["id_customer", customer.externalId ?? 0],
    // The shop reads dates in its own timezone, which the key may not be allowed to read. A day
    // earlier covers every offset, so a code works the moment it is handed out; nobody holds it
    // before then, so the earlier start gives nothing away.
    ["date_from", shopDate(new Date(request.startsAt.getTime() - DAY_MS))],
    ["date_to", request.expiresAt ? shopDate(request.expiresAt) : NO_EXPIRY],
    ["description", `Loyalty programme${customer.email ? `, for ${customer.email}` : ""}`],
    ["quantity", 1],
    ["quantity_per_user", 1],
    ["priority", 1],
    // A partial use would leave a new cart rule holding the rest: a second use of one code.
    ["partial_use", 0],
    ["code", request.code],
    ...minimumFields(terms, connection.currencyId),
    ...reductionFields(terms, connection.currencyId),
    ["highlight", 0],
    ["active", 1],
  ];
  const name = `<name><language id="${connection.languageId}">${xmlText(request.title)}</language></name>`;
  const elements = fields.map(([field, value]) => `<${field}>${xmlText(String(value))}</${field}>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    "<prestashop>",
    "<cart_rule>",
    name,
    ...elements,
    "</cart_rule>",
    "</prestashop>",
  ].join("\n");
}

function minimumFields(terms: VoucherTerms, currencyId: number): [string, string | number][] {
  if (terms.minimumOrderAmount === null) return [];
  return [
    ["minimum_amount", decimal(terms.minimumOrderAmount)],
    // Compared with what the shopper pays for the goods: taxes in, shipping out.
    ["minimum_amount_tax", 1],
    ["minimum_amount_shipping", 0],
    ["minimum_amount_currency", currencyId],
  ];
}

function reductionFields(terms: VoucherTerms, currencyId: number): [string, string | number][] {
  if (terms.kind === "free_shipping") return [["free_shipping", 1]];
  if (terms.value === null) throw new Error(`a ${terms.kind} voucher needs a value`);
  if (terms.kind === "percentage") {
    return [
      ["free_shipping", 0],
      ["reduction_percent", decimal(terms.value)],
    ];
  }
  return [
    ["free_shipping", 0],
    ["reduction_amount", decimal(terms.value)],
    // "€5 off" is five euros off the price the shopper sees, taxes included.
    ["reduction_tax", 1],
    ["reduction_currency", currencyId],
  ];
}

/** `Y-m-d H:i:s`, the only form isDate takes (no `T`, no offset), in UTC. */
function shopDate(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/**
 * PHP's isFloat compares the number with its string: binary noise such as 0.1 + 0.2 =
 * 0.30000000000000004 fails it, so amounts go out with the decimals a price can have.
 */
function decimal(value: number): string {
  return String(Number(value.toFixed(6)));
}

/**
 * Text content for XML. Characters XML 1.0 forbids are dropped: one would make the whole
 * document unparsable, which PrestaShop answers with a 500 that looks like an outage.
 */
function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/[&<>"']/g, (character) => XML_ENTITIES[character]!);
}

const XML_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

function sameText(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** A 2xx that is not what the webservice documents: as good as no answer (a proxy, a page). */
function unexpected(what: string): PlatformError {
  return new PlatformError("platform-unavailable", `${PLATFORM} answered ${what}`);
}
