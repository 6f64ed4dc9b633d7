import type { Queryable } from "../../db/pool.js";
import { setClause } from "../../db/set-clause.js";

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
  updatedAt: Date;
}

const STORE_COLUMNS = `id, reference, domain, name, language, currency,
  branding_color AS "brandingColor", platform, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

export async function insertStore(
  db: Queryable,
  store: Pick<
    StoreRow,
    "reference" | "domain" | "name" | "language" | "currency" | "brandingColor"
  >,
): Promise<StoreRow> {
  const { rows } = await db.query<StoreRow>(
    `INSERT INTO stores (reference, domain, name, language, currency, branding_color)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${STORE_COLUMNS}`,
    [
      store.reference,
      store.domain,
      store.name,
      store.language,
      store.currency,
      store.brandingColor,
    ],
  );
  return rows[0] as StoreRow;
}

export async function listStores(db: Queryable, storeId?: number): Promise<StoreRow[]> {
  const { rows } = await db.query<StoreRow>(
    `SELECT ${STORE_COLUMNS} FROM stores WHERE $1::bigint IS NULL OR id = $1 ORDER BY id`,
    [storeId ?? null],
  );
  return rows;
}

/** The columns a back-office update may change, by field name. */
const UPDATABLE = {
  domain: "domain",
  name: "name",
  language: "language",
  currency: "currency",
  brandingColor: "branding_color",
} as const;

export type StoreUpdate = Partial<Record<keyof typeof UPDATABLE, string>>;

export async function updateStore(
  db: Queryable,
  id: number,
  changes: StoreUpdate,
): Promise<StoreRow | undefined> {
  const set = setClause(UPDATABLE, changes, 2);
  const { rows } = await db.query<StoreRow>(
    `UPDATE stores SET ${set.sql} WHERE id = $1 RETURNING ${STORE_COLUMNS}`,
    [id, ...set.values],
  );
  return rows[0];
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

export async function findStoreById(db: Queryable, id: number): Promise<StoreRow | undefined> {
  const { rows } = await db.query<StoreRow>(`SELECT ${STORE_COLUMNS} FROM stores WHERE id = $1`, [
    id,
  ]);
  return rows[0];
}
