import {
  ERROR_REASONS,
  OPERATION_EXAMPLES,
  adminStoreSchema,
  adminTokenResponseSchema,
  problemSchema,
  type AdminStore,
  type AdminTokenResponse,
  type ErrorReason,
  type Problem,
  type ValidationIssue,
} from "@loyalty/shared-types";

/*
 * Test data, parsed with the contracts' schemas: a fixture the API could never send fails
 * here, not in a confusing assertion. OPERATION_EXAMPLES holds a realistic response of every
 * operation: start from it (`example("listRules")`) and change what the test is about.
 */

/** The examples' response of an operation (a fresh copy). */
export function example<N extends keyof typeof OPERATION_EXAMPLES>(
  name: N,
): (typeof OPERATION_EXAMPLES)[N] extends { response: infer R } ? R : never {
  const examples = OPERATION_EXAMPLES[name] as { response?: unknown };
  return structuredClone(examples.response) as never;
}

/** The admin the mocked API knows. */
export const ADMIN = { email: "admin@shop.example", password: "correct horse battery staple" };

/** A store, the examples' own by default (id 42, "Trail & Co", https://shop.example). */
export function store(changes: Partial<AdminStore> = {}): AdminStore {
  return adminStoreSchema.parse({ ...example("listStores")[0], ...changes });
}

export const STORE = store();
export const OTHER_STORE = store({
  id: 43,
  reference: "st_other_store_ref",
  name: "Sea & Sun",
  domain: "https://sea.example",
  currency: "GBP",
});

/** A token of the service (storeId null) or of one store, valid for `seconds` from now. */
export function tokenResponse({
  storeId = null,
  seconds = 900,
}: { storeId?: number | null; seconds?: number } = {}): AdminTokenResponse {
  return adminTokenResponseSchema.parse({
    accessToken: `test-token-${storeId ?? "service"}`,
    tokenType: "Bearer",
    expiresIn: Math.max(1, Math.round(seconds)),
    expiresAt: new Date(Date.now() + seconds * 1000).toISOString(),
    storeId,
  });
}

/** An RFC 9457 problem, as the server answers at revision 2026-08-26. */
export function problem(reason: ErrorReason, detail: string, errors?: ValidationIssue[]): Problem {
  const { status, title } = ERROR_REASONS[reason];
  return problemSchema.parse({
    type: `https://loyalty.example/problems/${reason}`,
    title,
    status,
    detail,
    instance: "/admin/test",
    requestId: "req_test_1",
    ...(errors ? { errors } : {}),
  });
}
