import type { LedgerKind, ProgramOverview, ProgramOverviewQuery } from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../src/db/pool.js";
import { appendLedgerEntries } from "../src/modules/ledger/ledger.repository.js";
import { recountOverviewSums } from "../src/modules/overview/overview.repository.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, storeWithKey } from "./support/fixtures.js";

/**
 * The overview's figures come from sums the ledger's and the customers' triggers keep
 * (migration 20261129100000000_overview-sums) and a job folds: whatever was written, folded or
 * not, they are what the ledger and the customers say, computed here from every row.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

let app: TestApp;

beforeAll(async () => {
  // No workers: the test folds when it chooses.
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

function isoDate(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

async function sql<T extends object = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await app.context.pool.query<T & Record<string, unknown>>(text, values)).rows;
}

async function newStore(): Promise<number> {
  const created = await storeWithKey(
    app,
    `https://sums-${Math.random().toString(36).slice(2)}.example`,
  );
  return created.store.id;
}

type Kind = LedgerKind;

/** Entries written straight into the ledger in one statement, at instants the API cannot choose. */
async function write(entries: { customerId: number; kind: Kind; points: number; at: number }[]) {
  await sql(
    `WITH e AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::timestamptz[])
         WITH ORDINALITY AS e(customer_id, kind, points, at, position)
     ), totals AS (
       SELECT customer_id, sum(points) AS points FROM e GROUP BY customer_id
     ), c AS (
       UPDATE customers SET balance = balance + totals.points
       FROM totals WHERE customers.id = totals.customer_id
       RETURNING customers.id, customers.store_id, customers.balance
     )
     INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after,
                                      created_at)
     SELECT c.store_id, e.customer_id, e.kind, e.points, c.balance, e.at
     FROM e JOIN c ON c.id = e.customer_id ORDER BY e.position`,
    [
      entries.map((e) => e.customerId),
      entries.map((e) => e.kind),
      entries.map((e) => e.points),
      entries.map((e) => new Date(e.at).toISOString()),
    ],
  );
}

async function erase(customerId: number) {
  await sql(`UPDATE customers SET erased_at = now(), email = NULL WHERE id = $1`, [customerId]);
}

async function fold() {
  await app.context.services.overview.foldDeltas();
}

async function figures(storeId: number, query: ProgramOverviewQuery = {}) {
  return app.context.services.overview.overview({ id: storeId, currency: "EUR" }, query);
}

/** The figures by their definition, from every entry and customer of the store. */
async function expected(
  storeId: number,
  now: Date,
  query: ProgramOverviewQuery = {},
): Promise<Partial<ProgramOverview>> {
  const to = query.to ?? isoDate(now.getTime());
  const from = query.from ?? isoDate(Date.parse(to) - 29 * DAY_MS);
  const entries = await sql<{ customer_id: string; kind: Kind; points: string; at: Date }>(
    `SELECT customer_id, kind, points, created_at AS at FROM ledger_transactions
     WHERE store_id = $1`,
    [storeId],
  );
  const customers = await sql<{ id: string; balance: string; erased: boolean }>(
    `SELECT id, balance, erased_at IS NOT NULL AS erased FROM customers WHERE store_id = $1`,
    [storeId],
  );
  const erased = new Set(customers.filter((c) => c.erased).map((c) => c.id));
  const inPeriod = entries.filter((e) => {
    const day = isoDate(e.at.getTime());
    return day >= from && day <= to;
  });
  const sum = (kind: Kind, rows = inPeriod) =>
    rows.filter((e) => e.kind === kind).reduce((total, e) => total + Number(e.points), 0);
  const since = now.getTime() - 30 * DAY_MS;
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  return {
    members: customers.filter((c) => !c.erased).length,
    activeMembers: new Set(
      entries
        .filter((e) => e.at.getTime() >= since && e.at.getTime() <= now.getTime())
        .filter((e) => !erased.has(e.customer_id))
        .map((e) => e.customer_id),
    ).size,
    outstandingPoints: customers.reduce((total, c) => total + Math.max(0, Number(c.balance)), 0),
    points: {
      earned: sum("earn"),
      bonuses: sum("referral_bonus"),
      redeemed: 0 - sum("reward_redemption"),
      deducted: 0 - sum("refund_deduction"),
      adjusted: sum("manual_adjustment"),
      expired: 0 - sum("expiry"),
    },
    daily: Array.from({ length: days }, (_, index) => {
      const date = isoDate(Date.parse(from) + index * DAY_MS);
      const ofDay = inPeriod.filter((e) => isoDate(e.at.getTime()) === date);
      return {
        date,
        ordersCredited: ofDay.filter((e) => e.kind === "earn").length,
        claims: 0,
        pointsEarned: sum("earn", ofDay),
        pointsRedeemed: 0 - sum("reward_redemption", ofDay),
      };
    }),
  };
}

async function expectExact(storeId: number, now: Date, query: ProgramOverviewQuery = {}) {
  app.setNow(now);
  try {
    const answered = await figures(storeId, query);
    expect(answered).toMatchObject(await expected(storeId, now, query));
  } finally {
    app.setNow(undefined);
  }
}

/** A small deterministic generator (the same history every run). */
function draws(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const KINDS: { kind: Kind; sign: 1 | -1 }[] = [
  { kind: "earn", sign: 1 },
  { kind: "earn", sign: 1 },
  { kind: "refund_deduction", sign: -1 },
  { kind: "reward_redemption", sign: -1 },
  { kind: "referral_bonus", sign: 1 },
  { kind: "manual_adjustment", sign: -1 },
  { kind: "manual_adjustment", sign: 1 },
  { kind: "expiry", sign: -1 },
  { kind: "activity_bonus", sign: 1 },
];

describe("the overview's kept sums", () => {
  it("are the ledger's and the customers' figures, folded or not, around every boundary", async () => {
    const storeId = await newStore();
    // 10:20:30.123 UTC: the active members' 30 days begin inside an hour.
    const now = new Date("2026-06-15T10:20:30.123Z");
    const since = now.getTime() - 30 * DAY_MS;
    const sinceHour = Math.floor(since / HOUR_MS) * HOUR_MS;
    const customers: number[] = [];
    for (let n = 1; n <= 24; n++)
      customers.push(await customerWithPoints(app.context.pool, storeId, n, 0));
    const random = draws(22);
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)] as T;
    // Instants on either side of every edge: the hour of `since`, `since` itself, `now`,
    // midnights, and anywhere over 40 days.
    const instants = [
      since - 1,
      since,
      since + 1,
      sinceHour,
      sinceHour - 1,
      sinceHour + HOUR_MS - 1,
      sinceHour + HOUR_MS,
      now.getTime(),
      now.getTime() + 1,
      now.getTime() + 2 * HOUR_MS,
      Date.parse("2026-06-15T00:00:00.000Z") - 1,
      Date.parse("2026-06-15T00:00:00.000Z"),
    ];
    const anyInstant = () =>
      random() < 0.5 ? pick(instants) : now.getTime() - Math.floor(random() * 40 * DAY_MS);
    const batch = (size: number) =>
      Array.from({ length: size }, () => {
        const { kind, sign } = pick(KINDS);
        return {
          customerId: pick(customers),
          kind,
          points: sign * (1 + Math.floor(random() * 300)),
          at: anyInstant(),
        };
      });
    const check = async () => {
      await expectExact(storeId, now);
      await expectExact(storeId, now, { from: "2026-05-10", to: "2026-06-17" });
      // Later the same day, and hours later: `since` crosses its hour, then others.
      await expectExact(storeId, new Date(now.getTime() + 50 * MINUTE_MS));
      await expectExact(storeId, new Date(now.getTime() + 3 * HOUR_MS + 1));
      await expectExact(storeId, new Date(since + 1), { from: "2026-05-01", to: "2026-05-20" });
    };

    for (let round = 0; round < 4; round++) await write(batch(15));
    await check();
    await fold();
    await check();
    // Erased after their last entry's hour was folded, and before.
    await erase(customers[0] as number);
    await write(batch(10));
    await erase(customers[1] as number);
    await check();
    await fold();
    await check();
    // An erased customer spends; a customer's only entry is to come; another's last entry is
    // in the hour of `since`, after it, and one's before it.
    await write([
      { customerId: customers[0] as number, kind: "manual_adjustment", points: -5, at: since + 2 },
      { customerId: customers[2] as number, kind: "earn", points: 40, at: now.getTime() + HOUR_MS },
    ]);
    const late = await customerWithPoints(app.context.pool, storeId, 100, 0);
    const early = await customerWithPoints(app.context.pool, storeId, 101, 0);
    const onTheHour = await customerWithPoints(app.context.pool, storeId, 103, 0);
    await write([
      { customerId: late, kind: "earn", points: 7, at: since + 1 },
      { customerId: early, kind: "earn", points: 9, at: since - 1 },
      { customerId: onTheHour, kind: "earn", points: 2, at: since + 1 },
      { customerId: onTheHour, kind: "earn", points: 2, at: sinceHour + HOUR_MS },
    ]);
    await check();
    await fold();
    await check();
    const upcoming = await customerWithPoints(app.context.pool, storeId, 102, 0);
    await write([{ customerId: upcoming, kind: "earn", points: 3, at: now.getTime() + 60_000 }]);
    await check();
  });

  it("take one row per statement, day and kind from a crediting batch, not one per entry", async () => {
    const storeId = await newStore();
    const ids: number[] = [];
    for (let n = 1; n <= 20; n++)
      ids.push(await customerWithPoints(app.context.pool, storeId, n, 0));
    await fold();
    await withTransaction(app.context.pool, (db) =>
      appendLedgerEntries(
        db,
        ids.map((customerId) => ({ storeId, customerId, kind: "earn", points: 10 })),
      ),
    );
    expect(
      await sql(`SELECT day, kind, entries, points FROM ledger_day_deltas WHERE store_id = $1`, [
        storeId,
      ]),
    ).toEqual([{ day: expect.any(Date), kind: "earn", entries: 20, points: 200 }]);
    // The 20 customers' last entries moved to this hour: one row.
    expect(
      await sql(`SELECT members FROM last_entry_hour_deltas WHERE store_id = $1`, [storeId]),
    ).toEqual([{ members: 20 }]);
    await fold();
    expect(await sql(`SELECT 1 FROM ledger_day_deltas WHERE store_id = $1`, [storeId])).toEqual([]);
    expect((await figures(storeId)).points.earned).toBe(200);
  });

  it("stay exact under concurrent writers while folds run", async () => {
    const storeId = await newStore();
    const ids: number[] = [];
    for (let n = 1; n <= 12; n++)
      ids.push(await customerWithPoints(app.context.pool, storeId, n, 0));
    let writing = true;
    const folding = (async () => {
      let folds = 0;
      while (writing || folds === 0) {
        await fold();
        folds++;
      }
      return folds;
    })();
    const random = draws(7);
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let n = 0; n < 15; n++) {
          // Up to three customers in any order: appending locks them in its own.
          const batch = [
            ...new Set([0, 1, 2].map(() => ids[Math.floor(random() * ids.length)])),
          ].map(Number);
          await withTransaction(app.context.pool, (db) =>
            appendLedgerEntries(
              db,
              batch.map((customerId) => ({
                storeId,
                customerId,
                kind: random() < 0.7 ? "earn" : "manual_adjustment",
                points: random() < 0.8 ? 25 : -40,
              })),
            ),
          );
        }
      }),
    );
    writing = false;
    expect(await folding).toBeGreaterThan(0);
    const now = new Date();
    await expectExact(storeId, now);
    await fold();
    await expectExact(storeId, now);
  });

  it("are what counting the store again from its rows gives (the migration's backfill)", async () => {
    const storeId = await newStore();
    const ids: number[] = [];
    for (let n = 1; n <= 8; n++)
      ids.push(await customerWithPoints(app.context.pool, storeId, n, 0));
    const random = draws(5);
    const now = Date.now();
    await write(
      Array.from({ length: 40 }, () => ({
        customerId: ids[Math.floor(random() * ids.length)] as number,
        kind: "earn" as const,
        points: 1 + Math.floor(random() * 50),
        at: now - Math.floor(random() * 60 * DAY_MS),
      })),
    );
    await erase(ids[3] as number);
    await fold();
    const kept = async () => ({
      days: await sql(
        `SELECT day, kind, entries, points FROM ledger_day_sums WHERE store_id = $1
         ORDER BY day, kind`,
        [storeId],
      ),
      hours: await sql(
        `SELECT hour, members FROM last_entry_hours WHERE store_id = $1 AND members <> 0
         ORDER BY hour`,
        [storeId],
      ),
      last: await sql(
        `SELECT customer_id, last_entry_at FROM customer_last_entries WHERE store_id = $1
         ORDER BY customer_id`,
        [storeId],
      ),
      totals: await sql(
        `SELECT members, outstanding_points FROM customer_totals WHERE store_id = $1`,
        [storeId],
      ),
    });
    const before = await kept();
    expect(before.totals).toEqual([{ members: 7, outstanding_points: expect.any(Number) }]);
    await recountOverviewSums(app.context.pool, storeId);
    expect(await kept()).toEqual(before);
  });
});
