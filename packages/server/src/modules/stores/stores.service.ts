import { randomBytes } from "node:crypto";
import {
  createStoreRequestSchema,
  normalizeDomain,
  updateStoreRequestSchema,
  type CreateStoreRequest,
  type UpdateStoreRequest,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { parseRequest } from "../../http/validate.js";
import {
  findStoreByDomain,
  findStoreById,
  findStoreByReference,
  insertStore,
  listStores,
  updateStore,
  type StoreRow,
} from "./stores.repository.js";

/** A domain or reference another store holds: the unique indexes decide under races. */
function uniqueViolation(error: unknown): AppError | undefined {
  if ((error as { code?: string }).code !== "23505") return undefined;
  return new AppError("validation-failed", "A store with this domain or reference already exists.");
}

/** A reference nobody guesses: it is half of the key customer hashes are made with. */
function newReference(): string {
  return `st_${randomBytes(15).toString("base64url").replace(/[-_]/g, "x")}`;
}

export class StoresService {
  constructor(private readonly pool: pg.Pool) {}

  /** Creates a store; `db` lets a caller make it part of a larger transaction. */
  async create(input: CreateStoreRequest, db: Queryable = this.pool): Promise<StoreRow> {
    const store = parseRequest(createStoreRequestSchema, input, "body");
    const reference = store.reference ?? newReference();
    if (await findStoreByDomain(db, store.domain)) {
      throw new AppError(
        "validation-failed",
        `A store with domain ${store.domain} already exists.`,
      );
    }
    if (await findStoreByReference(db, reference)) {
      throw new AppError(
        "validation-failed",
        `A store with reference ${reference} already exists.`,
      );
    }
    try {
      return await insertStore(db, { ...store, reference });
    } catch (error) {
      throw uniqueViolation(error) ?? error;
    }
  }

  /** Changes a store's domain, name, language, currency or branding colour. */
  async update(storeId: number, input: UpdateStoreRequest): Promise<StoreRow> {
    const changes = parseRequest(updateStoreRequestSchema, input, "body");
    if (changes.domain !== undefined) {
      const holder = await findStoreByDomain(this.pool, changes.domain);
      if (holder && holder.id !== storeId) {
        throw new AppError(
          "validation-failed",
          `A store with domain ${changes.domain} already exists.`,
          [
            {
              location: "body",
              pointer: "/domain",
              message: "taken by another store",
              code: "conflict",
            },
          ],
        );
      }
    }
    try {
      const updated = await updateStore(this.pool, storeId, changes);
      if (!updated) throw new AppError("not-found", `No store has the id ${storeId}.`);
      return updated;
    } catch (error) {
      throw uniqueViolation(error) ?? error;
    }
  }

  /** Every store, or only the one a store's token may see. */
  list(storeId?: number): Promise<StoreRow[]> {
    return listStores(this.pool, storeId);
  }

  findById(storeId: number): Promise<StoreRow | undefined> {
    return findStoreById(this.pool, storeId);
  }

  /** Look-ups normalise case and a trailing slash, as stores write their domain many ways. */
  findByDomain(domain: string): Promise<StoreRow | undefined> {
    return findStoreByDomain(this.pool, normalizeDomain(domain));
  }

  findByReference(reference: string): Promise<StoreRow | undefined> {
    return findStoreByReference(this.pool, reference);
  }
}
