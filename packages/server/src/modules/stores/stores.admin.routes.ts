import { ADMIN_OPERATIONS } from "@loyalty/shared-types";
import { operationRoute, type OperationRoute } from "../../http/operation.js";
import type { Services } from "../../runtime.js";
import { adminStoreView, apiKeyView } from "./stores.views.js";

/** Back-office: stores and their API keys. */
export function storesAdminRoutes({
  stores,
  apiKeys,
}: Pick<Services, "stores" | "apiKeys">): OperationRoute[] {
  return [
    operationRoute(ADMIN_OPERATIONS.listStores, async ({ admin }) =>
      (await stores.list(admin.storeId ?? undefined)).map(adminStoreView),
    ),
    // A new domain may be one a storefront asked for before: every process must forget that it
    // had no store.
    operationRoute(
      ADMIN_OPERATIONS.createStore,
      async ({ body }) => adminStoreView(await stores.create(body)),
      { propagates: true },
    ),
    operationRoute(ADMIN_OPERATIONS.getStore, ({ store }) => adminStoreView(store)),
    operationRoute(
      ADMIN_OPERATIONS.updateStore,
      async ({ store, body }) => adminStoreView(await stores.update(store.id, body)),
      { propagates: true },
    ),

    operationRoute(ADMIN_OPERATIONS.listApiKeys, async ({ store }) =>
      (await apiKeys.list(store.reference)).map(apiKeyView),
    ),
    operationRoute(
      ADMIN_OPERATIONS.createApiKey,
      async ({ store, body }) => {
        const { key, row } = await apiKeys.create(store.reference, body.label);
        return { ...apiKeyView(row), key };
      },
      { propagates: true },
    ),
    operationRoute(
      ADMIN_OPERATIONS.revokeApiKey,
      async ({ store, params }) => apiKeyView(await apiKeys.revoke(params.keyId, store.id)),
      { propagates: true },
    ),
  ];
}
