import { DEFAULT_CLUB_POLICY, type ClubPolicy } from "@loyalty/shared-types";
import { describe, expect, it } from "vitest";
import {
  clubStanding,
  periodStart,
  previousYear,
  type Club,
  type ClubFigures,
  type HeldClub,
} from "../src/modules/points/clubs.js";

/** The pure standing every caller computes with: each policy, at its boundaries. */

const SILVER: Club = { id: 2, name: "Silver", threshold: 200, multiplier: 1 };
const GOLD: Club = { id: 3, name: "Gold", threshold: 500, multiplier: 2 };
const BASE: Club = { id: 1, name: "Base", threshold: 0, multiplier: 1 };
const CLUBS = [GOLD, SILVER];
const NOW = new Date("2027-05-10T12:00:00.000Z");
const NONE: HeldClub = { clubId: null, keptUntil: null };

const figures = (current: number, more: Partial<ClubFigures> = {}): ClubFigures => ({
  current,
  previousYear: 0,
  oldest: new Date("2026-08-01T00:00:00.000Z"),
  ...more,
});
const policy = (changes: Partial<ClubPolicy>): ClubPolicy => ({
  ...DEFAULT_CLUB_POLICY,
  ...changes,
});
const iso = (date: Date | null) => date?.toISOString() ?? null;

describe("clubStanding, the spec's policy (immediately, rolling 12 months)", () => {
  it("reaches a club at exactly its threshold, and names what the next one needs", () => {
    const below = clubStanding(CLUBS, DEFAULT_CLUB_POLICY, NONE, figures(199), NOW);
    expect(below.club).toBeNull();
    expect(below.next).toMatchObject({ id: SILVER.id, toReach: 1 });
    const at = clubStanding(CLUBS, DEFAULT_CLUB_POLICY, NONE, figures(200), NOW);
    expect(at.club).toEqual(SILVER);
    expect(at.next).toMatchObject({ id: GOLD.id, toReach: 300 });
    expect(clubStanding(CLUBS, DEFAULT_CLUB_POLICY, NONE, figures(900), NOW).next).toBeNull();
  });

  it("ignores what a review stored: the figure alone decides", () => {
    const held = { clubId: GOLD.id, keptUntil: new Date("2028-01-01T00:00:00.000Z") };
    const standing = clubStanding(CLUBS, DEFAULT_CLUB_POLICY, held, figures(250), NOW);
    expect(standing.club).toEqual(SILVER);
    expect(standing.keptUntil).toBeNull();
  });

  it("is reviewed when its oldest earning leaves the 12 months, and never for a 0 club", () => {
    const standing = clubStanding(CLUBS, DEFAULT_CLUB_POLICY, NONE, figures(250), NOW);
    expect(iso(standing.reviewAt)).toBe("2027-08-01T00:00:00.000Z");
    const base = clubStanding([BASE, ...CLUBS], DEFAULT_CLUB_POLICY, NONE, figures(10), NOW);
    expect(base.club).toEqual(BASE);
    expect(base.reviewAt).toBeNull();
    expect(clubStanding(CLUBS, DEFAULT_CLUB_POLICY, NONE, figures(10), NOW).reviewAt).toBeNull();
  });

  it("never asks for a review at or before now (a job must not find it due again)", () => {
    const oldest = new Date("2026-05-10T12:00:00.000Z");
    const standing = clubStanding(CLUBS, DEFAULT_CLUB_POLICY, NONE, figures(250, { oldest }), NOW);
    expect(standing.reviewAt!.getTime()).toBeGreaterThan(NOW.getTime());
  });

  it("rounds the amount still to spend up to a whole unit", () => {
    const spent = policy({ basis: "amount-spent" });
    expect(clubStanding(CLUBS, spent, NONE, figures(180.5), NOW).next?.toReach).toBe(20);
  });
});

describe("clubStanding, calendar year", () => {
  it("immediately: starts over on 1 January, reviewed then", () => {
    const calendar = policy({ period: "calendar-year" });
    const standing = clubStanding(CLUBS, calendar, NONE, figures(600), NOW);
    expect(standing.club).toEqual(GOLD);
    expect(iso(standing.reviewAt)).toBe("2028-01-01T00:00:00.000Z");
    expect(iso(periodStart("calendar-year", NOW))).toBe("2027-01-01T00:00:00.000Z");
    expect(previousYear(NOW)).toEqual({
      start: new Date("2026-01-01T00:00:00.000Z"),
      end: new Date("2027-01-01T00:00:00.000Z"),
    });
  });

  it("end of period: keeps the club held until the year ends, and last year's club all year", () => {
    const calendar = policy({ period: "calendar-year", downgrade: "end-of-period" });
    const held = { clubId: GOLD.id, keptUntil: new Date("2028-01-01T00:00:00.000Z") };
    const kept = clubStanding(CLUBS, calendar, held, figures(50), NOW);
    expect(kept.club).toEqual(GOLD);
    expect(iso(kept.keptUntil)).toBe("2028-01-01T00:00:00.000Z");
    // Held until a date passed: last year's figure decides, with this year's.
    const expired = { clubId: GOLD.id, keptUntil: new Date("2027-01-01T00:00:00.000Z") };
    const reviewed = clubStanding(
      CLUBS,
      calendar,
      expired,
      figures(50, { previousYear: 250 }),
      NOW,
    );
    expect(reviewed.club).toEqual(SILVER);
    expect(clubStanding(CLUBS, calendar, expired, figures(50), NOW).club).toBeNull();
    // This year's figure lifts above last year's at once.
    const lifted = clubStanding(CLUBS, calendar, NONE, figures(510, { previousYear: 250 }), NOW);
    expect(lifted.club).toEqual(GOLD);
  });
});

describe("clubStanding, rolling 12 months, end of period", () => {
  const rolling = policy({ downgrade: "end-of-period" });

  it("keeps a club 12 months from reaching it, not from each order", () => {
    const reached = clubStanding(CLUBS, rolling, NONE, figures(250), NOW);
    expect(reached.club).toEqual(SILVER);
    expect(iso(reached.keptUntil)).toBe("2028-05-10T12:00:00.000Z");
    const later = new Date("2027-09-01T00:00:00.000Z");
    const again = clubStanding(
      CLUBS,
      rolling,
      { clubId: SILVER.id, keptUntil: reached.keptUntil },
      figures(260),
      later,
    );
    expect(iso(again.keptUntil)).toBe("2028-05-10T12:00:00.000Z");
  });

  it("an upgrade starts a new period; a fall keeps the club until its period ends", () => {
    const held = { clubId: SILVER.id, keptUntil: new Date("2028-01-01T00:00:00.000Z") };
    const upgraded = clubStanding(CLUBS, rolling, held, figures(520), NOW);
    expect(upgraded.club).toEqual(GOLD);
    expect(iso(upgraded.keptUntil)).toBe("2028-05-10T12:00:00.000Z");
    const fallen = clubStanding(CLUBS, rolling, held, figures(20), NOW);
    expect(fallen.club).toEqual(SILVER);
    expect(iso(fallen.reviewAt)).toBe("2028-01-01T00:00:00.000Z");
  });

  it("at the period's end, the last 12 months decide: reached again, 12 more months", () => {
    const ended = { clubId: SILVER.id, keptUntil: new Date("2027-05-10T12:00:00.000Z") };
    expect(clubStanding(CLUBS, rolling, ended, figures(20), NOW).club).toBeNull();
    const renewed = clubStanding(CLUBS, rolling, ended, figures(210), NOW);
    expect(renewed.club).toEqual(SILVER);
    expect(iso(renewed.keptUntil)).toBe("2028-05-10T12:00:00.000Z");
  });

  it("a club the store deleted is not kept", () => {
    const held = { clubId: 99, keptUntil: new Date("2028-01-01T00:00:00.000Z") };
    expect(clubStanding(CLUBS, rolling, held, figures(250), NOW).club).toEqual(SILVER);
  });
});

describe("clubStanding, lifetime", () => {
  it("immediately: only refunds lower the figure; no review by time", () => {
    const lifetime = policy({ period: "lifetime" });
    const standing = clubStanding(CLUBS, lifetime, NONE, figures(600), NOW);
    expect(standing.club).toEqual(GOLD);
    expect(standing.reviewAt).toBeNull();
    expect(periodStart("lifetime", NOW)).toBeNull();
  });
});
