import type { ProgramSettingsInput } from "@loyalty/shared-types";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addClub } from "./support/fixtures.js";
import { DAY, programme, type Shop } from "./support/programme.js";

// Clubs are measured by the service's clock, which these tests move (as libfaketime would).
// Dates stay before 2028-08-26, when the revision the storefront flows speak is retired.
const T0 = new Date("2026-12-01T10:00:00.000Z");
const at = (iso: string) => new Date(iso);

let app: TestApp;
let admin: AdminSession;
let flows: ReturnType<typeof programme>;

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  admin = await adminSession(app);
  flows = programme(app, admin);
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => app.setNow(T0));

/** A shop (1 point per unit spent) with Silver at 200 and Gold at 500 (×2). */
async function clubShop(settings?: ProgramSettingsInput) {
  const s = await flows.shop(settings);
  const silver = await addClub(app.context.pool, s.store.id, {
    name: "Silver",
    threshold: 200,
    multiplier: 1,
  });
  const gold = await addClub(app.context.pool, s.store.id, {
    name: "Gold",
    threshold: 500,
    multiplier: 2,
  });
  return { s, silver, gold };
}

/** The CLUB_CHANGED events of the shop, as (from → to) names. */
async function changes(s: Shop) {
  return (await flows.events(s, "CLUB_CHANGED")).map(
    (event) => `${event.previousClub?.name ?? "none"} → ${event.club?.name ?? "none"}`,
  );
}

/** The customer's club as the last review stored it. */
async function stored(s: Shop) {
  const { rows } = await app.context.pool.query<{
    club: string | null;
    keptUntil: Date | null;
    reviewAt: Date | null;
  }>(
    `SELECT cl.name AS club, c.club_kept_until AS "keptUntil", c.club_review_at AS "reviewAt"
     FROM customers c LEFT JOIN clubs cl ON cl.id = c.club_id
     WHERE c.store_id = $1 AND c.external_id = 42`,
    [s.store.id],
  );
  const row = rows[0];
  return {
    club: row?.club ?? null,
    keptUntil: row?.keptUntil?.toISOString() ?? null,
    reviewAt: row?.reviewAt?.toISOString() ?? null,
  };
}

/** Moves the clock and runs the review job as its schedule would. */
async function reviewAt(date: Date) {
  app.setNow(date);
  await flows.runJob("review-clubs");
}

describe("the spec's policy (the default): points over the rolling 12 months", () => {
  it("sends CLUB_CHANGED when an order reaches a club, a refund leaves it, and the year rolls on", async () => {
    const { s, silver } = await clubShop();
    await flows.earn(s, 1, 150, T0);
    expect(await changes(s)).toEqual([]);
    await flows.earn(s, 2, 100, T0);
    expect(await changes(s)).toEqual(["none → Silver"]);
    const [reached] = await flows.events(s, "CLUB_CHANGED");
    expect(reached).toEqual({
      customer: { externalId: 42 },
      club: { id: silver, name: "Silver", threshold: 200, multiplier: 1 },
      previousClub: null,
      figure: 250,
      basis: "points-earned",
      period: "rolling-12-months",
      keptUntil: null,
    });
    expect((await flows.history(s)).clubQualification).toEqual({
      basis: "points-earned",
      period: "rolling-12-months",
      downgrade: "immediately",
      figure: 250,
      periodStart: "2025-12-01T10:00:00.000Z",
      keptUntil: null,
    });

    // Refunded below the threshold: the club goes at once.
    await flows.refund(s, 2, { status: "refunded" });
    expect(await changes(s)).toEqual(["none → Silver", "Silver → none"]);
    app.setNow(at("2027-03-01T10:00:00.000Z"));
    await flows.earn(s, 3, 300, at("2027-03-01T10:00:00.000Z"));
    expect(await changes(s)).toEqual(["none → Silver", "Silver → none", "none → Silver"]);

    // Stored: Silver, reviewed when the first order's points leave the period.
    expect(await stored(s)).toEqual({
      club: "Silver",
      keptUntil: null,
      reviewAt: "2027-12-01T10:00:00.000Z",
    });
    // A year after the first order its points leave the period: still 300, still Silver, and
    // the next review is a year after the last order.
    await reviewAt(new Date(T0.getTime() + 366 * DAY));
    expect((await flows.history(s)).club?.name).toBe("Silver");
    expect(await changes(s)).toHaveLength(3);
    expect(await stored(s)).toMatchObject({ reviewAt: "2028-03-01T10:00:00.000Z" });
    // A year after the last one, nothing is left.
    await reviewAt(at("2028-03-02T10:00:00.000Z"));
    const history = await flows.history(s);
    expect(history).toMatchObject({ club: null, earnedLast12Months: 0 });
    expect(await changes(s)).toEqual([
      "none → Silver",
      "Silver → none",
      "none → Silver",
      "Silver → none",
    ]);
  });
});

describe("amount spent", () => {
  it("counts what was paid less refunds, whatever the points, and names the amount to spend", async () => {
    const { s } = await clubShop({ clubs: { basis: "amount-spent" } });
    // 1 point per unit: make points and amounts differ with a lower rate.
    await app.context.pool.query(`UPDATE attribution_rules SET rate = 0.1 WHERE store_id = $1`, [
      s.store.id,
    ]);
    await flows.earn(s, 1, 180.5, T0);
    let history = await flows.history(s);
    expect(history).toMatchObject({
      balance: 18,
      club: null,
      nextClub: { name: "Silver", pointsToReach: 20 },
      clubQualification: { basis: "amount-spent", figure: 180.5 },
    });
    await flows.earn(s, 2, 50, T0);
    history = await flows.history(s);
    expect(history.club?.name).toBe("Silver");
    expect(history.clubQualification.figure).toBe(230.5);
    expect(history.earnedLast12Months).toBe(23);
    expect(await changes(s)).toEqual(["none → Silver"]);

    // A partial refund of 40 takes the amount below 200 (and 3 of the order's 18 points).
    await flows.refund(s, 1, { status: "partially_refunded", refundedAmount: 40 });
    history = await flows.history(s);
    expect(history.clubQualification.figure).toBe(190.5);
    expect(history.balance).toBe(20);
    expect(history.club).toBeNull();
    expect(await changes(s)).toEqual(["none → Silver", "Silver → none"]);
  });
});

describe("end of period: a club reached is kept until its period ends", () => {
  it("calendar year: kept through refunds, then last year's figure holds all next year", async () => {
    const { s, gold } = await clubShop({
      clubs: { period: "calendar-year", downgrade: "end-of-period" },
    });
    await flows.earn(s, 1, 300, T0);
    await flows.earn(s, 2, 250, T0);
    expect(await changes(s)).toEqual(["none → Silver", "Silver → Gold"]);
    // Order 2 is returned: 300 points this year, below Gold, and Gold is kept to the year's end.
    await flows.refund(s, 2, { status: "refunded" });
    let history = await flows.history(s);
    expect(history.club).toMatchObject({ id: gold });
    expect(history.clubQualification).toMatchObject({
      period: "calendar-year",
      figure: 300,
      periodStart: "2026-01-01T00:00:00.000Z",
      keptUntil: "2027-01-01T00:00:00.000Z",
    });
    // Its multiplier still applies: 100 × 2.
    app.setNow(at("2026-12-05T10:00:00.000Z"));
    await flows.earn(s, 3, 100, at("2026-12-05T10:00:00.000Z"));
    expect((await flows.history(s)).balance).toBe(300 + 200);
    expect(await changes(s)).toEqual(["none → Silver", "Silver → Gold"]);

    expect(await stored(s)).toEqual({
      club: "Gold",
      keptUntil: "2027-01-01T00:00:00.000Z",
      reviewAt: "2027-01-01T00:00:00.000Z",
    });
    // 2027: reviewed on 2026's 500 points, Gold again (a 2027 figure of 0).
    await reviewAt(at("2027-01-01T00:05:00.000Z"));
    expect(await stored(s)).toEqual({
      club: "Gold",
      keptUntil: "2028-01-01T00:00:00.000Z",
      reviewAt: "2028-01-01T00:00:00.000Z",
    });
    history = await flows.history(s);
    expect(history.club).toMatchObject({ id: gold });
    expect(history.clubQualification).toMatchObject({
      figure: 0,
      keptUntil: "2028-01-01T00:00:00.000Z",
    });
    expect(await changes(s)).toEqual(["none → Silver", "Silver → Gold"]);

    // 2028: 2027 earned nothing.
    await reviewAt(at("2028-01-01T00:05:00.000Z"));
    expect((await flows.history(s)).club).toBeNull();
    expect(await changes(s)).toEqual(["none → Silver", "Silver → Gold", "Gold → none"]);
  });

  it("rolling 12 months: kept 12 months from reaching it, then reviewed on the last 12 months", async () => {
    const { s } = await clubShop({ clubs: { downgrade: "end-of-period" } });
    await flows.earn(s, 1, 250, T0);
    await flows.refund(s, 1, { status: "partially_refunded", refundedAmount: 100 });
    const history = await flows.history(s);
    expect(history.club?.name).toBe("Silver");
    expect(history.clubQualification).toMatchObject({
      figure: 150,
      keptUntil: "2027-12-01T10:00:00.000Z",
    });
    await reviewAt(at("2027-11-30T10:00:00.000Z"));
    expect((await flows.history(s)).club?.name).toBe("Silver");
    await reviewAt(at("2027-12-01T10:01:00.000Z"));
    expect((await flows.history(s)).club).toBeNull();
    const events = await flows.events(s, "CLUB_CHANGED");
    expect(events.map((event) => [event.club?.name ?? null, event.keptUntil])).toEqual([
      ["Silver", "2027-12-01T10:00:00.000Z"],
      [null, null],
    ]);
  });

  it("lifetime: refused, since a lifetime never ends (a refunded order would buy a club for ever)", async () => {
    const { s } = await clubShop();
    const refused = await admin.request("PUT", `/admin/stores/${s.store.id}/program-settings`, {
      clubs: { period: "lifetime", downgrade: "end-of-period" },
    });
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as { errors: { pointer: string }[] };
    expect(problem.errors.map((error) => error.pointer)).toEqual(["/clubs/downgrade"]);
  });
});

describe("changing the policy or the clubs", () => {
  it("reviews every customer in the background and sends the changes", async () => {
    const { s } = await clubShop();
    await flows.earn(s, 1, 250, T0);
    expect(await changes(s)).toEqual(["none → Silver"]);
    // Silver now needs 300: the customer drops out once reviewed.
    const clubs = await admin.request("GET", `/admin/stores/${s.store.id}/clubs`);
    const silver = ((await clubs.json()) as { id: number; name: string }[]).find(
      (club) => club.name === "Silver",
    );
    const moved = await admin.request("PATCH", `/admin/stores/${s.store.id}/clubs/${silver?.id}`, {
      threshold: 300,
    });
    expect(moved.status).toBe(200);
    await eventually(async () => ((await changes(s)).length === 2 ? true : undefined));
    expect(await changes(s)).toEqual(["none → Silver", "Silver → none"]);

    // Counted on a lifetime instead: 250 + 100 13 months apart reach 300.
    app.setNow(at("2028-01-05T10:00:00.000Z"));
    await flows.earn(s, 2, 100, at("2028-01-05T10:00:00.000Z"));
    expect((await flows.history(s)).club).toBeNull();
    const saved = await admin.request("PUT", `/admin/stores/${s.store.id}/program-settings`, {
      clubs: { period: "lifetime" },
    });
    expect(saved.status).toBe(200);
    await eventually(async () => ((await changes(s)).length === 3 ? true : undefined));
    expect(await changes(s)).toEqual(["none → Silver", "Silver → none", "none → Silver"]);
    expect((await flows.history(s)).club?.name).toBe("Silver");
  });

  it("names a deleted club in its members' CLUB_CHANGED, as it was", async () => {
    const { s, gold } = await clubShop();
    await flows.earn(s, 1, 600, T0);
    expect(await changes(s)).toEqual(["none → Gold"]);
    expect(
      (await admin.request("DELETE", `/admin/stores/${s.store.id}/clubs/${gold}`)).status,
    ).toBe(204);
    await eventually(async () => ((await changes(s)).length === 2 ? true : undefined));
    const [, left] = await flows.events(s, "CLUB_CHANGED");
    expect(left).toMatchObject({
      club: { name: "Silver" },
      previousClub: { id: gold, name: "Gold", threshold: 500, multiplier: 2 },
      figure: 600,
    });
  });

  it("two policy changes in a row: reviewed under the last, with no change sent", async () => {
    const { s } = await clubShop();
    await flows.earn(s, 1, 250, T0);
    // Two changes in a row: the first walk, begun at an older generation, stops.
    for (const clubs of [{ basis: "amount-spent" }, { basis: "points-earned" }] as const) {
      const saved = await admin.request("PUT", `/admin/stores/${s.store.id}/program-settings`, {
        clubs,
      });
      expect(saved.status).toBe(200);
    }
    await eventually(async () => {
      const { rows } = await app.context.pool.query(
        `SELECT 1 FROM graphile_worker.jobs WHERE task_identifier = 'review-store-clubs'`,
      );
      return rows.length === 0 ? true : undefined;
    });
    // Back to points, Silver as before: no change was ever sent.
    expect(await changes(s)).toEqual(["none → Silver"]);
    expect(await stored(s)).toMatchObject({ club: "Silver" });
  });

  it("refuses a policy it does not know, naming the field, and changes nothing", async () => {
    const { s } = await clubShop();
    const refused = await admin.request("PUT", `/admin/stores/${s.store.id}/program-settings`, {
      clubs: { basis: "visits", period: "fortnight" },
    });
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as { errors: { pointer: string }[] };
    expect(problem.errors.map((error) => error.pointer).sort()).toEqual([
      "/clubs/basis",
      "/clubs/period",
    ]);
    const settings = await admin.request("GET", `/admin/stores/${s.store.id}/program-settings`);
    expect(((await settings.json()) as { clubs: unknown }).clubs).toEqual({
      basis: "points-earned",
      period: "rolling-12-months",
      downgrade: "immediately",
    });
  });
});
