import {
  adminRewardSchema,
  attributionRuleSchema,
  calculatePointsResponseSchema,
  clubSchema,
  problemSchema,
  rewardListResponseSchema,
  type AdminReward,
  type AttributionRule,
  type Club,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, hashFor, pointsOf, storeWithKey } from "./support/fixtures.js";

type Store = Awaited<ReturnType<typeof storeWithKey>>;

let app: TestApp;
/** A second server process on the same database: its own storefront cache and LISTEN. */
let other: TestApp;
let service: AdminSession;
let storeCount = 0;

beforeAll(async () => {
  app = await startTestApp();
  other = await startTestApp({ database: app.database });
  service = await adminSession(app);
});
afterAll(async () => {
  await other.close();
  await app.close();
});

/** A store of this test alone, so that its lists hold only what the test put there. */
function newStore(): Promise<Store> {
  storeCount += 1;
  return storeWithKey(app, `https://catalog-${storeCount}.example`);
}

interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

async function send(
  method: string,
  path: string,
  body?: unknown,
  session: AdminSession = service,
): Promise<Answer> {
  const response = await session.request(method, path, body);
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: text === "" ? undefined : JSON.parse(text),
  };
}

/** Sends a write that must succeed, and returns what it answered. */
async function ok<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await send(method, path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body as T;
}

/** A 400 validation-failed problem naming exactly these fields. */
function expectInvalid(answer: Answer, pointers: string[]): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.contentType).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(answer.body);
  expect(problem.type).toMatch(/\/validation-failed$/);
  // A set: a field may be named twice (each half of an intersection reports a missing object).
  const named = new Set((problem.errors ?? []).map((issue) => issue.pointer));
  expect([...named].sort()).toEqual([...pointers].sort());
}

function expectReason(answer: Answer, status: number, reason: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(problemSchema.parse(answer.body).type).toMatch(new RegExp(`/${reason}$`));
}

const rulesOf = (s: Store) => `/admin/stores/${s.store.id}/rules`;
const clubsOf = (s: Store) => `/admin/stores/${s.store.id}/clubs`;
const rewardsOf = (s: Store) => `/admin/stores/${s.store.id}/rewards`;

async function listed<T>(path: string): Promise<T[]> {
  const answer = await send("GET", path);
  expect(answer.status).toBe(200);
  return answer.body as T[];
}

async function calculate(
  on: TestApp,
  s: Store,
  query: { product?: number; categories?: number[]; price: number },
) {
  const params = new URLSearchParams({ domain: s.store.domain, price: String(query.price) });
  if (query.product !== undefined) params.set("product", String(query.product));
  for (const category of query.categories ?? []) params.append("categories", String(category));
  const url = `${on.baseUrl}/point/product-points/calculate?${params.toString()}`;
  const response = await fetch(url, { headers: { revision: "2026-08-26" } });
  expect(response.status).toBe(200);
  return calculatePointsResponseSchema.parse(await response.json());
}

async function storefrontRewards(on: TestApp, s: Store) {
  const response = await fetch(
    `${on.baseUrl}/reward/list?domain=${encodeURIComponent(s.store.domain)}`,
    { headers: { revision: "2026-08-26" } },
  );
  expect(response.status).toBe(200);
  return rewardListResponseSchema.parse(await response.json());
}

function claim(on: TestApp, s: Store, externalId: number, rewardId: number) {
  const query = new URLSearchParams({
    domain: s.store.domain,
    hash: hashFor(s.store.reference, s.key, externalId),
  });
  return fetch(`${on.baseUrl}/reward/claim/${externalId}?${query.toString()}`, {
    method: "POST",
    headers: { "content-type": "application/json", revision: "2026-08-26" },
    body: JSON.stringify({ rewardId }),
  });
}

describe("attribution rules", () => {
  it("creates, lists, changes and deletes a store's rules", async () => {
    const shop = await newStore();
    const created = await send("POST", rulesOf(shop), {
      kind: "default",
      name: "Everything",
      rate: 1,
    });
    expect(created.status).toBe(201);
    const fallback = attributionRuleSchema.parse(created.body);
    expect(fallback).toMatchObject({
      kind: "default",
      targetId: null,
      name: "Everything",
      rate: 1,
      pointsPerItem: 0,
      active: true,
    });
    const mugs = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "product",
      targetId: 42,
      name: "Mugs",
      rate: 2.5,
      pointsPerItem: 10,
    });
    expect(await listed(rulesOf(shop))).toEqual([fallback, mugs]);

    const changed = await send("PATCH", `${rulesOf(shop)}/${mugs.id}`, {
      name: "Mugs, double",
      rate: 5.125,
    });
    expect(changed.status).toBe(200);
    expect(attributionRuleSchema.parse(changed.body)).toMatchObject({
      id: mugs.id,
      kind: "product",
      targetId: 42,
      name: "Mugs, double",
      rate: 5.125,
      pointsPerItem: 10,
      createdAt: mugs.createdAt,
    });

    const deleted = await send("DELETE", `${rulesOf(shop)}/${mugs.id}`);
    expect(deleted).toMatchObject({ status: 204, body: undefined });
    expect(await listed(rulesOf(shop))).toEqual([fallback]);
    expectReason(await send("DELETE", `${rulesOf(shop)}/${mugs.id}`), 404, "not-found");
    expectReason(await send("PATCH", `${rulesOf(shop)}/${mugs.id}`, { rate: 1 }), 404, "not-found");
  });

  it("names the fields of a malformed rule, and keeps the rules as they were", async () => {
    const shop = await newStore();
    const rule = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "category",
      targetId: 7,
      rate: 2,
    });
    const path = `${rulesOf(shop)}/${rule.id}`;

    expectInvalid(await send("POST", rulesOf(shop), {}), ["/kind"]);
    expectInvalid(await send("POST", rulesOf(shop), { kind: "brand", targetId: 1 }), ["/kind"]);
    expectInvalid(await send("POST", rulesOf(shop), { kind: "default", targetId: 5 }), [
      "/targetId",
    ]);
    expectInvalid(await send("POST", rulesOf(shop), { kind: "category", rate: 1 }), ["/targetId"]);
    expectInvalid(
      await send("POST", rulesOf(shop), {
        kind: "product",
        targetId: -1,
        rate: -1,
        pointsPerItem: 1.5,
        active: "yes",
      }),
      ["/targetId", "/rate", "/pointsPerItem", "/active"],
    );
    expectInvalid(await send("PATCH", path, { rate: "3" }), ["/rate"]);
    expectInvalid(await send("PATCH", path, { name: "x".repeat(201) }), ["/name"]);

    // What a rule targets is what it is: another target is another rule.
    for (const immutable of [{ kind: "product" }, { targetId: 8 }]) {
      const refused = await send("PATCH", path, { ...immutable, rate: 9 });
      expect(refused.status).toBe(400);
      expect(problemSchema.parse(refused.body).detail).toContain(Object.keys(immutable)[0]);
    }
    expect(await listed(rulesOf(shop))).toEqual([rule]);
  });

  it("keeps one active rule per product, per category and one default, naming the field", async () => {
    const shop = await newStore();
    const product = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "product",
      targetId: 42,
      rate: 1,
    });
    const fallback = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "default",
      rate: 1,
    });
    const secondProduct = await send("POST", rulesOf(shop), {
      kind: "product",
      targetId: 42,
      rate: 9,
    });
    expectInvalid(secondProduct, ["/targetId"]);
    expect(problemSchema.parse(secondProduct.body).detail).toContain(`Rule ${product.id}`);
    expectInvalid(await send("POST", rulesOf(shop), { kind: "default", rate: 9 }), ["/kind"]);

    // Another product, or the same one under a category rule, is another target.
    const otherProduct = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "product",
      targetId: 43,
      rate: 1,
    });
    const category = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "category",
      targetId: 42,
      rate: 1,
    });
    // An inactive rule for a taken target is a draft: kept, until it is activated.
    const draft = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "product",
      targetId: 42,
      rate: 9,
      active: false,
    });
    expectInvalid(await send("PATCH", `${rulesOf(shop)}/${draft.id}`, { active: true }), [
      "/active",
    ]);
    expect(await listed(rulesOf(shop))).toEqual([product, fallback, otherProduct, category, draft]);

    await ok("PATCH", `${rulesOf(shop)}/${product.id}`, { active: false });
    const activated = await ok<AttributionRule>("PATCH", `${rulesOf(shop)}/${draft.id}`, {
      active: true,
    });
    expect(activated.active).toBe(true);
    expect(await calculate(app, shop, { product: 42, price: 10 })).toEqual({
      points: 90,
      type: "product",
      id: draft.id,
    });
  });

  it("refuses a rule that lost a race for its target, naming the field", async () => {
    const shop = await newStore();
    const { pool } = app.context;
    // Another writer's rule for the same category, not yet committed: invisible to the check.
    const racer = await pool.connect();
    try {
      await racer.query("BEGIN");
      await racer.query(
        `INSERT INTO attribution_rules (store_id, kind, target_id, rate) VALUES ($1, 'category', 99, 1)`,
        [shop.store.id],
      );
      const losing = send("POST", rulesOf(shop), { kind: "category", targetId: 99, rate: 2 });
      // The request's insert waits on the unique index for the other writer's outcome.
      await eventually(async () => {
        const { rows } = await pool.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows.length > 0 ? true : undefined;
      });
      await racer.query("COMMIT");
      expectInvalid(await losing, ["/targetId"]);
    } finally {
      racer.release();
    }
    expect(await listed(rulesOf(shop))).toEqual([expect.objectContaining({ rate: 1 })]);
  });

  it("answers not-found for another store's rule, and leaves that rule alone", async () => {
    const shop = await newStore();
    const elsewhere = await newStore();
    const theirs = await ok<AttributionRule>("POST", rulesOf(elsewhere), {
      kind: "product",
      targetId: 5,
      rate: 2,
    });
    const before = await listed(rulesOf(elsewhere));
    const path = `${rulesOf(shop)}/${theirs.id}`;
    expectReason(await send("PATCH", path, { rate: 100, active: false }), 404, "not-found");
    expectReason(await send("DELETE", path), 404, "not-found");
    for (const id of ["abc", "0", "-1", "1.5"]) {
      expectReason(await send("DELETE", `${rulesOf(shop)}/${id}`), 404, "not-found");
    }
    expectReason(await send("GET", "/admin/stores/999999/rules"), 404, "not-found");
    expect(await listed(rulesOf(elsewhere))).toEqual(before);
    expect(await calculate(app, elsewhere, { product: 5, price: 10 })).toMatchObject({
      points: 20,
    });
  });

  it("changes what calculate answers at once, on every server process", async () => {
    const shop = await newStore();
    const product = { product: 5, categories: [3], price: 10 };
    // Both processes hold the store's rules in memory: none yet.
    for (const server of [app, other]) {
      expect(await calculate(server, shop, product)).toEqual({ points: 0, type: null, id: null });
    }

    const rule = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "product",
      targetId: 5,
      rate: 3,
    });
    for (const server of [app, other]) {
      expect(await calculate(server, shop, product)).toEqual({
        points: 30,
        type: "product",
        id: rule.id,
      });
    }

    await ok("PATCH", `${rulesOf(shop)}/${rule.id}`, { pointsPerItem: 4 });
    expect(await calculate(other, shop, product)).toMatchObject({ points: 34 });

    const category = await ok<AttributionRule>("POST", rulesOf(shop), {
      kind: "category",
      targetId: 3,
      rate: 1,
    });
    await ok("DELETE", `${rulesOf(shop)}/${rule.id}`);
    expect(await calculate(other, shop, product)).toEqual({
      points: 10,
      type: "category",
      id: category.id,
    });

    await ok("PATCH", `${rulesOf(shop)}/${category.id}`, { active: false });
    expect(await calculate(other, shop, product)).toEqual({ points: 0, type: null, id: null });
  });
});

describe("clubs", () => {
  it("creates, lists by threshold, changes and deletes a store's clubs", async () => {
    const shop = await newStore();
    const created = await send("POST", clubsOf(shop), { name: "Bronze", threshold: 0 });
    expect(created.status).toBe(201);
    const bronze = clubSchema.parse(created.body);
    expect(bronze).toMatchObject({ name: "Bronze", threshold: 0, multiplier: 1 });
    const gold = await ok<Club>("POST", clubsOf(shop), {
      name: "Gold",
      threshold: 2000,
      multiplier: 1.5,
    });
    const silver = await ok<Club>("POST", clubsOf(shop), {
      name: "Silver",
      threshold: 500,
      multiplier: 1.25,
    });
    expect(await listed(clubsOf(shop))).toEqual([bronze, silver, gold]);

    const changed = await send("PATCH", `${clubsOf(shop)}/${silver.id}`, {
      name: "Silver+",
      threshold: 2500,
    });
    expect(changed.status).toBe(200);
    const moved = clubSchema.parse(changed.body);
    expect(moved).toMatchObject({ id: silver.id, name: "Silver+", threshold: 2500 });
    expect(moved.multiplier).toBe(1.25);

    expect(await send("DELETE", `${clubsOf(shop)}/${gold.id}`)).toMatchObject({ status: 204 });
    expect(await listed(clubsOf(shop))).toEqual([bronze, moved]);
    expectReason(await send("DELETE", `${clubsOf(shop)}/${gold.id}`), 404, "not-found");
    expectReason(
      await send("PATCH", `${clubsOf(shop)}/${gold.id}`, { name: "Back" }),
      404,
      "not-found",
    );
  });

  it("keeps one club per threshold, naming the field, and changes nothing when refused", async () => {
    const shop = await newStore();
    const bronze = await ok<Club>("POST", clubsOf(shop), { name: "Bronze", threshold: 0 });
    const silver = await ok<Club>("POST", clubsOf(shop), { name: "Silver", threshold: 500 });
    const taken = await send("POST", clubsOf(shop), { name: "Copper", threshold: 0 });
    expectInvalid(taken, ["/threshold"]);
    expectInvalid(
      await send("PATCH", `${clubsOf(shop)}/${silver.id}`, { name: "Renamed", threshold: 0 }),
      ["/threshold"],
    );
    expect(await listed(clubsOf(shop))).toEqual([bronze, silver]);

    // Another store's thresholds are its own.
    const elsewhere = await newStore();
    const theirs = await send("POST", clubsOf(elsewhere), { name: "Bronze", threshold: 0 });
    expect(theirs.status).toBe(201);
  });

  it("names the fields of a malformed club, and keeps the clubs as they were", async () => {
    const shop = await newStore();
    const bronze = await ok<Club>("POST", clubsOf(shop), { name: "Bronze", threshold: 0 });
    const path = `${clubsOf(shop)}/${bronze.id}`;
    expectInvalid(await send("POST", clubsOf(shop), {}), ["/name", "/threshold"]);
    expectInvalid(
      await send("POST", clubsOf(shop), { name: " ", threshold: -1, multiplier: 101 }),
      ["/name", "/threshold", "/multiplier"],
    );
    expectInvalid(await send("POST", clubsOf(shop), { name: "Half", threshold: 0.5 }), [
      "/threshold",
    ]);
    expectInvalid(await send("PATCH", path, { multiplier: "2" }), ["/multiplier"]);
    expectInvalid(await send("PATCH", path, { name: "" }), ["/name"]);
    expect((await send("PATCH", path, { id: 5, multiplier: 3 })).status).toBe(400);
    expect(await listed(clubsOf(shop))).toEqual([bronze]);
  });

  it("answers not-found for another store's club, and leaves that club alone", async () => {
    const shop = await newStore();
    const elsewhere = await newStore();
    await ok("POST", clubsOf(shop), { name: "Bronze", threshold: 0 });
    const theirs = await ok<Club>("POST", clubsOf(elsewhere), { name: "Gold", threshold: 100 });
    const path = `${clubsOf(shop)}/${theirs.id}`;
    // Not-found even with a threshold this store already has: the club is not this store's.
    expectReason(await send("PATCH", path, { threshold: 0 }), 404, "not-found");
    expectReason(await send("PATCH", path, { name: "Mine" }), 404, "not-found");
    expectReason(await send("DELETE", path), 404, "not-found");
    expect(await listed(clubsOf(elsewhere))).toEqual([theirs]);
  });
});

const FIVE_OFF = {
  kind: "fixed_amount",
  value: 5,
  currency: "EUR",
  minimumOrderAmount: 30,
  validityDays: 60,
} as const;

const TEN_PERCENT = {
  kind: "percentage",
  value: 10,
  currency: null,
  minimumOrderAmount: null,
  validityDays: 30,
  usageLimit: 100,
} as const;

async function newReward(s: Store, fields: Record<string, unknown> = {}): Promise<AdminReward> {
  return ok<AdminReward>("POST", rewardsOf(s), {
    name: "€5 off",
    triggerValue: 500,
    voucher: FIVE_OFF,
    ...fields,
  });
}

/** How many versions the reward's voucher has had, and the current one's number. */
async function versionsOf(rewardId: number) {
  const { rows } = await app.context.pool.query<{ versions: number; current: number }>(
    `SELECT count(*)::int AS versions,
            max(version) FILTER (WHERE superseded_at IS NULL) AS current
     FROM voucher_versions WHERE reward_id = $1`,
    [rewardId],
  );
  return rows[0];
}

describe("rewards", () => {
  it("creates a reward with version 1 of its voucher, listed on the storefront", async () => {
    const shop = await newStore();
    const created = await send("POST", rewardsOf(shop), {
      name: "€5 off",
      description: "On orders of €30 or more.",
      imageUrl: "https://cdn.example/five.png",
      triggerValue: 500,
      voucher: FIVE_OFF,
    });
    expect(created.status).toBe(201);
    const reward = adminRewardSchema.parse(created.body);
    expect(reward).toMatchObject({
      name: "€5 off",
      description: "On orders of €30 or more.",
      imageUrl: "https://cdn.example/five.png",
      triggerValue: 500,
      active: true,
      voucher: { ...FIVE_OFF, version: 1, usageLimit: null, codesIssued: 0 },
    });
    const plain = await newReward(shop, {
      name: "Free shipping",
      triggerValue: 300,
      voucher: {
        kind: "free_shipping",
        value: null,
        currency: null,
        minimumOrderAmount: null,
        validityDays: null,
        usageLimit: 50,
      },
    });
    expect(plain).toMatchObject({ description: null, imageUrl: null, active: true });

    const fetched = await send("GET", `${rewardsOf(shop)}/${reward.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(reward);
    expect(await listed(rewardsOf(shop))).toEqual([plain, reward]);
    expect((await storefrontRewards(app, shop)).map((listedReward) => listedReward.id)).toEqual([
      plain.id,
      reward.id,
    ]);
  });

  it("names the fields of a malformed reward, and creates nothing", async () => {
    const shop = await newStore();
    expectInvalid(await send("POST", rewardsOf(shop), {}), ["/name", "/triggerValue", "/voucher"]);
    expectInvalid(
      await send("POST", rewardsOf(shop), {
        name: "Too much",
        triggerValue: 0,
        imageUrl: "ftp://cdn.example/a.png",
        voucher: { ...FIVE_OFF, kind: "percentage", value: 150, validityDays: 0 },
      }),
      [
        "/triggerValue",
        "/imageUrl",
        "/voucher/value",
        "/voucher/currency",
        "/voucher/validityDays",
      ],
    );
    expectInvalid(
      await send("POST", rewardsOf(shop), {
        name: "No currency",
        triggerValue: 10,
        voucher: { ...FIVE_OFF, currency: null, usageLimit: 0 },
      }),
      ["/voucher/currency", "/voucher/usageLimit"],
    );
    expect(await listed(rewardsOf(shop))).toEqual([]);
  });

  it("changes the reward's own fields without a new voucher version", async () => {
    const shop = await newStore();
    const reward = await newReward(shop);
    const changed = await send("PATCH", `${rewardsOf(shop)}/${reward.id}`, {
      name: "Five euros off",
      description: "Any order.",
      imageUrl: "https://cdn.example/5.png",
      triggerValue: 450,
    });
    expect(changed.status).toBe(200);
    expect(adminRewardSchema.parse(changed.body)).toMatchObject({
      id: reward.id,
      name: "Five euros off",
      description: "Any order.",
      imageUrl: "https://cdn.example/5.png",
      triggerValue: 450,
      voucher: reward.voucher,
    });
    expect(await storefrontRewards(app, shop)).toEqual([
      expect.objectContaining({
        name: "Five euros off",
        triggerValue: 450,
        voucher: expect.objectContaining({ version: 1 }),
      }),
    ]);
    const cleared = await ok<AdminReward>("PATCH", `${rewardsOf(shop)}/${reward.id}`, {
      description: null,
      imageUrl: null,
    });
    expect(cleared).toMatchObject({ description: null, imageUrl: null, name: "Five euros off" });
    expect(await versionsOf(reward.id)).toEqual({ versions: 1, current: 1 });
  });

  it("makes a new voucher version on an edit: issued codes stay with the old one", async () => {
    const shop = await newStore();
    const reward = await newReward(shop);
    await customerWithPoints(app.context.pool, shop.store.id, 7, 2000, "ann@example.com");
    expect((await claim(app, shop, 7, reward.id)).status).toBe(201);
    const before = await ok<AdminReward>("GET", `${rewardsOf(shop)}/${reward.id}`);
    expect(before.voucher).toMatchObject({ version: 1, codesIssued: 1 });

    const edited = await send("PATCH", `${rewardsOf(shop)}/${reward.id}`, {
      voucher: TEN_PERCENT,
    });
    expect(edited.status).toBe(200);
    expect(adminRewardSchema.parse(edited.body)).toMatchObject({
      active: true,
      voucher: { ...TEN_PERCENT, version: 2, codesIssued: 0 },
    });
    expect(await versionsOf(reward.id)).toEqual({ versions: 2, current: 2 });
    const { rows } = await app.context.pool.query<{ version: number }>(
      `SELECT v.version FROM reward_claims c JOIN voucher_versions v ON v.id = c.voucher_version_id
       WHERE c.reward_id = $1`,
      [reward.id],
    );
    expect(rows).toEqual([{ version: 1 }]);

    expect(await storefrontRewards(app, shop)).toEqual([
      expect.objectContaining({ id: reward.id, voucher: { ...TEN_PERCENT, version: 2 } }),
    ]);
    const second = await claim(app, shop, 7, reward.id);
    expect(second.status).toBe(201);
    expect(await second.json()).toMatchObject({ voucher: { kind: "percentage", version: 2 } });
  });

  it("deactivates a reward: off the storefront, claims refused, until it is reactivated", async () => {
    const shop = await newStore();
    const reward = await newReward(shop);
    await customerWithPoints(app.context.pool, shop.store.id, 8, 1000, "bob@example.com");

    const off = await send("PATCH", `${rewardsOf(shop)}/${reward.id}`, { active: false });
    expect(off.status).toBe(200);
    expect(adminRewardSchema.parse(off.body)).toMatchObject({
      active: false,
      voucher: { version: 1 },
    });
    expect(await storefrontRewards(app, shop)).toEqual([]);
    expect(await listed(rewardsOf(shop))).toEqual([off.body]);
    const refused = await claim(app, shop, 8, reward.id);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ code: null, reason: "voucher-inactive" });
    expect(await pointsOf(app.context.pool, shop.store.id, 8)).toMatchObject({ balance: 1000 });

    // A new voucher for a withdrawn reward stays withdrawn until it is reactivated.
    const edited = await ok<AdminReward>("PATCH", `${rewardsOf(shop)}/${reward.id}`, {
      voucher: TEN_PERCENT,
    });
    expect(edited).toMatchObject({ active: false, voucher: { version: 2 } });
    expect(await storefrontRewards(app, shop)).toEqual([]);

    const on = await ok<AdminReward>("PATCH", `${rewardsOf(shop)}/${reward.id}`, { active: true });
    expect(on).toMatchObject({ active: true, voucher: { version: 2 } });
    expect((await storefrontRewards(app, shop)).map((listedReward) => listedReward.id)).toEqual([
      reward.id,
    ]);
    expect((await claim(app, shop, 8, reward.id)).status).toBe(201);

    // A voucher and an activity in one edit: the new version takes the activity given.
    const both = await ok<AdminReward>("PATCH", `${rewardsOf(shop)}/${reward.id}`, {
      active: false,
      voucher: FIVE_OFF,
    });
    expect(both).toMatchObject({ active: false, voucher: { version: 3, codesIssued: 0 } });
    expect(await storefrontRewards(app, shop)).toEqual([]);
  });

  it("names the fields of a malformed edit, and changes nothing", async () => {
    const shop = await newStore();
    const reward = await newReward(shop);
    const path = `${rewardsOf(shop)}/${reward.id}`;
    expectInvalid(
      await send("PATCH", path, {
        name: "Renamed",
        voucher: { ...FIVE_OFF, kind: "free_shipping", currency: null },
      }),
      ["/voucher/value"],
    );
    expectInvalid(await send("PATCH", path, { triggerValue: -5, active: "no" }), [
      "/triggerValue",
      "/active",
    ]);
    expectInvalid(await send("PATCH", path, { name: "" }), ["/name"]);
    expect((await send("PATCH", path, { name: "Renamed", store_id: 2 })).status).toBe(400);
    expect(await send("GET", path)).toMatchObject({ status: 200, body: reward });
    expect(await versionsOf(reward.id)).toEqual({ versions: 1, current: 1 });
  });

  it("answers not-found for another store's reward, and leaves that reward alone", async () => {
    const shop = await newStore();
    const elsewhere = await newStore();
    const theirs = await newReward(elsewhere);
    const path = `${rewardsOf(shop)}/${theirs.id}`;
    expectReason(await send("GET", path), 404, "not-found");
    expectReason(await send("PATCH", path, { active: false, name: "Mine" }), 404, "not-found");
    expectReason(await send("PATCH", path, { voucher: TEN_PERCENT }), 404, "not-found");
    expectReason(await send("GET", `${rewardsOf(shop)}/0`), 404, "not-found");
    expect(await listed(rewardsOf(elsewhere))).toEqual([theirs]);
    expect(await versionsOf(theirs.id)).toEqual({ versions: 1, current: 1 });
  });

  it("takes a voucher edit and a withdrawal off every process's list as soon as it answers", async () => {
    const shop = await newStore();
    const reward = await newReward(shop);
    await customerWithPoints(other.context.pool, shop.store.id, 9, 1000, "cy@example.com");
    // Process B holds the store's list in memory.
    expect(await storefrontRewards(other, shop)).toEqual([
      expect.objectContaining({
        id: reward.id,
        voucher: { ...FIVE_OFF, usageLimit: null, version: 1 },
      }),
    ]);

    await ok("PATCH", `${rewardsOf(shop)}/${reward.id}`, { voucher: TEN_PERCENT });
    expect(await storefrontRewards(other, shop)).toEqual([
      expect.objectContaining({ id: reward.id, voucher: { ...TEN_PERCENT, version: 2 } }),
    ]);

    await ok("PATCH", `${rewardsOf(shop)}/${reward.id}`, { active: false });
    expect(await storefrontRewards(other, shop)).toEqual([]);
    const refused = await claim(other, shop, 9, reward.id);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ code: null, reason: "voucher-inactive" });

    await ok("PATCH", `${rewardsOf(shop)}/${reward.id}`, { active: true });
    const added = await newReward(shop, { name: "Cheap", triggerValue: 10 });
    expect((await storefrontRewards(other, shop)).map((listedReward) => listedReward.id)).toEqual([
      added.id,
      reward.id,
    ]);
  });
});

describe("store scope", () => {
  it("refuses a store's token on every operation of another store, which stays as it was", async () => {
    const mine = await newStore();
    const theirs = await newStore();
    const rule = await ok<AttributionRule>("POST", rulesOf(theirs), { kind: "default", rate: 1 });
    const club = await ok<Club>("POST", clubsOf(theirs), { name: "Bronze", threshold: 0 });
    const reward = await newReward(theirs);
    const snapshot = async () => ({
      rules: await listed(rulesOf(theirs)),
      clubs: await listed(clubsOf(theirs)),
      rewards: await listed(rewardsOf(theirs)),
    });
    const before = await snapshot();

    const storeAdmin = await adminSession(app, { storeReference: mine.store.reference });
    const attempts: [string, string, unknown?][] = [
      ["GET", rulesOf(theirs)],
      ["POST", rulesOf(theirs), { kind: "product", targetId: 1, rate: 1 }],
      ["PATCH", `${rulesOf(theirs)}/${rule.id}`, { rate: 50 }],
      ["DELETE", `${rulesOf(theirs)}/${rule.id}`],
      ["GET", clubsOf(theirs)],
      ["POST", clubsOf(theirs), { name: "Gold", threshold: 100 }],
      ["PATCH", `${clubsOf(theirs)}/${club.id}`, { multiplier: 9 }],
      ["DELETE", `${clubsOf(theirs)}/${club.id}`],
      ["GET", rewardsOf(theirs)],
      ["POST", rewardsOf(theirs), { name: "Free", triggerValue: 1, voucher: FIVE_OFF }],
      ["GET", `${rewardsOf(theirs)}/${reward.id}`],
      ["PATCH", `${rewardsOf(theirs)}/${reward.id}`, { active: false }],
    ];
    for (const [method, path, body] of attempts) {
      expectReason(await send(method, path, body, storeAdmin), 403, "forbidden");
    }
    expect(await snapshot()).toEqual(before);

    // The same token does all of it on its own store.
    const own = await send("POST", rulesOf(mine), { kind: "default", rate: 1 }, storeAdmin);
    expect(own.status).toBe(201);
    expect((await send("GET", clubsOf(mine), undefined, storeAdmin)).status).toBe(200);
    expect((await send("GET", rewardsOf(mine), undefined, storeAdmin)).status).toBe(200);
  });
});
