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

/** Stores a sandbox code; false when the store already has a code with this text. */
export async function insertSandboxCode(
  db: Queryable,
  storeId: number,
  request: DiscountCodeRequest,
): Promise<boolean> {
  const { terms, customer } = request;
  const { rowCount } = await db.query(
    `INSERT INTO sandbox_discount_codes
       (store_id, code, title, kind, value, currency, minimum_order_amount,
        customer_external_id, customer_email, starts_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (store_id, code) DO NOTHING`,
    [
      storeId,
      request.code,
      request.title,
      terms.kind,
      terms.value,
      terms.currency,
      terms.minimumOrderAmount,
      customer.externalId,
      customer.email,
      request.startsAt,
      request.expiresAt,
    ],
  );
  return rowCount === 1;
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
