import {
  PLATFORM_SECRET_FIELDS,
  keepsStoredCredentials,
  platformConnectionSchema,
  platformConnectionWriteSchema,
  platformSettingsSchema,
  type PlatformConnection,
  type PlatformConnectionSummary,
  type PlatformConnectionWriteInput,
  type PlatformConnectionTest,
  type PlatformKind,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { z } from "zod";
import type { SecretBox } from "../../crypto/secrets.js";
import { Batcher } from "../../db/batcher.js";
import type { Queryable } from "../../db/pool.js";
import type { Logger } from "pino";
import { AppError } from "../../errors.js";
import { timedPlatformCall } from "../../metrics/metrics.js";
import { OutboundError } from "../../net/outbound.js";
import { refusePrivateHost } from "../../net/private-hosts.js";
import { parseRequest } from "../../http/validate.js";
import type { StorefrontCache, StorefrontSection } from "../storefront/storefront.cache.js";
import { PlatformStatusError, type PlatformHttpOptions } from "./platform.http.js";
import { PlatformError, type PlatformAdapter } from "./platform.types.js";
import {
  findConnection,
  insertSandboxCodes,
  saveConnection,
  type SandboxCode,
  type StoredConnection,
} from "./platforms.repository.js";
import { PrestaShopPlatform } from "./prestashop.platform.js";
import { SandboxPlatform } from "./sandbox.platform.js";
import { ShopifyPlatform } from "./shopify.platform.js";
import { WooCommercePlatform } from "./woocommerce.platform.js";

/** Safe to show a storefront: the platform's own words stay in the log. */
const PLATFORM_DETAIL = {
  "platform-credentials-rejected":
    "The store's platform refused the credentials registered for the store.",
  "platform-resource-not-found":
    "The store's platform does not expose the discount codes the service needs.",
  "platform-request-rejected": "The store's platform refused to create the discount code.",
  "platform-unavailable": "The store's platform did not answer. Retry in a moment.",
} as const;

/** The AppError a platform failure answers with; the platform's message is logged here. */
/**
 * What a log says of a platform's failure: measures of the answer, never its words nor the
 * error's message, which quotes them (a shop in debug mode echoes its configuration and the
 * credentials it was sent).
 */
export function failureMeasures(error: PlatformError): Record<string, unknown> {
  return {
    reason: error.reason,
    httpStatus: error.status ?? null,
    bodyLength: error instanceof PlatformStatusError ? error.bodyLength : undefined,
    code: systemCode(error.cause),
    // The outbound module's own words (a private address refused, a timeout, a DNS failure):
    // nothing the platform said is in them.
    detail: error.cause instanceof OutboundError ? error.cause.message : undefined,
  };
}

export function platformFailure(
  error: PlatformError,
  logger: Logger,
  context: Record<string, unknown>,
): AppError {
  logger.warn({ ...context, ...failureMeasures(error) }, "store platform failed");
  return new AppError(error.reason, PLATFORM_DETAIL[error.reason], undefined, { cause: error });
}

/**
 * An address no shopper can have (RFC 2606 reserves `.invalid`), which every platform accepts
 * as an email to search for: the connection test reads nothing and writes nothing.
 */
export const CONNECTION_TEST_EMAIL = "loyalty-connection-test@example.invalid";

const PLATFORM_NAMES: Record<PlatformKind, string> = {
  sandbox: "The sandbox",
  woocommerce: "WooCommerce",
  shopify: "Shopify",
  prestashop: "PrestaShop",
};

/** What the merchant enters for each platform, named as its back-office names it. */
const CREDENTIAL_NAMES: Record<PlatformKind, string> = {
  sandbox: "connection",
  woocommerce: "consumer key and consumer secret",
  shopify: "Admin API access token",
  prestashop: "webservice key",
};

type TestCause = NonNullable<PlatformConnectionTest["cause"]>;

/** What failed, as a client explains it: the reason, told apart by the status and the outbound module. */
function causeOf(error: PlatformError): TestCause {
  switch (error.reason) {
    case "platform-credentials-rejected":
      return "unauthorized";
    case "platform-resource-not-found":
      return error.status !== undefined && error.status < 400 ? "redirect" : "not-found";
    case "platform-request-rejected":
      return "request-rejected";
    case "platform-unavailable":
      if (error.status !== undefined) return "http-error";
      switch (error.cause instanceof OutboundError ? error.cause.failure : undefined) {
        case "timeout":
          return "timeout";
        case "private-address":
          return "private-address";
        case "unreachable":
          return "unreachable";
        case "interrupted":
        case "too-large":
          return "unreadable";
        case undefined:
          return "not-api";
      }
  }
}

/**
 * The merchant's explanation of a failed connection test, in English (the back-office writes
 * its own from the cause). Made of fixed sentences, never of the error's message: that holds
 * what the platform answered (up to 500 characters of its body, where a shop in debug mode
 * prints its configuration) and the addresses the service resolved.
 */
function explain(platform: PlatformKind, cause: TestCause, httpStatus: number | null): string {
  const name = PLATFORM_NAMES[platform];
  const credentials = CREDENTIAL_NAMES[platform];
  const status = httpStatus === null ? "" : ` (HTTP ${httpStatus})`;
  switch (cause) {
    case "unauthorized":
      return `${name} refused the credentials${status}: check the ${credentials}, and that they may read customers and write coupons.`;
    case "redirect":
      return `${name} answered with a redirect${status}, which is not followed: enter the shop's address exactly as it is served (https, with or without www).`;
    case "not-found":
      return `${name} has no API at this address${status}: check the shop's URL, and that its API is enabled.`;
    case "request-rejected":
      return `${name} refused the request${status}: check the permissions of the ${credentials}.`;
    case "http-error":
      return `${name} answered with an error of its own${status}: the shop may be down or busy; try again in a moment.`;
    case "timeout":
      return `${name} did not answer in time: check that the shop is online, then try again.`;
    case "private-address":
      return "The shop's address leads to a private network, which this service does not connect to: enter the shop's public address.";
    case "unreachable":
      return `${name} could not be reached at this address: check the shop's URL.`;
    case "unreadable":
      return `${name} sent an answer that could not be read: check that the URL is the shop's own address.`;
    case "not-api":
      return `${name} answered something other than its API: check that the URL is the shop's own address.`;
  }
}

/**
 * The system's code for why a connection failed (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED):
 * a name Node gives, never text the platform sent, unlike the errors' messages.
 */
function systemCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    const { code } = cause as { code?: unknown };
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(code)) return code;
    cause = cause.cause;
  }
  return undefined;
}

/** Binds the credentials' ciphertext to their store: copied to another store, they do not decrypt. */
function sealContext(storeId: number): string {
  return `platform_credentials:${storeId}`;
}

/**
 * The stored connection as a read starts to show it, and what decides whether a write keeps its
 * secrets.
 */
function summaryOf(stored: StoredConnection) {
  return {
    platform: stored.platform,
    url: stored.url,
    hasCredentials: stored.sealedCredentials !== null,
  };
}

/**
 * The write, each secret it left out taken from the stored connection (of the same platform
 * and URL); every other setting is the write's, its defaults included.
 */
function withStoredSecrets(
  written: z.output<typeof platformConnectionWriteSchema>,
  stored: PlatformConnection,
): PlatformConnection {
  const merged: Record<string, unknown> = { ...written };
  for (const field of PLATFORM_SECRET_FIELDS) {
    if (merged[field] === undefined && field in stored) {
      merged[field] = (stored as Record<string, unknown>)[field];
    }
  }
  return platformConnectionSchema.parse(merged);
}

/** What a read of a connection may show: never the credentials. */
export interface ConnectionSummary {
  platform: PlatformKind;
  url: string | null;
}

export interface ConnectOptions {
  /**
   * Whether the URL may name the service's own machine or network (see refusePrivateHost); no
   * by default. The back-office passes the operator's choice (ALLOW_PRIVATE_URLS); the
   * operator's own tools (the CLI) may name any host.
   */
  allowPrivateUrls?: boolean;
  db?: Queryable;
}

/**
 * A store's connection to its e-commerce platform: written once by the back-office (credentials
 * encrypted at rest, never read back), and turned into the adapter that speaks to the platform
 * whenever a claim or a referral needs it.
 */
export class PlatformsService {
  /**
   * Each store's adapter, its credentials decrypted, kept with the store's other data in the
   * storefront cache: a claim asks nothing of the database to find its platform, and a new
   * connection (a change of the store's row) is heard by every process.
   */
  private readonly adapters: StorefrontSection<PlatformAdapter>;
  /** The sandbox's codes, written in groups like registrations: one statement serves many claims. */
  private readonly sandboxCodes: Batcher<SandboxCode, void>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly secrets: SecretBox,
    private readonly http: PlatformHttpOptions,
    private readonly storefront: StorefrontCache,
    private readonly logger: Logger,
  ) {
    this.sandboxCodes = new Batcher((codes) => insertSandboxCodes(pool, codes), {
      maxBatch: 100,
      maxInFlight: 2,
    });
    this.adapters = {
      load: async (store) => ({ value: timed(await this.connectTo(store.id)), version: "" }),
    };
  }

  /**
   * Validates and stores a connection; errors name the fields. A secret left out keeps the
   * stored one, only for the stored platform and URL (keepsStoredCredentials): a changed URL
   * must not receive the stored secret, so anywhere else every secret is required.
   */
  async connect(
    storeId: number,
    input: PlatformConnectionWriteInput,
    { allowPrivateUrls = false, db = this.pool }: ConnectOptions = {},
  ): Promise<ConnectionSummary> {
    // Complete (every secret typed), the stored credentials are not even read: a save always
    // mends what was stored, even credentials that no longer decrypt.
    const complete = platformConnectionSchema.safeParse(input);
    const stored = complete.success ? undefined : await findConnection(db, storeId);
    const kept =
      stored?.sealedCredentials && keepsStoredCredentials(summaryOf(stored), input)
        ? this.readSealed(storeId, stored.sealedCredentials)
        : undefined;
    const connection = complete.success
      ? complete.data
      : kept
        ? withStoredSecrets(parseRequest(platformConnectionWriteSchema, input, "body"), kept)
        : parseRequest(platformConnectionSchema, input, "body");
    const { platform, ...rest } = connection;
    const url = "url" in rest ? rest.url : null;
    if (url !== null && !allowPrivateUrls) refusePrivateHost(url);
    await saveConnection(db, storeId, {
      platform,
      url,
      sealedCredentials:
        platform === "sandbox"
          ? null
          : this.secrets.encrypt(JSON.stringify(connection), sealContext(storeId)),
    });
    return { platform, url };
  }

  /**
   * The store's platform and URL, whether credentials are stored (never what they are), and the
   * settings sealed with them.
   */
  async connection(storeId: number): Promise<PlatformConnectionSummary> {
    const stored = await findConnection(this.pool, storeId);
    if (!stored) throw new AppError("not-found", `No store has the id ${storeId}.`);
    return {
      ...summaryOf(stored),
      // Parsed, not only checked: the settings schema has no secret field, so they are dropped.
      settings: stored.sealedCredentials
        ? platformSettingsSchema
            .nullable()
            .parse(this.readSealed(storeId, stored.sealedCredentials) ?? null)
        : null,
    };
  }

  /**
   * Asks the store's platform, through the adapter claims use, for a customer no shopper can
   * be: proves the URL and the credentials without changing anything on the shop. A platform
   * failure is an answer (ok false), not an error.
   */
  async testConnection(
    store: { id: number; domain: string },
    logger: Logger,
  ): Promise<PlatformConnectionTest> {
    const adapter = await this.adapterFor(store);
    const started = performance.now();
    let failure: PlatformError | undefined;
    try {
      await adapter.findCustomerByEmail(CONNECTION_TEST_EMAIL);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      failure = error;
    }
    const durationMs = Math.round(performance.now() - started);
    if (!failure) {
      return {
        platform: adapter.kind,
        ok: true,
        reason: null,
        cause: null,
        httpStatus: null,
        message: null,
        durationMs,
      };
    }
    const cause = causeOf(failure);
    const httpStatus = failure.status ?? null;
    logger.info(
      { storeId: store.id, platform: adapter.kind, cause, durationMs, ...failureMeasures(failure) },
      "platform connection test failed",
    );
    return {
      platform: adapter.kind,
      ok: false,
      reason: failure.reason,
      cause,
      httpStatus,
      message: explain(adapter.kind, cause, httpStatus),
      durationMs,
    };
  }

  /** The adapter speaking to the store's platform. */
  async adapterFor(store: { id: number; domain: string }): Promise<PlatformAdapter> {
    const cached = await this.storefront.section(store.domain, this.adapters);
    if (!cached) throw new Error(`no store has the domain ${store.domain}`);
    return cached.value;
  }

  /**
   * The stored connection, decrypted: for the adapter, a write's kept secrets and the settings
   * read back (never as it is).
   */
  /**
   * The stored connection, or undefined when it no longer reads (another master key, a rule
   * tightened since it was saved): the back-office then shows no settings and asks for every
   * secret, and a complete save replaces it. What failed is logged, never what was read.
   */
  private readSealed(storeId: number, sealed: Buffer): PlatformConnection | undefined {
    try {
      return this.unseal(storeId, sealed);
    } catch (error) {
      this.logger.warn(
        { storeId, err: error instanceof Error ? error.name : typeof error },
        "stored platform credentials could not be read",
      );
      return undefined;
    }
  }

  private unseal(storeId: number, sealed: Buffer): PlatformConnection {
    return platformConnectionSchema.parse(
      JSON.parse(this.secrets.decrypt(sealed, sealContext(storeId))),
    );
  }

  /** Builds the adapter of the store's connection, with its decrypted credentials. */
  private async connectTo(storeId: number): Promise<PlatformAdapter> {
    const stored = await findConnection(this.pool, storeId);
    if (!stored || stored.platform === "sandbox")
      return new SandboxPlatform(this.pool, storeId, this.sandboxCodes);
    if (!stored.sealedCredentials) {
      throw new Error(`store ${storeId} runs on ${stored.platform} but has no credentials`);
    }
    const connection = this.unseal(storeId, stored.sealedCredentials);
    switch (connection.platform) {
      case "woocommerce":
        return new WooCommercePlatform(connection, this.http);
      case "shopify":
        return new ShopifyPlatform(connection, this.http);
      case "prestashop":
        return new PrestaShopPlatform(connection, this.http);
      case "sandbox":
        return new SandboxPlatform(this.pool, storeId, this.sandboxCodes);
    }
  }
}

/** A failed platform call as the metrics name it: the reason it gave, else `error`. */
const failureOutcome = (error: unknown): string =>
  error instanceof PlatformError ? error.reason : "error";

/** The adapter, each call to its platform timed and counted by outcome (metrics). */
function timed(adapter: PlatformAdapter): PlatformAdapter {
  const { kind } = adapter;
  return {
    kind,
    createDiscountCode: (request) =>
      timedPlatformCall(kind, "create-discount-code", failureOutcome, () =>
        adapter.createDiscountCode(request),
      ),
    discountCodeExists: (code) =>
      timedPlatformCall(kind, "discount-code-exists", failureOutcome, () =>
        adapter.discountCodeExists(code),
      ),
    findCustomerByEmail: (email) =>
      timedPlatformCall(kind, "find-customer", failureOutcome, () =>
        adapter.findCustomerByEmail(email),
      ),
  };
}
