import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { ConfigError } from "../../config.js";
import type { Queryable } from "../../db/pool.js";
import { constantTimeEqual, type SecretBox } from "../../crypto/secrets.js";
import { AppError } from "../../http/app-error.js";
import {
  findActiveKeyByPrefix,
  findAnySealedKey,
  findActiveKeysOfStore,
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

export class ApiKeysService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly secrets: SecretBox,
    private readonly stores: StoresService,
  ) {}

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
    return { key, row };
  }

  async list(storeReference?: string): Promise<ApiKeyRow[]> {
    if (storeReference === undefined) return listApiKeys(this.pool);
    const store = await this.stores.findByReference(storeReference);
    if (!store) throw new AppError("not-found", `No store has the reference ${storeReference}.`);
    return listApiKeys(this.pool, store.id);
  }

  /** Revokes by key id (`lk_<prefix>`) or by the whole key; at once, for every process. */
  async revoke(keyOrId: string): Promise<ApiKeyRow> {
    const prefix = prefixOf(keyOrId);
    const row = prefix ? await revokeApiKey(this.pool, prefix) : undefined;
    if (!row) throw new AppError("not-found", `No API key has the id ${keyOrId.slice(0, 13)}.`);
    return row;
  }

  /** Basic authentication: the store whose active key this is, or undefined. */
  async authenticate(key: string): Promise<AuthenticatedStore | undefined> {
    const prefix = KEY_PATTERN.exec(key)?.[1];
    if (!prefix) return undefined;
    const sealed = await findActiveKeyByPrefix(this.pool, prefix);
    if (!sealed) return undefined;
    const plain = this.secrets.decrypt(sealed.secret, sealContext(sealed.store.id, sealed.prefix));
    return constantTimeEqual(plain, key) ? sealed.store : undefined;
  }

  /** The plain active keys of a store, to check customer hashes against each of them. */
  async activeKeys(storeId: number): Promise<string[]> {
    const sealed = await findActiveKeysOfStore(this.pool, storeId);
    return sealed.map((row) => this.secrets.decrypt(row.secret, sealContext(storeId, row.prefix)));
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
