import {
  recordActivityResponseSchema,
  type ProgramSettingsInput,
  type RecordActivityRequest,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { pointsOf } from "./support/fixtures.js";
import { CUSTOMER, programme, type Shop } from "./support/programme.js";

const NOW = new Date("2026-10-05T12:00:00.000Z");
const RULES: ProgramSettingsInput = {
  activities: [
    { kind: "signup", points: 100 },
    { kind: "review", points: 50, limit: { count: 2, period: "month" } },
    // A birthday is once a year whatever the store writes.
    { kind: "birthday", points: 200, limit: { count: 5, period: "day" } },
    { kind: "photo_review", label: "Photo review", points: 80 },
  ],
};

let app: TestApp;
let admin: AdminSession;
let flows: ReturnType<typeof programme>;

beforeAll(async () => {
  app = await startTestApp();
  admin = await adminSession(app);
  flows = programme(app, admin);
});
afterAll(() => app.close());
beforeEach(() => app.setNow(NOW));

function send(
  s: Shop,
  activity: Partial<RecordActivityRequest> & { activityId: string },
  headers: Record<string, string> = { authorization: s.authorization, revision: "2026-08-26" },
) {
  return fetch(`${app.baseUrl}/api/activity`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ kind: "signup", customer: { externalId: CUSTOMER }, ...activity }),
  });
}

async function record(s: Shop, activity: Partial<RecordActivityRequest> & { activityId: string }) {
  const response = await send(s, activity);
  expect(response.status).toBe(201);
  return recordActivityResponseSchema.parse(await response.json());
}

async function count(sql: string, values: unknown[]): Promise<number> {
  const { rows } = await app.context.pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

describe("POST /api/activity", () => {
  it("credits nothing for a kind the store does not reward, and says so", async () => {
    const s = await flows.shop(undefined);
    const first = await record(s, { activityId: "signup-42" });
    expect(first).toEqual({
      activityId: "signup-42",
      kind: "signup",
      outcome: "not-rewarded",
      points: 0,
      balance: 0,
      recordedAt: NOW.toISOString(),
    });
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({ entries: 0 });
  });

  it("credits each kind as the store's rule says, within its limit per period", async () => {
    const s = await flows.shop(RULES);
    expect(await record(s, { activityId: "signup-42" })).toMatchObject({
      outcome: "credited",
      points: 100,
      balance: 100,
    });
    // A sign-up is once, whatever its id.
    expect(await record(s, { activityId: "signup-42-again" })).toMatchObject({
      outcome: "limit-reached",
      points: 0,
      balance: 100,
    });
    const reviews = [];
    for (const id of ["r1", "r2", "r3"]) {
      reviews.push((await record(s, { activityId: id, kind: "review" })).outcome);
    }
    expect(reviews).toEqual(["credited", "credited", "limit-reached"]);
    app.setNow(new Date("2026-11-01T00:00:00.000Z"));
    expect((await record(s, { activityId: "r4", kind: "review" })).outcome).toBe("credited");

    expect((await record(s, { activityId: "bd-2026", kind: "birthday" })).outcome).toBe("credited");
    expect((await record(s, { activityId: "bd-2026-b", kind: "birthday" })).outcome).toBe(
      "limit-reached",
    );
    app.setNow(new Date("2027-01-02T00:00:00.000Z"));
    expect((await record(s, { activityId: "bd-2027", kind: "birthday" })).outcome).toBe("credited");
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({
      balance: 100 + 3 * 50 + 2 * 200,
      ledger: 100 + 3 * 50 + 2 * 200,
    });
  });

  it("names the activity in the history and in POINTS_EARNED", async () => {
    const s = await flows.shop(RULES);
    await record(s, {
      activityId: "photo-9",
      kind: "photo_review",
      customer: { externalId: CUSTOMER, email: "ada@example.com" },
    });
    const [transaction] = (await flows.history(s)).transactions;
    expect(transaction).toMatchObject({
      kind: "activity_bonus",
      points: 80,
      order: null,
      activity: { id: "photo-9", kind: "photo_review", label: "Photo review" },
    });
    expect(await flows.events(s, "POINTS_EARNED")).toEqual([
      {
        order: null,
        activity: { id: "photo-9", kind: "photo_review" },
        customer: { externalId: CUSTOMER },
        points: 80,
        balance: 80,
      },
    ]);
  });

  it("credits an activity once however often and concurrently it is sent", async () => {
    const s = await flows.shop(RULES);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => record(s, { activityId: "photo-1", kind: "photo_review" })),
    );
    expect(new Set(answers.map((answer) => `${answer.outcome} ${answer.points}`))).toEqual(
      new Set(["credited 80"]),
    );
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({
      balance: 80,
      entries: 1,
    });
    // Different activities racing for a limit of two a month: two are credited.
    const reviews = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        record(s, { activityId: `review-${index}`, kind: "review" }),
      ),
    );
    expect(reviews.filter((answer) => answer.outcome === "credited")).toHaveLength(2);
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({
      balance: 80 + 2 * 50,
      entries: 3,
    });
    expect(await flows.events(s, "POINTS_EARNED")).toHaveLength(3);
  });

  it("refuses an activityId already sent for another customer, and credits that one nothing", async () => {
    const s = await flows.shop(RULES);
    await record(s, { activityId: "photo-7", kind: "photo_review" });
    const other = await send(s, {
      activityId: "photo-7",
      kind: "photo_review",
      customer: { externalId: CUSTOMER + 1 },
    });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({
      errors: [expect.objectContaining({ pointer: "/activityId" })],
    });
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER + 1)).toBeUndefined();
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({ balance: 80 });
  });

  it("refuses without the store's key, and a malformed activity, in the revision's format, writing nothing", async () => {
    const s = await flows.shop(RULES);
    const unauthorized = await send(s, { activityId: "a" }, { revision: "2026-08-26" });
    expect(unauthorized.status).toBe(401);
    const legacy = await send(
      s,
      { activityId: "a", kind: "Not A Kind" },
      { authorization: s.authorization },
    );
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toMatchObject({ statusCode: 400, error: "Bad Request" });
    const latest = await send(s, { activityId: "" });
    expect(latest.status).toBe(400);
    expect(latest.headers.get("content-type")).toContain("application/problem+json");
    expect(await latest.json()).toMatchObject({
      type: expect.stringMatching(/\/validation-failed$/),
      errors: [expect.objectContaining({ pointer: "/activityId" })],
    });
    expect(
      await count(`SELECT count(*)::int AS n FROM activities WHERE store_id = $1`, [s.store.id]),
    ).toBe(0);
  });
});
