import { ADMIN_OPERATIONS, type AdminStore, type ApiKey } from "@loyalty/shared-types";
import { Router } from "express";
import { adminRoute } from "../../http/admin-route.js";
import type { AppContext } from "../../runtime.js";
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

function apiKeyView(row: ApiKeyRow): ApiKey {
  return {
    id: keyId(row.prefix),
    label: row.label,
    active: row.revokedAt === null,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Back-office: stores and their API keys. */
export function storesAdminRoutes(context: AppContext): Router {
  const { stores, apiKeys } = context.services;
  const router = Router();

  adminRoute(router, context, ADMIN_OPERATIONS.listStores, async ({ admin }) =>
    (await stores.list(admin.storeId ?? undefined)).map(adminStoreView),
  );
  // A new domain may be one a storefront asked for before: every process must forget that it
  // had no store.
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.createStore,
    async ({ body }) => adminStoreView(await stores.create(body)),
    { propagates: true },
  );
  adminRoute(router, context, ADMIN_OPERATIONS.getStore, ({ store }) => adminStoreView(store));
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.updateStore,
    async ({ store, body }) => adminStoreView(await stores.update(store.id, body)),
    { propagates: true },
  );

  adminRoute(router, context, ADMIN_OPERATIONS.listApiKeys, async ({ store }) =>
    (await apiKeys.list(store.reference)).map(apiKeyView),
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.createApiKey,
    async ({ store, body }) => {
      const { key, row } = await apiKeys.create(store.reference, body.label);
      return { ...apiKeyView(row), key };
    },
    { propagates: true },
  );
  adminRoute(
    router,
    context,
    ADMIN_OPERATIONS.revokeApiKey,
    async ({ store, params }) => apiKeyView(await apiKeys.revoke(params.keyId, store.id)),
    { propagates: true },
  );
  return router;
}
