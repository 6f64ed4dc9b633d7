import { type AdminStore, type ApiKey } from "@loyalty/shared-types";
import type { ApiKeyRow } from "./api-keys.repository.js";
import { keyId } from "./api-keys.service.js";
import type { StoreRow } from "./stores.repository.js";

export function adminStoreView(row: StoreRow): AdminStore {
  return {
    id: row.id,
    reference: row.reference,
    domain: row.domain,
    name: row.name,
    language: row.language,
    currency: row.currency,
    brandingColor: row.brandingColor,
    platform: row.platform as AdminStore["platform"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function apiKeyView(row: ApiKeyRow): ApiKey {
  return {
    id: keyId(row.prefix),
    label: row.label,
    active: row.revokedAt === null,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
