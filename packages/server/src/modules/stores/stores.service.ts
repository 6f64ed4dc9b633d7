import { randomBytes } from "node:crypto";
import {
  currencySchema,
  languageSchema,
  normalizeDomain,
  storeDomainSchema,
  storeReferenceSchema,
} from "@loyalty/shared-types";
import type pg from "pg";
import { z } from "zod";
import type { Queryable } from "../../db/pool.js";
import { AppError } from "../../http/app-error.js";
import { parseRequest } from "../../http/validate.js";
import {
  findStoreByDomain,
  findStoreByReference,
  insertStore,
  type StoreRow,
} from "./stores.repository.js";

export const createStoreInputSchema = z.object({
  domain: storeDomainSchema,
  reference: storeReferenceSchema.optional(),
  name: z.string().trim().max(200).default(""),
  language: languageSchema.default("en"),
  currency: currencySchema.default("EUR"),
});
export type CreateStoreInput = z.input<typeof createStoreInputSchema>;

/** A reference nobody guesses: it is half of the key customer hashes are made with. */
function newReference(): string {
  return `st_${randomBytes(15).toString("base64url").replace(/[-_]/g, "x")}`;
}

export class StoresService {
  constructor(private readonly pool: pg.Pool) {}

  /** Creates a store; `db` lets a caller make it part of a larger transaction. */
  async create(input: CreateStoreInput, db: Queryable = this.pool): Promise<StoreRow> {
    const store = parseRequest(createStoreInputSchema, input, "body");
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
      // Two creations racing for the same domain or reference: the unique index decides.
      if ((error as { code?: string }).code === "23505") {
        throw new AppError(
          "validation-failed",
          "A store with this domain or reference already exists.",
        );
      }
      throw error;
    }
  }

  /** Look-ups normalise case and a trailing slash, as stores write their domain many ways. */
  findByDomain(domain: string): Promise<StoreRow | undefined> {
    return findStoreByDomain(this.pool, normalizeDomain(domain));
  }

  findByReference(reference: string): Promise<StoreRow | undefined> {
    return findStoreByReference(this.pool, reference);
  }
}
