import {
  claimRewardResponseSchema,
  customerCodesResponseSchema,
  type ApiRevision,
  type ClaimRewardResponse,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addReward, customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";
import { revalidate } from "./support/revalidate.js";

const LATEST = { revision: "2026-08-26" };
const DAY_MS = 86_400_000;

type Store = Awaited<ReturnType<typeof storeWithKey>>;

let app: TestApp;
let shop: Store;
let other: Store;
const rewards = { fiveEuros: 0, shipping: 0, tenPercent: 0 };

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  shop = await storeWithKey(app, "https://codes.example");
  other = await storeWithKey(app, "https://other-codes.example");
  const { pool } = app.context;
  const add = async (name: string, reward: Parameters<typeof addReward>[2]) =>
    (await addReward(pool, shop.store.id, { name, ...reward })).rewardId;
  rewards.fiveEuros = await add("€5 off", {
    triggerValue: 500,
    kind: "fixed_amount",
    value: 5,
    minimumOrderAmount: 30,
    validityDays: 30,
  });
  rewards.shipping = await add("Free shipping", {
    triggerValue: 300,
    kind: "free_shipping",
    validityDays: null,
  });
  rewards.tenPercent = await add("Ten percent", {
    triggerValue: 200,
    kind: "percentage",
    value: 10,
    validityDays: 1,
  });
});
afterAll(() => app.close());

/** A customer holding points, who claims the rewards in turn: the claims' answers. */
async function customerWithCodes(
  store: Store,
  externalId: number,
  rewardIds: number[],
): Promise<ClaimRewardResponse[]> {
  await customerWithPoints(app.context.pool, store.store.id, externalId, 5000);
  const claims: ClaimRewardResponse[] = [];
  for (const rewardId of rewardIds) {
    const query = new URLSearchParams({
      domain: store.store.domain,
      hash: hashFor(store.store.reference, store.key, externalId),
    });
    const response = await fetch(`${app.baseUrl}/reward/claim/${externalId}?${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...LATEST },
      body: JSON.stringify({ rewardId }),
    });
    expect(response.status).toBe(201);
    claims.push(claimRewardResponseSchema.parse(await response.json()));
  }
  return claims;
}

function request(
  externalId: number,
  options: { store?: Store; hash?: string; domain?: string; headers?: Record<string, string> } = {},
) {
  const store = options.store ?? shop;
  const query = new URLSearchParams({
    domain: options.domain ?? store.store.domain,
    hash: options.hash ?? hashFor(store.store.reference, store.key, externalId),
  });
  return fetch(`${app.baseUrl}/reward/codes/${externalId}?${query.toString()}`, {
    headers: options.headers ?? LATEST,
  });
}

/** The codes of a 200 answer, checked against the contract. */
async function codesOf(externalId: number, store: Store = shop) {
  const response = await request(externalId, { store });
  expect(response.status).toBe(200);
  return customerCodesResponseSchema.parse(await response.json()).codes;
}

/** A code as the list shows it, from the claim's answer. */
function listed(claim: ClaimRewardResponse, rewardName: string) {
  const { kind, value, currency, minimumOrderAmount } = claim.voucher;
  return {
    code: claim.code,
    rewardId: claim.rewardId,
    rewardName,
    pointsSpent: claim.pointsSpent,
    claimedAt: expect.any(String),
    expiresAt: claim.expiresAt,
    voucher: { kind, value, currency, minimumOrderAmount },
  };
}

function register(body: Record<string, unknown>, headers: Record<string, string> = LATEST) {
  return fetch(`${app.baseUrl}/api/order/register`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: shop.authorization, ...headers },
    body: JSON.stringify({
      currency: "EUR",
      lines: [{ lineId: 1, productId: 100, quantity: 1, unitPrice: 40 }],
      ...body,
    }),
  });
}

async function processed(externalId: string) {
  return eventually(async () => {
    const { rows } = await app.context.pool.query<{ id: number; status: string }>(
      `SELECT id, status FROM orders WHERE store_id = $1 AND external_id = $2`,
      [shop.store.id, externalId],
    );
    return rows[0]?.status === "processed" ? rows[0].id : undefined;
  });
}

async function usesOf(codes: string[]) {
  const { rows } = await app.context.pool.query<{
    code: string;
    used_at: Date | null;
    used_order_id: number | null;
  }>(`SELECT code, used_at, used_order_id FROM reward_claims WHERE code = ANY ($1) ORDER BY code`, [
    codes,
  ]);
  return rows;
}

describe("GET /reward/codes/{externalId}", () => {
  it("lists the customer's codes newest first, with the reward's name and conditions", async () => {
    const [tenPercent, shipping, fiveEuros] = await customerWithCodes(shop, 42, [
      rewards.tenPercent,
      rewards.shipping,
      rewards.fiveEuros,
    ]);
    const response = await request(42);
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    const codes = customerCodesResponseSchema.parse(await response.json()).codes;
    expect(codes).toEqual([
      listed(fiveEuros!, "€5 off"),
      listed(shipping!, "Free shipping"),
      listed(tenPercent!, "Ten percent"),
    ]);
    expect(codes[0]?.voucher).toEqual({
      kind: "fixed_amount",
      value: 5,
      currency: "EUR",
      minimumOrderAmount: 30,
    });
    expect(codes[1]?.expiresAt).toBeNull();
    const claimed = codes.map((code) => Date.parse(code.claimedAt));
    expect(claimed).toEqual([...claimed].sort((a, b) => b - a));
    // 30 days after the claim, by the voucher's validity.
    expect(Date.parse(codes[0]!.expiresAt!) - claimed[0]!).toBe(30 * DAY_MS);
  });

  it("is revalidated with its ETag: 304 while nothing changed", async () => {
    const first = await request(42);
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await revalidate(new URL(first.url).href, etag!, LATEST);
    expect(again.status).toBe(304);
  });

  it("leaves out a code that has expired by the service's clock", async () => {
    app.setNow(new Date(Date.now() + 2 * DAY_MS));
    try {
      expect((await codesOf(42)).map((code) => code.rewardName)).toEqual([
        "€5 off",
        "Free shipping",
      ]);
    } finally {
      app.setNow(undefined);
    }
    expect(await codesOf(42)).toHaveLength(3);
  });

  it("leaves out a code once an order names it, in any case; a replay changes nothing", async () => {
    const [used, kept] = await customerWithCodes(shop, 44, [rewards.fiveEuros, rewards.shipping]);
    const [anothers] = await customerWithCodes(shop, 45, [rewards.fiveEuros]);
    const order = {
      externalId: 7001,
      customer: { externalId: 44 },
      // Another customer's code does not become this customer's to use.
      discountCodes: [` ${used!.code.toLowerCase()} `, anothers!.code],
    };
    expect((await register(order)).status).toBe(201);
    const orderId = await processed("7001");

    expect(await codesOf(44)).toEqual([listed(kept!, "Free shipping")]);
    expect(await codesOf(45)).toEqual([listed(anothers!, "€5 off")]);
    const before = await usesOf([used!.code, kept!.code, anothers!.code]);
    expect(before.find((row) => row.code === used!.code)).toMatchObject({
      used_at: expect.any(Date),
      used_order_id: orderId,
    });
    expect(before.filter((row) => row.used_at !== null)).toHaveLength(1);

    // The same registration again, then another order (2026-01-01) naming the used code.
    expect((await register(order)).status).toBe(201);
    const legacy = {
      externalRef: "7002",
      customer: { externalId: 44 },
      discountCodes: [used!.code],
    };
    expect((await register(legacy, { revision: "2026-01-01" })).status).toBe(201);
    await processed("7002");
    expect(await usesOf([used!.code, kept!.code, anothers!.code])).toEqual(before);
  });

  it("stores an order without discount codes as it always did", async () => {
    expect((await register({ externalId: 7003, customer: { externalId: 44 } })).status).toBe(201);
    await processed("7003");
    const { rows } = await app.context.pool.query<{ named: boolean }>(
      `SELECT payload ? 'discountCodes' AS named FROM orders
       WHERE store_id = $1 AND external_id = '7003'`,
      [shop.store.id],
    );
    expect(rows[0]?.named).toBe(false);
  });

  it("shows a customer only their own store's codes", async () => {
    await customerWithCodes(other, 42, []);
    const otherReward = await addReward(app.context.pool, other.store.id, {
      name: "Other store",
      triggerValue: 100,
    });
    const [theirs] = await customerWithCodes(other, 43, [otherReward.rewardId]);
    expect(await codesOf(42, other)).toEqual([]);
    expect(await codesOf(43, other)).toEqual([listed(theirs!, "Other store")]);
    expect((await codesOf(42)).map((code) => code.code)).not.toContain(theirs!.code);
  });

  it("answers a customer the store has never seen with no codes, and writes nothing", async () => {
    const count = async () =>
      (await app.context.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM customers`))
        .rows[0]?.n;
    const before = await count();
    for (const revision of ["2026-01-01", "2026-08-26"] as ApiRevision[]) {
      const response = await request(999, { headers: { revision } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ codes: [] });
    }
    expect(await count()).toBe(before);
  });
});

describe("GET /reward/codes/{externalId} refusals", () => {
  const refusals: [string, () => Parameters<typeof request>[1]][] = [
    ["a wrong hash", () => ({ hash: hashFor(shop.store.reference, shop.key, 43) })],
    ["another store's key", () => ({ hash: hashFor(shop.store.reference, other.key, 42) })],
    ["an unknown domain", () => ({ domain: "https://unknown.example" })],
  ];

  it.each(refusals)("refuses %s with 401 in the legacy format", async (_name, options) => {
    for (const revision of ["2026-01-01", "2026-06-18"]) {
      const response = await request(42, { ...options(), headers: { revision } });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        statusCode: 401,
        error: "Unauthorized",
        message: expect.any(String),
      });
    }
  });

  it.each(refusals)("refuses %s with a problem object from 2026-08-26", async (_name, options) => {
    const response = await request(42, { ...options(), headers: LATEST });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({
      type: expect.stringMatching(/\/unauthorized$/),
      status: 401,
    });
  });
});
