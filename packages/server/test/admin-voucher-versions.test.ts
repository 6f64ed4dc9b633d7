import {
  adminVoucherVersionSchema,
  problemSchema,
  type AdminReward,
  type AdminVoucherVersion,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";

type Store = Awaited<ReturnType<typeof storeWithKey>>;

let app: TestApp;
let service: AdminSession;
let storeCount = 0;

beforeAll(async () => {
  app = await startTestApp();
  service = await adminSession(app);
});
afterAll(async () => {
  await app.close();
});

function newStore(): Promise<Store> {
  storeCount += 1;
  return storeWithKey(app, `https://vouchers-${storeCount}.example`);
}

const rewardsOf = (s: Store) => `/admin/stores/${s.store.id}/rewards`;

async function ok<T>(method: string, path: string, body?: unknown, session = service): Promise<T> {
  const response = await session.request(method, path, body);
  const answer: unknown = await response.json();
  expect(response.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer as T;
}

async function versions(s: Store, rewardId: number): Promise<AdminVoucherVersion[]> {
  const answer = await ok<unknown[]>("GET", `${rewardsOf(s)}/${rewardId}/vouchers`);
  return answer.map((version) => adminVoucherVersionSchema.parse(version));
}

async function claim(s: Store, externalId: number, rewardId: number): Promise<number> {
  const query = new URLSearchParams({
    domain: s.store.domain,
    hash: hashFor(s.store.reference, s.key, externalId),
  });
  const response = await fetch(`${app.baseUrl}/reward/claim/${externalId}?${query.toString()}`, {
    method: "POST",
    headers: { "content-type": "application/json", revision: "2026-08-26" },
    body: JSON.stringify({ rewardId }),
  });
  return response.status;
}

const FIVE_OFF = {
  kind: "fixed_amount",
  value: 5,
  currency: "EUR",
  minimumOrderAmount: 30,
  validityDays: 60,
  usageLimit: 3,
} as const;

const TEN_PERCENT = {
  kind: "percentage",
  value: 10,
  currency: null,
  minimumOrderAmount: null,
  validityDays: 30,
  usageLimit: 100,
} as const;

describe("voucher versions", () => {
  it("lists every version newest first, each with the codes it issued and has left", async () => {
    const shop = await newStore();
    const reward = await ok<AdminReward>("POST", rewardsOf(shop), {
      name: "€5 off",
      triggerValue: 100,
      voucher: FIVE_OFF,
    });
    for (const externalId of [1, 2, 3]) {
      await customerWithPoints(
        app.context.pool,
        shop.store.id,
        externalId,
        1000,
        `c${externalId}@x.example`,
      );
    }
    expect(await claim(shop, 1, reward.id)).toBe(201);
    expect(await claim(shop, 2, reward.id)).toBe(201);
    // A claim the platform refused gave its points back: it issued no code.
    await app.context.pool.query(
      `INSERT INTO reward_claims (store_id, customer_id, reward_id, voucher_version_id, points,
                                  status, code, released_at)
       SELECT $1, c.id, v.reward_id, v.id, 100, 'released', 'REFUSED-1', now()
       FROM voucher_versions v, customers c
       WHERE v.reward_id = $2 AND c.store_id = $1 AND c.external_id = 3`,
      [shop.store.id, reward.id],
    );
    await ok("PATCH", `${rewardsOf(shop)}/${reward.id}`, { voucher: TEN_PERCENT });
    await ok("PATCH", `${rewardsOf(shop)}/${reward.id}`, {
      voucher: { ...TEN_PERCENT, value: 15, usageLimit: null },
    });
    expect(await claim(shop, 3, reward.id)).toBe(201);

    const listed = await versions(shop, reward.id);
    expect(listed.map(({ version, current: isCurrent }) => [version, isCurrent])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect(listed[2]).toMatchObject({
      ...FIVE_OFF,
      version: 1,
      codesIssued: 2,
      codesRemaining: 1,
    });
    expect(listed[1]).toMatchObject({ ...TEN_PERCENT, codesIssued: 0, codesRemaining: 100 });
    expect(listed[0]).toMatchObject({ value: 15, usageLimit: null, codesRemaining: null });
    // The current version counts its codes as the reward's own view does.
    const now = await ok<AdminReward>("GET", `${rewardsOf(shop)}/${reward.id}`);
    expect(now.voucher).toMatchObject({ version: 3, codesIssued: 1 });
    expect(listed[0]).toEqual({ ...now.voucher, codesRemaining: null, current: true });
  });

  it("shows none left once a version issued its limit", async () => {
    const shop = await newStore();
    const reward = await ok<AdminReward>("POST", rewardsOf(shop), {
      name: "One only",
      triggerValue: 100,
      voucher: { ...FIVE_OFF, usageLimit: 1 },
    });
    await customerWithPoints(app.context.pool, shop.store.id, 1, 1000, "one@x.example");
    await customerWithPoints(app.context.pool, shop.store.id, 2, 1000, "two@x.example");
    expect(await claim(shop, 1, reward.id)).toBe(201);
    // The limit is reached: the reward is off the list, and a claim is refused.
    expect(await claim(shop, 2, reward.id)).not.toBe(201);
    expect(await versions(shop, reward.id)).toEqual([
      expect.objectContaining({ version: 1, codesIssued: 1, codesRemaining: 0, current: true }),
    ]);
  });

  it("answers not-found for an unknown reward and for another store's", async () => {
    const shop = await newStore();
    const elsewhere = await newStore();
    const theirs = await ok<AdminReward>("POST", rewardsOf(elsewhere), {
      name: "Theirs",
      triggerValue: 100,
      voucher: FIVE_OFF,
    });
    for (const path of [
      `${rewardsOf(shop)}/${theirs.id}/vouchers`,
      `${rewardsOf(shop)}/999999999/vouchers`,
      `${rewardsOf(shop)}/abc/vouchers`,
    ]) {
      const response = await service.request("GET", path);
      expect(response.status, path).toBe(404);
      expect(problemSchema.parse(await response.json()).type).toMatch(/\/not-found$/);
    }
    const storeAdmin = await adminSession(app, { storeReference: shop.store.reference });
    const forbidden = await storeAdmin.request(
      "GET",
      `${rewardsOf(elsewhere)}/${theirs.id}/vouchers`,
    );
    expect(forbidden.status).toBe(403);
    expect(await versions(elsewhere, theirs.id)).toHaveLength(1);
  });
});
