import type { PlatformKind } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import type { DiscountCodeRequest } from "./platform.types.js";

/** A store's platform connection as stored: the credentials sealed under the master key. */
export interface StoredConnection {
  platform: PlatformKind;
  url: string | null;
  sealedCredentials: Buffer | null;
}

export async function findConnection(
  db: Queryable,
  storeId: number,
): Promise<StoredConnection | undefined> {
  const { rows } = await db.query<StoredConnection>(
    `SELECT platform, platform_url AS url, platform_credentials AS "sealedCredentials"
     FROM stores WHERE id = $1`,
    [storeId],
  );
  return rows[0];
}

export async function saveConnection(
  db: Queryable,
  storeId: number,
  connection: StoredConnection,
): Promise<void> {
  await db.query(
    `UPDATE stores SET platform = $2, platform_url = $3, platform_credentials = $4,
       updated_at = now()
     WHERE id = $1`,
    [storeId, connection.platform, connection.url, connection.sealedCredentials],
  );
}

/** A code to keep for a store whose platform is the sandbox. */
export interface SandboxCode {
  storeId: number;
  request: DiscountCodeRequest;
}

/** Stores sandbox codes in one statement; a code the store already has is left as it is. */
export async function insertSandboxCodes(
  db: Queryable,
  codes: readonly SandboxCode[],
): Promise<void[]> {
  const column = <T>(pick: (code: SandboxCode) => T) => codes.map(pick);
  await db.query(
    `INSERT INTO sandbox_discount_codes
       (store_id, code, title, kind, value, currency, minimum_order_amount,
        customer_external_id, customer_email, starts_at, expires_at)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::numeric[],
                          $6::text[], $7::numeric[], $8::bigint[], $9::text[],
                          $10::timestamptz[], $11::timestamptz[])
     ON CONFLICT (store_id, code) DO NOTHING`,
    [
      column((code) => code.storeId),
      column((code) => code.request.code),
      column((code) => code.request.title),
      column((code) => code.request.terms.kind),
      column((code) => code.request.terms.value),
      column((code) => code.request.terms.currency),
      column((code) => code.request.terms.minimumOrderAmount),
      column((code) => code.request.customer.externalId),
      column((code) => code.request.customer.email),
      column((code) => code.request.startsAt),
      column((code) => code.request.expiresAt),
    ],
  );
  return codes.map(() => undefined);
}

export async function sandboxCodeExists(
  db: Queryable,
  storeId: number,
  code: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM sandbox_discount_codes WHERE store_id = $1 AND code = $2`,
    [storeId, code],
  );
  return rowCount === 1;
}
