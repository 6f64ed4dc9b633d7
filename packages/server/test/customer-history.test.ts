import { createHmac } from "node:crypto";
import {
  customerHistoryResponseSchemaFor,
  type ApiRevision,
  type LedgerKind,
} from "@loyalty/shared-types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app.js";

const NOW = new Date("2026-11-25T12:00:00Z");

/** The hash as a store's server computes it (spec: HMAC-SHA512, key `<reference>:<API key>`). */
function customerHash(externalId: string, reference: string, key: string): string {
  return createHmac("sha512", `${reference}:${key}`).update(externalId).digest("hex");
}

let app: TestApp;
let shop: { id: number; reference: string; domain: string };
let other: { id: number; reference: string; domain: string };
let shopKey: string;
let otherKey: string;

async function sql<T extends object = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await app.context.pool.query<T & Record<string, unknown>>(text, values)).rows;
}

async function insertCustomer(storeId: number, externalId: number): Promise<number> {
  const [row] = await sql<{ id: number }>(
    `INSERT INTO customers (store_id, external_id, email) VALUES ($1, $2, $3) RETURNING id`,
    [storeId, externalId, `customer${externalId}@example.com`],
  );
  return (row as { id: number }).id;
}

async function insertOrder(
  customer: { storeId: number; id: number; externalId: number },
  order: { externalId: string; externalReference: string | null; earned: number },
): Promise<number> {
  const [row] = await sql<{ id: number }>(
    `INSERT INTO orders (store_id, external_id, external_reference, customer_id,
                         customer_external_id, currency, ordered_at, payload, status, points_earned)
     VALUES ($1, $2, $3, $4, $5, 'EUR', now(), '{}', 'processed', $6) RETURNING id`,
    [
      customer.storeId,
      order.externalId,
      order.externalReference,
      customer.id,
      customer.externalId,
      order.earned,
    ],
  );
  return (row as { id: number }).id;
}

interface Entry {
  kind: LedgerKind;
  points: number;
  at: string;
  orderId?: number;
  refundId?: number;
  claimId?: number;
  referralId?: number;
  activityId?: number;
  note?: string;
}

/** Appends entries, oldest first, with a consistent balance chain; returns their ids. */
async function appendLedger(
  customer: { storeId: number; id: number },
  entries: Entry[],
): Promise<number[]> {
  const ids: number[] = [];
  let [{ balance } = { balance: 0 }] = await sql<{ balance: number }>(
    `SELECT balance FROM customers WHERE id = $1`,
    [customer.id],
  );
  for (const entry of entries) {
    balance += entry.points;
    const [row] = await sql<{ id: number }>(
      `INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after,
                                        order_id, refund_id, claim_id, referral_id, note, created_at,
                                        activity_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [
        customer.storeId,
        customer.id,
        entry.kind,
        entry.points,
        balance,
        entry.orderId ?? null,
        entry.refundId ?? null,
        entry.claimId ?? null,
        entry.referralId ?? null,
        entry.note ?? null,
        entry.at,
        entry.activityId ?? null,
      ],
    );
    ids.push((row as { id: number }).id);
  }
  await sql(`UPDATE customers SET balance = $2 WHERE id = $1`, [customer.id, balance]);
  return ids;
}

/** Customer 42 of the shop: every kind of transaction, a balance gone negative. */
const ada = { externalId: 42, ids: [] as number[], rewardId: 0, referralId: 0 };
/** Customer 77 of the shop: 105 transactions to page through. */
const bulk = { externalId: 77, ids: [] as number[] };
const clubs = { bronze: 0, silver: 0, gold: 0 };

async function seed(): Promise<void> {
  const customer = { storeId: shop.id, id: 0, externalId: ada.externalId };
  customer.id = await insertCustomer(shop.id, ada.externalId);
  const legacyOrder = await insertOrder(customer, {
    externalId: "A-1001",
    externalReference: null,
    earned: 120,
  });
  const numericOrder = await insertOrder(customer, {
    externalId: "5001",
    externalReference: "#5001",
    earned: 300,
  });
  const paddedOrder = await insertOrder(customer, {
    externalId: "007",
    externalReference: null,
    earned: 5,
  });
  await sql(
    `UPDATE orders SET points_deducted = 100, refund_status = 'partially_refunded'
             WHERE id = $1`,
    [numericOrder],
  );
  const [refund] = await sql<{ id: number }>(
    `INSERT INTO refunds (store_id, order_external_id, order_id, status, payload,
                          processing_status, outcome, points_deducted)
     VALUES ($1, '5001', $2, 'partially_refunded', '{}', 'processed', 'deducted', 100)
     RETURNING id`,
    [shop.id, numericOrder],
  );
  const [referral] = await sql<{ id: number }>(
    `INSERT INTO referrals (store_id, referrer_customer_id, email, hash_digest, status)
     VALUES ($1, $2, 'friend@example.com', '\\x01', 'completed') RETURNING id`,
    [shop.id, customer.id],
  );
  const [reward] = await sql<{ id: number }>(
    `INSERT INTO rewards (store_id, name, trigger_value) VALUES ($1, 'Free shipping', 400)
     RETURNING id`,
    [shop.id],
  );
  ada.rewardId = (reward as { id: number }).id;
  ada.referralId = (referral as { id: number }).id;
  const [voucher] = await sql<{ id: number }>(
    `INSERT INTO voucher_versions (reward_id, version, kind) VALUES ($1, 1, 'free_shipping')
     RETURNING id`,
    [ada.rewardId],
  );
  const [claim] = await sql<{ id: number }>(
    `INSERT INTO reward_claims (store_id, customer_id, reward_id, voucher_version_id, points,
                                status, code, confirmed_at)
     VALUES ($1, $2, $3, $4, 400, 'confirmed', 'SHIP-1', now()) RETURNING id`,
    [shop.id, customer.id, ada.rewardId, (voucher as { id: number }).id],
  );
  ada.ids = await appendLedger(customer, [
    { kind: "earn", points: 120, at: "2025-09-01T00:00:00Z", orderId: legacyOrder },
    { kind: "expiry", points: -20, at: "2025-10-01T00:00:00Z", note: "Points expired" },
    { kind: "earn", points: 300, at: "2026-03-10T00:00:00Z", orderId: numericOrder },
    {
      kind: "referral_bonus",
      points: 50,
      at: "2026-04-01T00:00:00Z",
      referralId: ada.referralId,
    },
    {
      kind: "reward_redemption",
      points: -400,
      at: "2026-05-01T00:00:00Z",
      claimId: (claim as { id: number }).id,
    },
    {
      kind: "refund_deduction",
      points: -100,
      at: "2026-06-01T00:00:00Z",
      orderId: numericOrder,
      refundId: (refund as { id: number }).id,
    },
    { kind: "manual_adjustment", points: 10, at: "2026-07-01T00:00:00Z", note: "Goodwill" },
    { kind: "earn", points: 5, at: "2026-08-01T00:00:00Z", orderId: paddedOrder },
  ]);

  const bulkId = await insertCustomer(shop.id, bulk.externalId);
  const rows = await sql<{ id: number }>(
    `INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after, note,
                                      created_at)
     SELECT $1, $2, 'manual_adjustment', 1, n, 'bulk ' || n,
            '2026-10-01T00:00:00Z'::timestamptz + n * interval '1 minute'
     FROM generate_series(1, 105) AS n ORDER BY n
     RETURNING id`,
    [shop.id, bulkId],
  );
  bulk.ids = rows.map((row) => row.id).sort((a, b) => b - a);
  await sql(`UPDATE customers SET balance = 105 WHERE id = $1`, [bulkId]);

  const clubRows = await sql<{ id: number; name: string }>(
    `INSERT INTO clubs (store_id, name, threshold, multiplier)
     VALUES ($1, 'Gold', 300, 1.5), ($1, 'Bronze', 0, 1), ($1, 'Silver', 200, 1.25)
     RETURNING id, name`,
    [shop.id],
  );
  for (const row of clubRows) clubs[row.name.toLowerCase() as keyof typeof clubs] = row.id;
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  const { stores, apiKeys } = app.context.services;
  shop = await stores.create({ domain: "https://shop.example", reference: "shop-ref-1" });
  other = await stores.create({ domain: "https://other.example" });
  shopKey = (await apiKeys.create(shop.reference)).key;
  otherKey = (await apiKeys.create(other.reference)).key;
  await seed();
});
afterAll(() => app.close());

interface Call {
  externalId?: number | string;
  query?: Record<string, string | string[]>;
  revision?: ApiRevision;
  /** Which store's key signs the hash; the shop's by default. */
  signer?: "shop" | "other";
}

async function request({ externalId = ada.externalId, query = {}, revision, signer }: Call) {
  const id = String(externalId);
  const store = signer === "other" ? other : shop;
  const key = signer === "other" ? otherKey : shopKey;
  const params = new URLSearchParams({
    hash: customerHash(id, store.reference, key),
    domain: store.domain,
  });
  for (const [name, value] of Object.entries(query)) {
    params.delete(name);
    for (const item of [value].flat()) params.append(name, item);
  }
  return fetch(`${app.baseUrl}/point/user-history/${id}?${params.toString()}`, {
    headers: revision ? { revision } : {},
  });
}

/** A 200 answer, checked against the shared contract of its revision. */
async function history(call: Call = {}) {
  const response = await request(call);
  expect(response.status).toBe(200);
  const revision = call.revision ?? "2026-01-01";
  expect(response.headers.get("revision")).toBe(revision);
  return customerHistoryResponseSchemaFor(revision).parse(await response.json());
}

describe("GET /point/user-history/{externalId}", () => {
  it("gives the balance, the club and every field of each transaction, newest first", async () => {
    const response = await request({});
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    // The answer depends on the revision, and its CORS header on the page's origin.
    expect(response.headers.get("vary")).toBe("Origin, revision");
    const body = customerHistoryResponseSchemaFor("2026-01-01").parse(await response.json());
    const [first, expiry, second, bonus, redemption, deduction, adjustment, third] = ada.ids;
    const none = {
      order: null,
      rewardId: null,
      voucherCode: null,
      referralId: null,
      activity: null,
      note: null,
      // Additive fields, at their values for a store without a pending period.
      pendingPoints: 0,
      availableAt: null,
      pending: false,
    };
    expect(body).toEqual({
      externalId: 42,
      balance: -35,
      availablePoints: -35,
      pendingPoints: 0,
      // The refund that took the balance below zero after the points were spent.
      negativeBalance: { points: 35, reason: "refund-after-spending", transactionId: deduction },
      nextExpiry: null,
      earnedLast12Months: 255,
      club: { id: clubs.silver, name: "Silver", threshold: 200, multiplier: 1.25 },
      nextClub: {
        id: clubs.gold,
        name: "Gold",
        threshold: 300,
        multiplier: 1.5,
        pointsToReach: 45,
      },
      clubQualification: {
        basis: "points-earned",
        period: "rolling-12-months",
        downgrade: "immediately",
        figure: 255,
        periodStart: expect.any(String),
        keptUntil: null,
      },
      transactions: [
        {
          ...none,
          id: third,
          kind: "earn",
          points: 5,
          balanceAfter: -35,
          order: { externalRef: "007" },
          createdAt: "2026-08-01T00:00:00.000Z",
        },
        {
          ...none,
          id: adjustment,
          kind: "manual_adjustment",
          points: 10,
          balanceAfter: -40,
          note: "Goodwill",
          createdAt: "2026-07-01T00:00:00.000Z",
        },
        {
          ...none,
          id: deduction,
          kind: "refund_deduction",
          points: -100,
          balanceAfter: -50,
          order: { externalRef: "5001" },
          createdAt: "2026-06-01T00:00:00.000Z",
        },
        {
          ...none,
          id: redemption,
          kind: "reward_redemption",
          points: -400,
          balanceAfter: 50,
          rewardId: ada.rewardId,
          voucherCode: "SHIP-1",
          createdAt: "2026-05-01T00:00:00.000Z",
        },
        {
          ...none,
          id: bonus,
          kind: "referral_bonus",
          points: 50,
          balanceAfter: 450,
          referralId: ada.referralId,
          createdAt: "2026-04-01T00:00:00.000Z",
        },
        {
          ...none,
          id: second,
          kind: "earn",
          points: 300,
          balanceAfter: 400,
          order: { externalRef: "5001" },
          createdAt: "2026-03-10T00:00:00.000Z",
        },
        {
          ...none,
          id: expiry,
          kind: "expiry",
          points: -20,
          balanceAfter: 100,
          note: "Points expired",
          createdAt: "2025-10-01T00:00:00.000Z",
        },
        {
          ...none,
          id: first,
          kind: "earn",
          points: 120,
          balanceAfter: 120,
          order: { externalRef: "A-1001" },
          createdAt: "2025-09-01T00:00:00.000Z",
        },
      ],
      nextCursor: null,
    });
  });

  it("names the order as the revision does: externalRef, then a numeric externalId", async () => {
    const orders = (body: { transactions: { order: unknown }[] }) =>
      body.transactions.map((transaction) => transaction.order);
    const legacy = [
      { externalRef: "007" },
      null,
      { externalRef: "5001" },
      null,
      null,
      { externalRef: "5001" },
      null,
      { externalRef: "A-1001" },
    ];
    expect(orders(await history({}))).toEqual(legacy);
    expect(orders(await history({ revision: "2026-01-01" }))).toEqual(legacy);
    for (const revision of ["2026-06-18", "2026-08-26"] as const) {
      expect(orders(await history({ revision })), revision).toEqual([
        { externalId: "007", externalReference: null },
        null,
        { externalId: 5001, externalReference: "#5001" },
        null,
        null,
        { externalId: 5001, externalReference: "#5001" },
        null,
        { externalId: "A-1001", externalReference: null },
      ]);
    }
  });

  it("writes instants, text and order numbers as JSON.stringify would, byte for byte", async () => {
    const externalId = 88;
    const customer = { storeId: shop.id, id: 0, externalId };
    customer.id = await insertCustomer(shop.id, externalId);
    // The largest safe integer is a number; one more, or a longer id, stays the text it is.
    const orderIds = ["9007199254740991", "9007199254740992", "0", "12345678901234567890"];
    const orders: number[] = [];
    for (const id of orderIds) {
      orders.push(
        await insertOrder(customer, { externalId: id, externalReference: null, earned: 1 }),
      );
    }
    const note = 'a "quote", a \\ backslash,\n a tab\t, \u0001, \u2028, é and 🎉';
    const [activity] = await sql<{ id: number }>(
      `INSERT INTO activities (store_id, customer_id, activity_id, kind, label, outcome, points,
                               recorded_at)
       VALUES ($1, $2, 'act-"1"', 'review', $3, 'credited', 1, now()) RETURNING id`,
      [shop.id, customer.id, 'The "best" review\\'],
    );
    await appendLedger(customer, [
      ...orders.map((orderId, index) => ({
        kind: "earn" as const,
        points: 1,
        // Microseconds: an instant is given to the millisecond, cut, never rounded up.
        at: `2026-10-02T03:04:05.67899${index}Z`,
        orderId,
      })),
      {
        kind: "activity_bonus",
        points: 1,
        at: "2026-10-03T00:00:00.000999Z",
        note,
        activityId: (activity as { id: number }).id,
      },
    ]);
    for (const revision of ["2026-01-01", "2026-08-26"] as const) {
      const response = await request({ externalId, revision });
      const text = await response.text();
      const body = customerHistoryResponseSchemaFor(revision).parse(JSON.parse(text));
      // Compact, and escaped as node escapes: the same bytes, so the same ETag, as before.
      expect(text, revision).toBe(JSON.stringify(JSON.parse(text)));
      const legacy = revision === "2026-01-01";
      expect(
        body.transactions.map(({ createdAt, note, activity, order }) => ({
          createdAt,
          note,
          activity,
          order,
        })),
        revision,
      ).toEqual([
        {
          createdAt: "2026-10-03T00:00:00.000Z",
          note,
          activity: { id: 'act-"1"', kind: "review", label: 'The "best" review\\' },
          order: null,
        },
        ...orderIds
          .map((id, index) => ({
            createdAt: "2026-10-02T03:04:05.678Z",
            note: null,
            activity: null,
            order: legacy
              ? { externalRef: id }
              : {
                  externalId: index === 0 || index === 2 ? Number(id) : id,
                  externalReference: null,
                },
          }))
          .reverse(),
      ]);
    }
  });

  it("measures clubs on the rolling last 12 months only", async () => {
    // On 2026-11-25 the earn of 2025-09-01 is out of the window: with it the customer would be Gold.
    expect((await history({})).earnedLast12Months).toBe(255);
    app.setNow(new Date("2027-03-15T00:00:00Z"));
    try {
      // Since 2026-03-15: the referral bonus, the refund deduction and the last earn.
      const body = await history({});
      expect(body.earnedLast12Months).toBe(0);
      expect(body.club).toMatchObject({ id: clubs.bronze, name: "Bronze", threshold: 0 });
      expect(body.nextClub).toMatchObject({ id: clubs.silver, pointsToReach: 200 });
      expect(body.balance).toBe(-35);
    } finally {
      app.setNow(NOW);
    }
  });

  it("reads the page and the club figures in one statement, from one snapshot", async () => {
    // A customer whose balance is not overdrawn (that takes one more read, of the overdraft).
    await history({ externalId: bulk.externalId });
    const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = prototype.query;
    const ledgerReads: string[] = [];
    prototype.query = function (this: object, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      if (text?.includes("ledger_transactions")) ledgerReads.push(text);
      return original.apply(this, args);
    };
    let body: Awaited<ReturnType<typeof history>>;
    try {
      body = await history({ externalId: bulk.externalId });
    } finally {
      prototype.query = original;
    }
    // Manual adjustments only: nothing earned, the first club.
    expect(body.balance).toBe(105);
    expect(body.earnedLast12Months).toBe(0);
    expect(body.club).toMatchObject({ id: clubs.bronze });
    expect(ledgerReads).toHaveLength(1);
  });

  it("reads account pages asked for at once together, each answered with its own", async () => {
    const { customers } = app.context.services;
    const store = { id: shop.id, domain: shop.domain };
    const second = (await customers.history(store, bulk.externalId, { limit: 3 }, false))
      .nextCursor;
    // The last flag: the revision names orders by externalRef (2026-01-01).
    const calls: [number, { limit: number; cursor?: string }, boolean][] = [
      [ada.externalId, { limit: 20 }, false],
      [ada.externalId, { limit: 20 }, true],
      [bulk.externalId, { limit: 20 }, false],
      [bulk.externalId, { limit: 3 }, false],
      [bulk.externalId, { limit: 3, cursor: second as string }, false],
      [424242, { limit: 20 }, false],
    ];
    // Each alone first: what each must be answered, whatever is read beside it.
    const alone: Awaited<ReturnType<typeof customers.history>>[] = [];
    for (const [externalId, page, legacy] of calls) {
      alone.push(await customers.history(store, externalId, page, legacy));
    }
    const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = prototype.query;
    let pageReads = 0;
    prototype.query = function (this: object, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      if (text?.includes("FROM ledger_transactions t")) pageReads += 1;
      return original.apply(this, args);
    };
    // As requests under load arrive, each with its own clock reading a millisecond apart: while
    // the first pages are read, the others wait, and go together in the next statement.
    const together = calls.flatMap((call) => [call, call, call, call]);
    let answers: Awaited<ReturnType<typeof customers.history>>[];
    try {
      answers = await Promise.all(
        together.map(([externalId, page, legacy], index) => {
          app.setNow(new Date(NOW.getTime() + index));
          return customers.history(store, externalId, page, legacy);
        }),
      );
    } finally {
      prototype.query = original;
      app.setNow(NOW);
    }
    // The same answers, but for where a rolling period starts: a millisecond later each.
    const steady = (answer: Awaited<ReturnType<typeof customers.history>> | undefined) => ({
      ...answer,
      clubQualification: { ...answer?.clubQualification, periodStart: null },
    });
    answers.forEach((answer, index) =>
      expect(steady(answer)).toEqual(steady(alone[Math.floor(index / 4)])),
    );
    expect(pageReads).toBeLessThanOrEqual(3);
  });

  it("gives a page read with others, across a period's edge, at the instant of its figures", async () => {
    const { customers } = app.context.services;
    const store = { id: shop.id, domain: shop.domain };
    // Ada's first earn (2025-09-01T00:00:00Z) leaves the rolling 12 months a millisecond after
    // 2026-09-01T00:00:00Z.
    const edge = new Date("2026-09-01T00:00:00.000Z");
    const after = new Date(edge.getTime() + 1);
    const read = (at: Date) => {
      app.setNow(at);
      return customers.history(store, ada.externalId, { limit: 20 }, false);
    };
    try {
      const alone = { edge: await read(edge), after: await read(after) };
      expect(alone.edge.clubQualification.figure).toBe(alone.after.clubQualification.figure + 120);
      // Two reads go at once (two statements in flight); the next two wait and go together, the
      // figures taken at the later instant: the whole page is given at it, never half of it at
      // the earlier one (a period starting where the figure does not count from).
      const answers = await Promise.all([read(edge), read(edge), read(edge), read(after)]);
      expect(answers[2]).toEqual(alone.after);
      expect(answers[3]).toEqual(alone.after);
    } finally {
      app.setNow(NOW);
    }
  });

  it("pages through every transaction once, newest first, until nextCursor is null", async () => {
    const seen: number[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = cursor === null ? {} : { cursor };
      const body = await history({ externalId: bulk.externalId, query });
      expect(body.balance).toBe(105);
      sizes.push(body.transactions.length);
      seen.push(...body.transactions.map((transaction) => transaction.id));
      cursor = body.nextCursor;
    } while (cursor !== null && sizes.length < 10);
    expect(sizes).toEqual([20, 20, 20, 20, 20, 5]);
    expect(seen).toEqual(bulk.ids);
  });

  it("reads the cursor of any revision's page in every revision", async () => {
    const first = await history({ externalId: bulk.externalId, query: { limit: "3" } });
    const next = await history({
      externalId: bulk.externalId,
      query: { limit: "3", cursor: first.nextCursor as string },
      revision: "2026-08-26",
    });
    expect(next.transactions.map((transaction) => transaction.id)).toEqual(bulk.ids.slice(3, 6));
  });

  it.each([
    ["absent", undefined, 20],
    ["1", "1", 1],
    ["0", "0", 1],
    ["-5", "-5", 1],
    ["1000", "1000", 100],
    ["2.5", "2.5", 2],
    ["abc", "abc", 20],
    ["repeated", ["3", "4"], 20],
  ])("reads limit %s as %i, never refusing it", async (_name, limit, expected) => {
    const query: Record<string, string | string[]> = limit === undefined ? {} : { limit };
    const body = await history({ externalId: bulk.externalId, query });
    expect(body.transactions.map((transaction) => transaction.id)).toEqual(
      bulk.ids.slice(0, expected),
    );
    expect(body.nextCursor).not.toBeNull();
  });

  it("ends the list with the last page exactly full", async () => {
    const body = await history({ query: { limit: "8" } });
    expect(body.transactions).toHaveLength(8);
    expect(body.nextCursor).toBeNull();
  });

  it.each([
    ["garbage", "not a cursor!"],
    ["empty", ""],
    ["zero", Buffer.from("0").toString("base64url")],
    ["negative", Buffer.from("-1").toString("base64url")],
    ["text", Buffer.from("abc").toString("base64url")],
    ["padded", `${Buffer.from("12").toString("base64url")}=`],
    ["leading zero", Buffer.from("012").toString("base64url")],
    ["unsafe integer", Buffer.from("9007199254740993").toString("base64url")],
  ])(
    "reads a cursor it did not issue (%s) as the end of the list, in both formats",
    async (_name, cursor) => {
      for (const revision of ["2026-01-01", "2026-08-26"] as const) {
        const body = await history({ externalId: bulk.externalId, query: { cursor }, revision });
        expect(body).toMatchObject({ balance: 105, transactions: [], nextCursor: null });
      }
    },
  );

  it("ignores a repeated cursor", async () => {
    const body = await history({ externalId: bulk.externalId, query: { cursor: ["MTA", "MjA"] } });
    expect(body.transactions.map((transaction) => transaction.id)).toEqual(bulk.ids.slice(0, 20));
  });

  it("answers a customer the store has never seen with 0 points, and writes nothing", async () => {
    const count = async () =>
      (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM customers`))[0]?.n;
    const before = await count();
    for (const revision of ["2026-01-01", "2026-08-26"] as const) {
      expect(await history({ externalId: 999, revision })).toEqual({
        externalId: 999,
        balance: 0,
        availablePoints: 0,
        pendingPoints: 0,
        negativeBalance: null,
        nextExpiry: null,
        earnedLast12Months: 0,
        club: { id: clubs.bronze, name: "Bronze", threshold: 0, multiplier: 1 },
        nextClub: {
          id: clubs.silver,
          name: "Silver",
          threshold: 200,
          multiplier: 1.25,
          pointsToReach: 200,
        },
        clubQualification: {
          basis: "points-earned",
          period: "rolling-12-months",
          downgrade: "immediately",
          figure: 0,
          periodStart: expect.any(String),
          keptUntil: null,
        },
        transactions: [],
        nextCursor: null,
      });
    }
    expect(await count()).toBe(before);
  });

  it("shows another store's key only that store's customer of the same id", async () => {
    expect(await history({ signer: "other" })).toEqual({
      externalId: 42,
      balance: 0,
      availablePoints: 0,
      pendingPoints: 0,
      negativeBalance: null,
      nextExpiry: null,
      earnedLast12Months: 0,
      club: null,
      nextClub: null,
      clubQualification: {
        basis: "points-earned",
        period: "rolling-12-months",
        downgrade: "immediately",
        figure: 0,
        periodStart: expect.any(String),
        keptUntil: null,
      },
      transactions: [],
      nextCursor: null,
    });
  });
});

describe("GET /point/user-history/{externalId} refusals", () => {
  const good = (id = "42") => customerHash(id, shop.reference, shopKey);
  const refusals: [string, () => { externalId?: string; query: Record<string, string> }][] = [
    ["a wrong hash", () => ({ query: { hash: good("43"), domain: shop.domain } })],
    ["a missing hash", () => ({ query: { domain: shop.domain } })],
    ["an upper-case hash", () => ({ query: { hash: good().toUpperCase(), domain: shop.domain } })],
    ["an unknown domain", () => ({ query: { hash: good(), domain: "https://unknown.example" } })],
    ["a missing domain", () => ({ query: { hash: good() } })],
    [
      "a non-numeric externalId",
      () => ({ externalId: "abc", query: { hash: good("abc"), domain: shop.domain } }),
    ],
    [
      "a different externalId repeated in the query",
      () => ({ query: { hash: good(), domain: shop.domain, externalId: "43" } }),
    ],
    [
      "another store's key for this store's customer",
      () => ({
        query: { hash: customerHash("42", shop.reference, otherKey), domain: shop.domain },
      }),
    ],
  ];

  const get = (externalId: string, query: Record<string, string>, headers = {}) =>
    fetch(
      `${app.baseUrl}/point/user-history/${externalId}?${new URLSearchParams(query).toString()}`,
      {
        headers,
      },
    );

  it("refuses the path's id named again as a list in the query, even holding it", async () => {
    const query = new URLSearchParams({ hash: good(), domain: shop.domain });
    query.append("externalId", "42");
    query.append("externalId", "43");
    const response = await fetch(`${app.baseUrl}/point/user-history/42?${query.toString()}`);
    expect(response.status).toBe(401);
  });

  it.each(refusals)("refuses %s with 401 in the legacy format", async (_name, call) => {
    const { externalId = "42", query } = call();
    const response = await get(externalId, query);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.any(String),
    });
  });

  it.each(refusals)("refuses %s with a problem object from 2026-08-26", async (_name, call) => {
    const { externalId = "42", query } = call();
    const response = await get(externalId, query, { revision: "2026-08-26" });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({
      type: expect.stringMatching(/\/unauthorized$/),
      status: 401,
      title: "Unauthorized",
    });
  });

  it("refuses the same externalId repeated twice in the query, which names no one", async () => {
    const query = new URLSearchParams({ hash: good(), domain: shop.domain });
    query.append("externalId", "42");
    query.append("externalId", "42");
    const response = await fetch(`${app.baseUrl}/point/user-history/42?${query.toString()}`);
    expect(response.status).toBe(401);
  });
});
