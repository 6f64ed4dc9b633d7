// Type-checked against the published declarations (ESM): the revision decides the shapes.
import {
  LoyaltyClient,
  LoyaltyValidationError,
  webhooks,
  type ApiRevision,
  type ClaimResult,
  type CustomerHistory,
  type RegisterOrderRequest,
  type WebhookEvent,
} from "@loyalty/node-sdk";

const credentials = {
  apiKey: "lk_test_key",
  storeReference: "st_test",
  domain: "https://shop.example",
  baseUrl: "https://loyalty.example.com",
};
const lines = [{ lineId: 1, productId: 301, quantity: 1, unitPrice: 10 }];
const customer = { externalId: 1001 };

export async function latest(): Promise<number> {
  const client = new LoyaltyClient(credentials);
  const order = await client.orders.register({
    externalId: 5001,
    customer,
    currency: "EUR",
    lines,
  });
  // @ts-expect-error: from 2026-06-18 the order is externalId, not externalRef
  await client.orders.register({ externalRef: "5001", customer, currency: "EUR", lines });
  // A call may use another revision, with its shapes.
  const legacy = await client.orders.register(
    { externalRef: "5001", customer, currency: "EUR", lines },
    { revision: "2026-01-01" },
  );
  const ref: string = legacy.externalRef;
  // @ts-expect-error: not a revision
  await client.rewards.list({ revision: "2025-01-01" });
  return order.externalId + ref.length;
}

export async function pinned(): Promise<string> {
  const client = new LoyaltyClient({ ...credentials, revision: "2026-01-01" });
  const registered = await client.orders.register({
    externalRef: "A-5001",
    customer,
    currency: "EUR",
    lines,
  });
  // @ts-expect-error: 2026-01-01 names the order externalRef
  await client.orders.refund({ externalId: 5001, status: "refunded" });
  const page: CustomerHistory<"2026-01-01"> = await client.customers.history(1001);
  const first = page.transactions[0]?.order?.externalRef ?? "";
  return registered.externalRef + first;
}

export async function claim(client: LoyaltyClient): Promise<string> {
  const result: ClaimResult = await client.rewards.claim(1001, { rewardId: 12 });
  if (result.code === null) return result.reason;
  return result.code;
}

export async function pages(client: LoyaltyClient): Promise<number> {
  let total = 0;
  for await (const page of client.customers.historyPages(1001, { limit: 50 })) {
    total += page.transactions.length;
  }
  return total;
}

export function union(revision: ApiRevision): RegisterOrderRequest<ApiRevision> {
  return revision === "2026-01-01"
    ? { externalRef: "5001", customer, currency: "EUR", lines }
    : { externalId: 5001, customer, currency: "EUR", lines };
}

export function handle(error: unknown): string | undefined {
  return error instanceof LoyaltyValidationError ? error.issues[0]?.pointer : undefined;
}

export function event(body: Buffer, header: string | undefined): number {
  const verified: WebhookEvent = webhooks.verify(body, header, "whsec_test", { tolerance: 300 });
  return verified.type === "POINTS_EARNED" ? verified.data.points : 0;
}
