import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { ConfigError } from "../../config.js";
import type { Queryable } from "../../db/pool.js";
import { constantTimeEqual, type SecretBox } from "../../crypto/secrets.js";
import { AppError } from "../../errors.js";
import { normalizeDomain } from "@loyalty/shared-types";
import {
  ChangeClock,
  type StoreChanges,
  type StoreChangeSubscriber,
} from "../../db/store-changes.js";
import {
  findActiveKeyByPrefix,
  findStoreCredentialsByDomain,
  findAnySealedKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  type ApiKeyRow,
} from "./api-keys.repository.js";
import { findStoreByReference } from "./stores.repository.js";
import type { StoresService } from "./stores.service.js";

/** `lk_<10-character public prefix>_<43 characters: 256 random bits>`. */
const KEY_PATTERN = /^lk_([a-z0-9]{10})_[A-Za-z0-9_-]{43}$/;
const PREFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

function newPrefix(): string {
  return Array.from(randomBytes(10), (byte) => PREFIX_ALPHABET[byte % 36]).join("");
}

/** The public part of a key: what lists show and what revocation takes. */
export function keyId(prefix: string): string {
  return `lk_${prefix}`;
}

function prefixOf(keyOrId: string): string | undefined {
  return /^lk_([a-z0-9]{10})(_|$)/.exec(keyOrId)?.[1];
}

/** Binds a key's ciphertext to its row and store: moved to another store, it does not decrypt. */
function sealContext(storeId: number, prefix: string): string {
  return `api_key:${storeId}:${prefix}`;
}

/** What customer HMAC checks need of a store: the store and its plain active keys. */
export interface CustomerCredentials {
  store: AuthenticatedStore;
  keys: string[];
}

/**
 * API keys: created, listed, revoked, and checked on every authenticated request. For those
 * checks the store and its plain keys are kept in memory while the store change listener is
 * up: creating or revoking a key notifies every process, which forgets that store. While it
 * is down (or never started, as in the CLI) every check reads the database.
 */
export class ApiKeysService implements StoreChangeSubscriber {
  private readonly byPrefix = new Map<string, { store: AuthenticatedStore; key: string }>();
  private readonly byDomain = new Map<string, CustomerCredentials>();
  /** A read is not kept when its store changed while it ran. */
  private readonly clock = new ChangeClock();
  /**
   * Key prefixes and domains a look-up found (only real stores' credentials get here, so these
   * stay as small as the stores): an address over its failed-authentication limit may still
   * have them read from the database. Any store change empties that store's memory, and a shop's
   * server must not be locked out because someone behind its address guessed meanwhile.
   */
  private readonly foundPrefixes = new Set<string>();
  private readonly foundDomains = new Set<string>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly secrets: SecretBox,
    private readonly stores: StoresService,
    private readonly changes?: StoreChanges,
  ) {
    changes?.subscribe(this);
  }

  storeChanged(storeId: number): void {
    this.clock.storeChanged(storeId);
    for (const [prefix, entry] of this.byPrefix) {
      if (entry.store.id === storeId) this.byPrefix.delete(prefix);
    }
    for (const [domain, entry] of this.byDomain) {
      if (entry.store.id === storeId) this.byDomain.delete(domain);
    }
  }

  everythingChanged(): void {
    this.clock.everythingChanged();
    this.byPrefix.clear();
    this.byDomain.clear();
  }

  /** Whether what was read of a store since `since` may be kept. */
  private keeps(since: number, storeId: number): boolean {
    return this.changes?.listening === true && this.clock.storeUnchangedSince(since, storeId);
  }

  /** Creates a key; the plain key is returned here once and can never be read again. */
  async create(
    storeReference: string,
    label = "",
    db: Queryable = this.pool,
  ): Promise<{ key: string; row: ApiKeyRow }> {
    const store = await findStoreByReference(db, storeReference);
    if (!store) throw new AppError("not-found", `No store has the reference ${storeReference}.`);
    const prefix = newPrefix();
    const key = `${keyId(prefix)}_${randomBytes(32).toString("base64url")}`;
    const row = await insertApiKey(db, {
      storeId: store.id,
      prefix,
      secret: this.secrets.encrypt(key, sealContext(store.id, prefix)),
      label,
    });
    // Other processes hear of it from the database; this one need not wait for the echo.
    this.storeChanged(store.id);
    return { key, row };
  }

  async list(storeReference?: string): Promise<ApiKeyRow[]> {
    if (storeReference === undefined) return listApiKeys(this.pool);
    const store = await this.stores.findByReference(storeReference);
    if (!store) throw new AppError("not-found", `No store has the reference ${storeReference}.`);
    return listApiKeys(this.pool, store.id);
  }

  /**
   * Revokes by key id (`lk_<prefix>`) or by the whole key, at once for every process; given a
   * store, only a key of that store.
   */
  async revoke(keyOrId: string, storeId?: number): Promise<ApiKeyRow> {
    const prefix = prefixOf(keyOrId);
    const row = prefix ? await revokeApiKey(this.pool, prefix, storeId) : undefined;
    if (!row) throw new AppError("not-found", `No API key has the id ${keyOrId.slice(0, 13)}.`);
    this.storeChanged(row.storeId);
    return row;
  }

  /**
   * Basic authentication: the store whose active key this is, or undefined. Without `lookups`,
   * only a key held in memory, or one a look-up found before, is checked.
   */
  async authenticate(
    key: string,
    { lookups = true }: { lookups?: boolean } = {},
  ): Promise<AuthenticatedStore | undefined> {
    const prefix = KEY_PATTERN.exec(key)?.[1];
    if (!prefix) return undefined;
    let entry = this.changes?.listening ? this.byPrefix.get(prefix) : undefined;
    if (!entry) {
      if (!lookups && !this.foundPrefixes.has(prefix)) return undefined;
      const since = this.clock.now();
      const sealed = await findActiveKeyByPrefix(this.pool, prefix);
      if (!sealed) {
        this.foundPrefixes.delete(prefix);
        return undefined;
      }
      this.foundPrefixes.add(prefix);
      const plain = this.secrets.decrypt(
        sealed.secret,
        sealContext(sealed.store.id, sealed.prefix),
      );
      entry = { store: sealed.store, key: plain };
      if (this.keeps(since, sealed.store.id)) this.byPrefix.set(prefix, entry);
    }
    return constantTimeEqual(entry.key, key) ? entry.store : undefined;
  }

  /**
   * The store with this domain and its plain active keys, for customer HMAC checks. Without
   * `lookups`, only a store held in memory, or one a look-up found before, is found.
   */
  async customerCredentials(
    domain: string,
    { lookups = true }: { lookups?: boolean } = {},
  ): Promise<CustomerCredentials | undefined> {
    const normalized = normalizeDomain(domain);
    const cached = this.changes?.listening ? this.byDomain.get(normalized) : undefined;
    if (cached) return cached;
    if (!lookups && !this.foundDomains.has(normalized)) return undefined;
    const since = this.clock.now();
    const found = await findStoreCredentialsByDomain(this.pool, normalized);
    if (!found) {
      this.foundDomains.delete(normalized);
      return undefined;
    }
    this.foundDomains.add(normalized);
    const credentials = {
      store: found.store,
      keys: found.keys.map((row) =>
        this.secrets.decrypt(row.secret, sealContext(found.store.id, row.prefix)),
      ),
    };
    if (this.keeps(since, found.store.id)) this.byDomain.set(normalized, credentials);
    return credentials;
  }

  /**
   * Fails fast when the configured master key is not the one the stored keys were written
   * with, rather than answering every authenticated request with a 500.
   */
  async assertMasterKeyReadsKeys(): Promise<void> {
    const sample = await findAnySealedKey(this.pool);
    if (!sample) return;
    try {
      this.secrets.decrypt(sample.secret, sealContext(sample.storeId, sample.prefix));
    } catch {
      throw new ConfigError([
        "LOYALTY_MASTER_KEY does not decrypt the API keys stored in this database: it is not the key they were written with",
      ]);
    }
  }
}
