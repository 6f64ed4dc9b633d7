import {
  platformConnectionSchema,
  type PlatformConnectionInput,
  type PlatformConnectionSummary,
  type PlatformKind,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { SecretBox } from "../../crypto/secrets.js";
import { Batcher } from "../../db/batcher.js";
import type { Queryable } from "../../db/pool.js";
import type { Logger } from "pino";
import { AppError } from "../../http/app-error.js";
import { refusePrivateHost } from "../../http/private-hosts.js";
import { parseRequest } from "../../http/validate.js";
import type { StorefrontCache, StorefrontSection } from "../storefront/storefront.cache.js";
import type { PlatformHttpOptions } from "./platform.http.js";
import type { PlatformAdapter, PlatformError } from "./platform.types.js";
import {
  findConnection,
  insertSandboxCodes,
  saveConnection,
  type SandboxCode,
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
export function platformFailure(
  error: PlatformError,
  logger: Logger,
  context: Record<string, unknown>,
): AppError {
  logger.warn({ ...context, reason: error.reason, err: error.message }, "store platform failed");
  return new AppError(error.reason, PLATFORM_DETAIL[error.reason], undefined, { cause: error });
}

/** Binds the credentials' ciphertext to their store: copied to another store, they do not decrypt. */
function sealContext(storeId: number): string {
  return `platform_credentials:${storeId}`;
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
  ) {
    this.sandboxCodes = new Batcher((codes) => insertSandboxCodes(pool, codes), {
      maxBatch: 100,
      maxInFlight: 2,
    });
    this.adapters = {
      load: async (store) => ({ value: await this.connectTo(store.id), version: "" }),
    };
  }

  /** Validates and stores a connection; errors name the fields. */
  async connect(
    storeId: number,
    input: PlatformConnectionInput,
    { allowPrivateUrls = false, db = this.pool }: ConnectOptions = {},
  ): Promise<ConnectionSummary> {
    const connection = parseRequest(platformConnectionSchema, input, "body");
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

  /** The store's platform and URL, and whether credentials are stored (never what they are). */
  async connection(storeId: number): Promise<PlatformConnectionSummary> {
    const stored = await findConnection(this.pool, storeId);
    if (!stored) throw new AppError("not-found", `No store has the id ${storeId}.`);
    return {
      platform: stored.platform,
      url: stored.url,
      hasCredentials: stored.sealedCredentials !== null,
    };
  }

  /** The adapter speaking to the store's platform. */
  async adapterFor(store: { id: number; domain: string }): Promise<PlatformAdapter> {
    const cached = await this.storefront.section(store.domain, this.adapters);
    if (!cached) throw new Error(`no store has the domain ${store.domain}`);
    return cached.value;
  }

  /** Builds the adapter of the store's connection, with its decrypted credentials. */
  private async connectTo(storeId: number): Promise<PlatformAdapter> {
    const stored = await findConnection(this.pool, storeId);
    if (!stored || stored.platform === "sandbox")
      return new SandboxPlatform(this.pool, storeId, this.sandboxCodes);
    if (!stored.sealedCredentials) {
      throw new Error(`store ${storeId} runs on ${stored.platform} but has no credentials`);
    }
    const connection = platformConnectionSchema.parse(
      JSON.parse(this.secrets.decrypt(stored.sealedCredentials, sealContext(storeId))),
    );
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
