import type { AuthenticatedStore } from "../../auth/auth.types.js";
import type { Queryable } from "../../db/pool.js";

export interface ApiKeyRow {
  id: number;
  storeId: number;
  storeReference: string;
  prefix: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface SealedKeyRow {
  prefix: string;
  secret: Buffer;
}

const KEY_COLUMNS = `k.id, k.store_id AS "storeId", s.reference AS "storeReference", k.prefix,
  k.label, k.created_at AS "createdAt", k.revoked_at AS "revokedAt"`;

export async function insertApiKey(
  db: Queryable,
  key: { storeId: number; prefix: string; secret: Buffer; label: string },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `WITH k AS (
       INSERT INTO api_keys (store_id, prefix, secret, label) VALUES ($1, $2, $3, $4)
       RETURNING *
     )
     SELECT ${KEY_COLUMNS} FROM k JOIN stores s ON s.id = k.store_id`,
    [key.storeId, key.prefix, key.secret, key.label],
  );
  return rows[0] as ApiKeyRow;
}

export async function listApiKeys(db: Queryable, storeId?: number): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN stores s ON s.id = k.store_id
     WHERE $1::bigint IS NULL OR k.store_id = $1
     ORDER BY s.reference, k.id`,
    [storeId ?? null],
  );
  return rows;
}

/**
 * Revokes a key (of this store only, when `storeId` is given); undefined when there is no
 * such key.
 */
export async function revokeApiKey(
  db: Queryable,
  prefix: string,
  storeId?: number,
): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `WITH k AS (
       UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
       WHERE prefix = $1 AND ($2::bigint IS NULL OR store_id = $2)
       RETURNING *
     )
     SELECT ${KEY_COLUMNS} FROM k JOIN stores s ON s.id = k.store_id`,
    [prefix, storeId ?? null],
  );
  return rows[0];
}

export interface SealedKeyWithStore extends SealedKeyRow {
  store: AuthenticatedStore;
}

/** The active key with this public prefix, with its store, for Basic authentication. */
export async function findActiveKeyByPrefix(
  db: Queryable,
  prefix: string,
): Promise<SealedKeyWithStore | undefined> {
  const { rows } = await db.query<SealedKeyWithStore>(
    `SELECT k.prefix, k.secret,
       json_build_object('id', s.id, 'reference', s.reference, 'domain', s.domain,
         'language', s.language, 'currency', s.currency) AS store
     FROM api_keys k JOIN stores s ON s.id = k.store_id
     WHERE k.prefix = $1 AND k.revoked_at IS NULL`,
    [prefix],
  );
  return rows[0];
}

/**
 * The store with this (normalised) domain and every one of its active keys, for HMAC checks:
 * a store may rotate through several keys. One query.
 */
export async function findStoreCredentialsByDomain(
  db: Queryable,
  domain: string,
): Promise<{ store: AuthenticatedStore; keys: SealedKeyRow[] } | undefined> {
  const { rows } = await db.query<{
    store: AuthenticatedStore;
    keys: { prefix: string; secret: string }[];
  }>(
    `SELECT json_build_object('id', s.id, 'reference', s.reference, 'domain', s.domain,
              'language', s.language, 'currency', s.currency) AS store,
            coalesce(json_agg(json_build_object('prefix', k.prefix,
                                                'secret', encode(k.secret, 'base64'))
                              ORDER BY k.id) FILTER (WHERE k.id IS NOT NULL), '[]') AS keys
     FROM stores s
     LEFT JOIN api_keys k ON k.store_id = s.id AND k.revoked_at IS NULL
     WHERE s.domain = $1
     GROUP BY s.id`,
    [domain],
  );
  const row = rows[0];
  return (
    row && {
      store: row.store,
      keys: row.keys.map((key) => ({
        prefix: key.prefix,
        secret: Buffer.from(key.secret, "base64"),
      })),
    }
  );
}

/** Any one stored key, to check at start-up that the master key can read them. */
export async function findAnySealedKey(
  db: Queryable,
): Promise<(SealedKeyRow & { storeId: number }) | undefined> {
  const { rows } = await db.query<SealedKeyRow & { storeId: number }>(
    `SELECT prefix, secret, store_id AS "storeId" FROM api_keys ORDER BY id LIMIT 1`,
  );
  return rows[0];
}
