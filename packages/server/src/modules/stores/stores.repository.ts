import type { Queryable } from "../../db/pool.js";

export interface StoreRow {
  id: number;
  reference: string;
  domain: string;
  name: string;
  language: string;
  currency: string;
  brandingColor: string;
  platform: string;
  createdAt: Date;
}

const STORE_COLUMNS = `id, reference, domain, name, language, currency,
  branding_color AS "brandingColor", platform, created_at AS "createdAt"`;

export async function insertStore(
  db: Queryable,
  store: Pick<StoreRow, "reference" | "domain" | "name" | "language" | "currency">,
): Promise<StoreRow> {
  const { rows } = await db.query<StoreRow>(
    `INSERT INTO stores (reference, domain, name, language, currency)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${STORE_COLUMNS}`,
    [store.reference, store.domain, store.name, store.language, store.currency],
  );
  return rows[0] as StoreRow;
}

export async function findStoreByDomain(
  db: Queryable,
  domain: string,
): Promise<StoreRow | undefined> {
  const { rows } = await db.query<StoreRow>(
    `SELECT ${STORE_COLUMNS} FROM stores WHERE domain = $1`,
    [domain],
  );
  return rows[0];
}

export async function findStoreByReference(
  db: Queryable,
  reference: string,
): Promise<StoreRow | undefined> {
  const { rows } = await db.query<StoreRow>(
    `SELECT ${STORE_COLUMNS} FROM stores WHERE reference = $1`,
    [reference],
  );
  return rows[0];
}
