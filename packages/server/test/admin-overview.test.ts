import { randomBytes } from "node:crypto";
import {
  adminRewardSchema,
  claimRewardResponseSchema,
  problemSchema,
  programOverviewSchema,
  type CreateRewardRequest,
  type ProgramOverview,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import {
  addRule,
  customerWithPoints,
  hashFor,
  pointsOf,
  storeWithKey,
} from "./support/fixtures.js";
import { startSmtpServer, type TestSmtpServer } from "./support/smtp.js";

const LATEST = { revision: "2026-08-26" };
const DAY_MS = 86_400_000;

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

let database: TestDatabase;
let app: TestApp;
let smtp: TestSmtpServer;
/** An admin of the whole service. */
let service: AdminSession;

beforeAll(async () => {
  // The database's sessions live 14 hours ahead of UTC: a day cut in the session's time zone
  // instead of UTC shows in every daily figure.
  database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(
    `ALTER DATABASE "${new URL(database.url).pathname.slice(1)}" SET timezone TO 'Pacific/Kiritimati'`,
  );
  await client.end();
  // Referral invitations go out through a real (local) SMTP server rather than to files.
  smtp = await startSmtpServer();
  app = await startTestApp({ workers: true, database, env: { SMTP_URL: smtp.url } });
  service = await adminSession(app);
});
afterAll(async () => {
  await app.close();
  await smtp.close();
  await database.drop();
});

function isoDate(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

async function shop(): Promise<Shop> {
  const created = await storeWithKey(app, `https://shop-${randomBytes(4).toString("hex")}.example`);
  await addRule(app.context.pool, created.store.id, { kind: "default", rate: 1 });
  return created;
}

async function sql<T extends object = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await app.context.pool.query<T & Record<string, unknown>>(text, values)).rows;
}

async function overview(
  storeId: number,
  query: Record<string, string> = {},
  session: AdminSession = service,
): Promise<ProgramOverview> {
  const response = await session.request("GET", overviewPath(storeId, query));
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return programOverviewSchema.parse(await response.json());
}

function overviewPath(storeId: number | string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `/admin/stores/${storeId}/overview${search ? `?${search}` : ""}`;
}

async function expectProblem(response: Response, status: number, reason: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(await response.json());
  expect(problem.type).toMatch(new RegExp(`/${reason}$`));
  return problem;
}

async function createReward(storeId: number, reward: CreateRewardRequest): Promise<number> {
  const response = await service.request("POST", `/admin/stores/${storeId}/rewards`, reward);
  expect(response.status).toBe(201);
  return adminRewardSchema.parse(await response.json()).id;
}

function fixedAmount(value: number, currency = "EUR") {
  return { kind: "fixed_amount" as const, value, currency, validityDays: 30 };
}

async function registerOrder(s: Shop, externalId: number, customer: object, amount: number) {
  const response = await fetch(`${app.baseUrl}/api/order/register`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: s.authorization, ...LATEST },
    body: JSON.stringify({
      externalId,
      currency: "EUR",
      customer,
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: amount }],
    }),
  });
  expect(response.status).toBe(201);
  await eventually(async () =>
    (
      await sql(
        `SELECT 1 FROM orders WHERE store_id = $1 AND external_id = $2 AND status = 'processed'`,
        [s.store.id, String(externalId)],
      )
    ).length === 1
      ? true
      : undefined,
  );
}

function storefront(
  s: Shop,
  path: string,
  externalId: number,
  { query: extra = {}, ...init }: RequestInit & { query?: Record<string, string> } = {},
) {
  const query = new URLSearchParams({
    ...extra,
    domain: s.store.domain,
    hash: hashFor(s.store.reference, s.key, externalId),
  });
  return fetch(`${app.baseUrl}${path}?${query.toString()}`, {
    ...init,
    headers: { "content-type": "application/json", ...LATEST },
  });
}

async function claim(s: Shop, externalId: number, rewardId: number) {
  const response = await storefront(s, `/reward/claim/${externalId}`, externalId, {
    method: "POST",
    body: JSON.stringify({ rewardId }),
  });
  expect(response.status).toBe(201);
  claimRewardResponseSchema.parse(await response.json());
}

async function adjust(s: Shop, externalId: number, points: number) {
  const response = await service.request(
    "POST",
    `/admin/stores/${s.store.id}/customers/${externalId}/adjustments`,
    { points, reason: "Goodwill" },
  );
  expect(response.status).toBe(201);
}

/** A store's life in a day, through the API and its workers; each step's points in comments. */
async function busyShop(): Promise<{ s: Shop; voucherId: number; shippingId: number }> {
  const s = await shop();
  await app.context.services.referrals.saveProgram(s.store.id, {
    referrerBonus: 15,
    refereeVoucher: { kind: "percentage", value: 10 },
  });
  const voucherId = await createReward(s.store.id, {
    name: "5 € voucher",
    triggerValue: 20,
    voucher: fixedAmount(5),
  });
  const shippingId = await createReward(s.store.id, {
    name: "Free shipping",
    triggerValue: 10,
    voucher: { kind: "free_shipping" },
  });
  // Ada (1) invites Bob: his first order (50) brings her 15.
  await customerWithPoints(app.context.pool, s.store.id, 1, 0, "ada@example.com");
  const invited = await storefront(s, "/point/referral", 1, {
    query: { externalId: "1" },
    method: "POST",
    body: JSON.stringify({ email: "bob@example.com", firstName: "Bob" }),
  });
  expect(invited.status).toBe(201);
  await registerOrder(s, 5001, { externalId: 2, email: "bob@example.com" }, 50);
  await eventually(async () =>
    (await pointsOf(app.context.pool, s.store.id, 1))?.balance === 15 ? true : undefined,
  );
  // Carol (3) earns 30 and spends 20; then her order is refunded in full (-30): she owes 20.
  await registerOrder(s, 5002, { externalId: 3, email: "carol@example.com" }, 30);
  await claim(s, 3, voucherId);
  const refund = await fetch(`${app.baseUrl}/api/order/refund`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: s.authorization, ...LATEST },
    body: JSON.stringify({ externalId: 5002, status: "refunded" }),
  });
  expect(refund.status).toBe(201);
  await eventually(async () =>
    (await pointsOf(app.context.pool, s.store.id, 3))?.balance === -20 ? true : undefined,
  );
  // Bob spends 20 of his 50 and is given 5; Ada loses 3 of her 15.
  await claim(s, 2, voucherId);
  await adjust(s, 2, 5);
  await adjust(s, 1, -3);
  // Dan (4) earns 20, then asks to be erased.
  await registerOrder(s, 5003, { externalId: 4, email: "dan@example.com" }, 20);
  const erased = await service.request("DELETE", `/admin/stores/${s.store.id}/customers/4`);
  expect(erased.status).toBe(200);
  // A claim the platform refused: its points came back, no code was issued.
  await sql(
    `INSERT INTO reward_claims (store_id, customer_id, reward_id, voucher_version_id, points,
                                status, code, released_at)
     SELECT c.store_id, c.id, v.reward_id, v.id, 10, 'released', 'RELEASED-1', now()
     FROM customers c, voucher_versions v
     WHERE c.store_id = $1 AND c.external_id = 2 AND v.reward_id = $2`,
    [s.store.id, shippingId],
  );
  return { s, voucherId, shippingId };
}

describe("GET /admin/stores/{storeId}/overview", () => {
  let busy: Awaited<ReturnType<typeof busyShop>>;
  beforeAll(async () => {
    busy = await busyShop();
    // Another store's customer 2 buys and claims too: none of it is the first store's.
    const other = await shop();
    const otherVoucher = await createReward(other.store.id, {
      name: "Other store's voucher",
      triggerValue: 10,
      voucher: fixedAmount(50),
    });
    await registerOrder(other, 9001, { externalId: 2, email: "bob@example.com" }, 400);
    await claim(other, 2, otherVoucher);
  });

  it("answers the period's figures, a day for each of the 30 days ending today", async () => {
    const before = isoDate(Date.now());
    const figures = await overview(busy.s.store.id);
    const today = figures.period.to;
    expect([before, isoDate(Date.now())]).toContain(today);
    const from = isoDate(Date.parse(today) - 29 * DAY_MS);
    expect(figures).toEqual({
      period: { from, to: today },
      currency: "EUR",
      // Ada, Bob and Carol: Dan is erased.
      members: 3,
      activeMembers: 3,
      points: { earned: 100, bonuses: 15, redeemed: 40, deducted: 30, adjusted: 2, expired: 0 },
      redemptionRate: 0.3478,
      // Ada 12, Bob 35, Dan 20 (erased, still his to spend); Carol's -20 takes nothing off.
      outstandingPoints: 67,
      liability: { amount: 16.75, valuePerPoint: 0.25, rewardId: busy.voucherId },
      daily: expect.any(Array),
      topRewards: [{ rewardId: busy.voucherId, name: "5 € voucher", claims: 2, points: 40 }],
    });
    expect(figures.daily).toHaveLength(30);
    expect(figures.daily.map((day) => day.date)).toEqual(
      Array.from({ length: 30 }, (_, index) => isoDate(Date.parse(from) + index * DAY_MS)),
    );
    expect(figures.daily.at(-1)).toEqual({
      date: today,
      ordersCredited: 3,
      claims: 2,
      pointsEarned: 100,
      pointsRedeemed: 40,
    });
    for (const day of figures.daily.slice(0, -1)) {
      expect(day).toEqual({
        date: day.date,
        ordersCredited: 0,
        claims: 0,
        pointsEarned: 0,
        pointsRedeemed: 0,
      });
    }
  });

  it("reads the flows of the period asked only; members and balances are those of now", async () => {
    const today = isoDate(Date.now());
    const before = isoDate(Date.now() - 3 * DAY_MS);
    const past = await overview(busy.s.store.id, {
      from: isoDate(Date.now() - 5 * DAY_MS),
      to: before,
    });
    expect(past).toMatchObject({
      members: 3,
      activeMembers: 3,
      points: { earned: 0, bonuses: 0, redeemed: 0, deducted: 0, adjusted: 0, expired: 0 },
      redemptionRate: null,
      outstandingPoints: 67,
      topRewards: [],
    });
    expect(past.daily.map((day) => day.date)).toHaveLength(3);
    // A period may run past today (this month, say): the days to come are zeros.
    const ahead = await overview(busy.s.store.id, {
      from: today,
      to: isoDate(Date.now() + 2 * DAY_MS),
    });
    expect(ahead.daily.map(({ ordersCredited, claims }) => [ordersCredited, claims])).toEqual([
      [3, 2],
      [0, 0],
      [0, 0],
    ]);
    expect(ahead.points.earned).toBe(100);
  });

  it("cuts days at midnight UTC and counts members active in the last 30 days", async () => {
    const s = await shop();
    const customerId = await customerWithPoints(app.context.pool, s.store.id, 1, 0);
    const dormantId = await customerWithPoints(app.context.pool, s.store.id, 2, 0);
    // Earn entries written straight into the ledger, at instants the API cannot choose.
    const entries: [number, number, string][] = [
      [customerId, 7, "2026-03-01T23:59:59.999Z"],
      [customerId, 11, "2026-03-02T00:00:00.000Z"],
      [customerId, 13, "2026-03-03T23:59:59.999Z"],
      [customerId, 17, "2026-03-04T00:00:00.000Z"],
      [dormantId, 19, new Date(Date.now() - 31 * DAY_MS).toISOString()],
      [customerId, 23, new Date(Date.now() - 29 * DAY_MS).toISOString()],
    ];
    for (const [id, points, at] of entries) {
      await sql(
        `WITH c AS (
           UPDATE customers SET balance = balance + $2 WHERE id = $1 RETURNING store_id, balance
         )
         INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after,
                                          created_at)
         SELECT store_id, $1, 'earn', $2, balance, $3 FROM c`,
        [id, points, at],
      );
    }
    const march = await overview(s.store.id, { from: "2026-03-02", to: "2026-03-03" });
    expect(march.points.earned).toBe(24);
    expect(march.daily).toEqual([
      { date: "2026-03-02", ordersCredited: 1, claims: 0, pointsEarned: 11, pointsRedeemed: 0 },
      { date: "2026-03-03", ordersCredited: 1, claims: 0, pointsEarned: 13, pointsRedeemed: 0 },
    ]);
    expect(march).toMatchObject({ members: 2, activeMembers: 1, outstandingPoints: 90 });
  });

  it("ranks the five rewards claimed most in the period, with the points they took", async () => {
    const s = await shop();
    const customerId = await customerWithPoints(app.context.pool, s.store.id, 1, 0);
    const rewards: number[] = [];
    for (let n = 1; n <= 6; n++) {
      rewards.push(
        await createReward(s.store.id, {
          name: `Reward ${n}`,
          triggerValue: 10 * n,
          voucher: fixedAmount(n),
        }),
      );
    }
    // Reward n is claimed n times today; reward 1 ten times yesterday too.
    const claims = async (rewardId: number, count: number, daysAgo: number) =>
      sql(
        `INSERT INTO reward_claims (store_id, customer_id, reward_id, voucher_version_id, points,
                                    status, code, confirmed_at, created_at)
         SELECT $1, $2, v.reward_id, v.id, r.trigger_value, 'confirmed',
                concat_ws('-', 'TOP', v.reward_id, $4::int, n), now(),
                now() - $4::int * interval '1 day'
         FROM generate_series(1, $3::int) AS n
         JOIN voucher_versions v ON v.reward_id = $5
         JOIN rewards r ON r.id = v.reward_id`,
        [s.store.id, customerId, count, daysAgo, rewardId],
      );
    for (const [index, rewardId] of rewards.entries()) await claims(rewardId, index + 1, 0);
    await claims(rewards[0] as number, 10, 1);
    const today = await overview(s.store.id, { from: isoDate(Date.now()) });
    expect(today.topRewards).toEqual(
      [6, 5, 4, 3, 2].map((n) => ({
        rewardId: rewards[n - 1],
        name: `Reward ${n}`,
        claims: n,
        points: 10 * n * n,
      })),
    );
    expect(today.daily).toEqual([expect.objectContaining({ claims: 21 })]);
    const yesterday = await overview(s.store.id, {
      from: isoDate(Date.now() - DAY_MS),
      to: isoDate(Date.now() - DAY_MS),
    });
    expect(yesterday.topRewards).toEqual([
      { rewardId: rewards[0], name: "Reward 1", claims: 10, points: 100 },
    ]);
  });

  it("serves a year of 366 days, and a store without activity with zeros", async () => {
    const s = await shop();
    const leap = await overview(s.store.id, { from: "2024-01-01", to: "2024-12-31" });
    expect(leap.daily).toHaveLength(366);
    expect(leap.daily[59]?.date).toBe("2024-02-29");
    expect(leap).toMatchObject({
      members: 0,
      activeMembers: 0,
      points: { earned: 0, bonuses: 0, redeemed: 0, deducted: 0, adjusted: 0, expired: 0 },
      redemptionRate: null,
      outstandingPoints: 0,
      liability: null,
      topRewards: [],
    });
  });

  it("refuses a period that is not one, naming the field, with validation-failed", async () => {
    const today = Date.now();
    const cases: [Record<string, string>, string][] = [
      [{ from: "2026-03-10", to: "2026-03-09" }, "/from"],
      [{ from: "2025-01-01", to: "2026-01-02" }, "/from"],
      [{ from: "2026-02-30", to: "2026-03-09" }, "/from"],
      [{ from: "2026-3-1" }, "/from"],
      [{ to: "yesterday" }, "/to"],
      [{ to: "2026-03-09T00:00:00Z" }, "/to"],
      // Without `to`, it is today.
      [{ from: isoDate(today + 2 * DAY_MS) }, "/from"],
      [{ from: isoDate(today - 366 * DAY_MS) }, "/from"],
    ];
    for (const [query, pointer] of cases) {
      const problem = await expectProblem(
        await service.request("GET", overviewPath(busy.s.store.id, query)),
        400,
        "validation-failed",
      );
      expect(problem.errors?.map((issue) => [issue.location, issue.pointer])).toEqual([
        ["query", pointer],
      ]);
    }
    // The longest period allowed without `to`: 366 days ending today.
    const year = await overview(busy.s.store.id, { from: isoDate(today - 365 * DAY_MS) });
    expect(year.daily).toHaveLength(366);
  });

  it("is the store's own: another store's token is forbidden, an unknown store not found", async () => {
    const own = await adminSession(app, { storeReference: busy.s.store.reference });
    expect((await overview(busy.s.store.id, {}, own)).members).toBe(3);
    const other = await shop();
    await expectProblem(await own.request("GET", overviewPath(other.store.id)), 403, "forbidden");
    await expectProblem(await service.request("GET", overviewPath(999_999_999)), 404, "not-found");
    await expectProblem(
      await fetch(`${app.baseUrl}${overviewPath(busy.s.store.id)}`, { headers: LATEST }),
      401,
      "unauthorized",
    );
  });
});

describe("liability", () => {
  async function withBalance(points: number): Promise<Shop> {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 1, points);
    return s;
  }

  it("is null without an active fixed-amount reward", async () => {
    const s = await withBalance(1_000);
    await createReward(s.store.id, {
      name: "10 % off",
      triggerValue: 100,
      voucher: { kind: "percentage", value: 10 },
    });
    await createReward(s.store.id, {
      name: "Free shipping",
      triggerValue: 50,
      voucher: { kind: "free_shipping" },
    });
    await createReward(s.store.id, {
      name: "Retired 5 €",
      triggerValue: 100,
      active: false,
      voucher: fixedAmount(5),
    });
    const figures = await overview(s.store.id);
    expect(figures.outstandingPoints).toBe(1_000);
    expect(figures.liability).toBeNull();
  });

  it("values the points at the best current fixed amount per point of the active rewards", async () => {
    const s = await withBalance(1_100);
    // The best of all while it has a code left to issue.
    const once = await createReward(s.store.id, {
      name: "20 €, once",
      triggerValue: 100,
      voucher: { ...fixedAmount(20), usageLimit: 1 },
    });
    expect((await overview(s.store.id)).liability).toEqual({
      amount: 220,
      valuePerPoint: 0.2,
      rewardId: once,
    });
    await claim(s, 1, once);
    await createReward(s.store.id, {
      name: "5 €",
      triggerValue: 500,
      voucher: fixedAmount(5),
    });
    const best = await createReward(s.store.id, {
      name: "10 €",
      triggerValue: 800,
      voucher: fixedAmount(10),
    });
    // Better per point, but inactive; in another currency; and no longer a fixed amount.
    await createReward(s.store.id, {
      name: "Retired 50 €",
      triggerValue: 1_000,
      active: false,
      voucher: fixedAmount(50),
    });
    await createReward(s.store.id, {
      name: "100 $",
      triggerValue: 100,
      voucher: fixedAmount(100, "USD"),
    });
    const changed = await createReward(s.store.id, {
      name: "Was 40 €",
      triggerValue: 100,
      voucher: fixedAmount(40),
    });
    const edited = await service.request(
      "PATCH",
      `/admin/stores/${s.store.id}/rewards/${changed}`,
      { voucher: { kind: "percentage", value: 15 } },
    );
    expect(edited.status).toBe(200);

    expect((await overview(s.store.id)).liability).toEqual({
      amount: 12.5,
      valuePerPoint: 0.0125,
      rewardId: best,
    });
    // Deactivating the best one falls back to the next.
    const deactivated = await service.request(
      "PATCH",
      `/admin/stores/${s.store.id}/rewards/${best}`,
      { active: false },
    );
    expect(deactivated.status).toBe(200);
    expect((await overview(s.store.id)).liability).toEqual({
      amount: 10,
      valuePerPoint: 0.01,
      rewardId: expect.any(Number),
    });
  });
});
