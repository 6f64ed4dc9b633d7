import { customerHashSchema, domainSchema, externalIdTextSchema } from "@loyalty/shared-types";
import { constantTimeEqual, customerHash } from "../crypto/secrets.js";
import { AppError } from "../errors.js";
import type { Authenticator } from "../http/rate-limit.middleware.js";
import type { ApiKeysService, CustomerCredentials } from "../modules/stores/api-keys.service.js";

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** How many checked hashes are remembered; past it, the oldest is forgotten first. */
export const MAX_REMEMBERED_HASHES = 10_000;

/**
 * Hashes found right, by store, customer id text and hash text: a shopper's widgets ask again
 * and again with the same ones. Each is kept with the generation of the store's credentials it
 * was checked against, and counts only while the store's credentials are still those (a key
 * created or revoked, or any change of the store, makes new ones): no hash is taken without a
 * check against the store's current keys. Spares an HMAC per key (with the comparison, about
 * 4 % of a history's CPU in the server, `pnpm bench`, 2026-11-29). The credentials themselves,
 * which hold the keys, are not kept here.
 */
const rememberedHashes = new Map<string, number>();

/** A number per credentials object, new each time the service makes them anew. */
const generations = new WeakMap<CustomerCredentials, number>();
let lastGeneration = 0;
function generationOf(credentials: CustomerCredentials): number {
  let generation = generations.get(credentials);
  if (generation === undefined) {
    generation = ++lastGeneration;
    generations.set(credentials, generation);
  }
  return generation;
}

/** How many checked hashes are remembered (tests check that they stay bounded). */
export function rememberedHashCount(): number {
  return rememberedHashes.size;
}

/**
 * The customer HMAC of the spec: `hash` = hex HMAC-SHA512 of the externalId text keyed
 * `<store_reference>:<API_KEY>`, checked against every active key of the store named by
 * `domain`. Any failure (missing or malformed parameter, unknown domain, wrong hash) is 401.
 * Sets `req.store` and `req.customerExternalId`.
 */
export function hmacAuth(apiKeys: ApiKeysService, externalIdFrom: "path" | "query"): Authenticator {
  return async (req, _res, { lookups }) => {
    const refuse = () =>
      new AppError("unauthorized", "The customer hash does not match this store and customer.");
    const query = req.query as Record<string, unknown>;
    const idText =
      externalIdFrom === "path" ? text(req.params["externalId"]) : text(query["externalId"]);
    // A path operation may name the customer again in its query, once and the same: a list
    // (`?externalId=1&externalId=2`) or another id is refused, never read as "not given".
    const repeatedId: unknown = query["externalId"];
    const externalId = externalIdTextSchema.safeParse(idText);
    const hash = customerHashSchema.safeParse(query["hash"]);
    const domain = domainSchema.safeParse(query["domain"]);
    if (
      idText === undefined ||
      !externalId.success ||
      (externalIdFrom === "path" && repeatedId !== undefined && repeatedId !== idText) ||
      !hash.success ||
      !domain.success
    ) {
      throw refuse();
    }
    const credentials = await apiKeys.customerCredentials(domain.data, { lookups });
    if (!credentials) throw refuse();
    const { store, keys } = credentials;
    const generation = generationOf(credentials);
    const remembering = `${store.id}\n${idText}\n${hash.data}`;
    if (rememberedHashes.get(remembering) !== generation) {
      // Every key is compared, matching or not, so the time taken does not tell which one matched.
      let matched = false;
      for (const key of keys) {
        if (constantTimeEqual(customerHash(store.reference, key, idText), hash.data)) {
          matched = true;
        }
      }
      if (!matched) throw refuse();
      rememberedHashes.delete(remembering);
      if (rememberedHashes.size >= MAX_REMEMBERED_HASHES) {
        rememberedHashes.delete(rememberedHashes.keys().next().value as string);
      }
      // A copy of its own: the parts are slices of the request's URL, which V8 would otherwise
      // keep whole with the key (up to 16 KiB a key, with a long query).
      rememberedHashes.set(Buffer.from(remembering, "latin1").toString("latin1"), generation);
    }
    req.store = store;
    req.customerExternalId = externalId.data;
    // Customers are counted before authentication (by store, id and address), not here.
    return {};
  };
}
