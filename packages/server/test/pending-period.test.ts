import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { pointsOf } from "./support/fixtures.js";
import { CUSTOMER, DAY, programme, type Shop } from "./support/programme.js";

const NOW = new Date("2026-11-20T10:00:00.000Z");

let app: TestApp;
let admin: AdminSession;
let flows: ReturnType<typeof programme>;

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  admin = await adminSession(app);
  flows = programme(app, admin);
});
afterAll(() => app.close());
beforeEach(() => app.setNow(NOW));

const shop = (pendingDays: number | undefined) =>
  flows.shop(pendingDays === undefined ? undefined : { pendingDays });
const earn = (s: Shop, id: number, amount: number, orderedAt = NOW) =>
  flows.earn(s, id, amount, orderedAt);
const refund = (s: Shop, id: number, body: Record<string, unknown>) => flows.refund(s, id, body);
const history = (s: Shop) => flows.history(s);
const claim = (s: Shop) => flows.claim(s);
const events = (s: Shop, type: "POINTS_EARNED" | "POINTS_DEDUCTED") => flows.events(s, type);
const runReleaseJob = () => flows.runJob("release-pending-points");

describe("programme settings", () => {
  it("are the spec's defaults until set, replaced whole, and refused with the field named", async () => {
    const s = await shop(undefined);
    const path = `/admin/stores/${s.store.id}/program-settings`;
    const read = await admin.request("GET", path);
    expect(read.status).toBe(200);
    const defaults = {
      pendingDays: 0,
      expiry: { mode: "off" },
      activities: [],
      clubs: { basis: "points-earned", period: "rolling-12-months", downgrade: "immediately" },
    };
    expect(await read.json()).toEqual(defaults);

    expect((await admin.request("PUT", path, { pendingDays: 30 })).status).toBe(200);
    for (const bad of [
      { pendingDays: -1 },
      { pendingDays: 366 },
      { pendingDays: 1.5 },
      { other: 1 },
    ]) {
      const refused = await admin.request("PUT", path, bad);
      expect(refused.status).toBe(400);
      const problem = (await refused.json()) as { errors: { pointer: string }[] };
      expect(problem.errors.map((issue) => issue.pointer)).toEqual([
        "other" in bad ? "/other" : "/pendingDays",
      ]);
    }
    expect(await (await admin.request("GET", path)).json()).toEqual({
      ...defaults,
      pendingDays: 30,
    });
    // A setting left out goes back to its default.
    expect(await (await admin.request("PUT", path, {})).json()).toEqual(defaults);
  });
});

describe("without a pending period (the default)", () => {
  it("makes points spendable at once and says nothing of pending points", async () => {
    const s = await shop(undefined);
    await earn(s, 1, 150);
    const account = await history(s);
    expect(account).toMatchObject({
      balance: 150,
      availablePoints: 150,
      pendingPoints: 0,
      negativeBalance: null,
    });
    expect(account.transactions[0]).toMatchObject({
      kind: "earn",
      pendingPoints: 0,
      availableAt: null,
      pending: false,
    });
    const [earned] = await events(s, "POINTS_EARNED");
    expect(earned).toEqual({
      order: { externalId: "1", externalReference: null },
      customer: { externalId: CUSTOMER },
      points: 150,
      balance: 150,
    });
    expect((await claim(s)).status).toBe(201);
  });

  it("explains a balance a refund took below zero after the points were spent", async () => {
    const s = await shop(undefined);
    await earn(s, 1, 120);
    expect((await claim(s)).status).toBe(201);
    await refund(s, 1, { status: "cancelled" });
    const account = await history(s);
    const deduction = account.transactions.find((t) => t.kind === "refund_deduction");
    expect(account).toMatchObject({
      balance: -100,
      availablePoints: -100,
      negativeBalance: {
        points: 100,
        reason: "refund-after-spending",
        transactionId: deduction?.id,
      },
    });
  });
});

describe("a pending period", () => {
  it("holds an order's points until it ends, then the release job makes them spendable", async () => {
    const s = await shop(14);
    await earn(s, 1, 150);
    const availableAt = new Date(NOW.getTime() + 14 * DAY).toISOString();

    const held = await history(s);
    expect(held).toMatchObject({ balance: 150, availablePoints: 0, pendingPoints: 150 });
    expect(held.transactions[0]).toMatchObject({
      kind: "earn",
      points: 150,
      pendingPoints: 150,
      availableAt,
      pending: true,
    });
    expect((await events(s, "POINTS_EARNED"))[0]).toMatchObject({
      points: 150,
      balance: 150,
      availableAt,
    });
    // Pending points cannot be spent: not by a claim, not by a debit in the back-office.
    expect(await claim(s)).toEqual({
      status: 404,
      body: { code: null, reason: "insufficient-balance" },
    });
    const debit = await admin.request(
      "POST",
      `/admin/stores/${s.store.id}/customers/${CUSTOMER}/adjustments`,
      { points: -10, reason: "test" },
    );
    expect(debit.status).toBe(400);

    // The job before the date frees nothing.
    app.setNow(new Date(NOW.getTime() + 13 * DAY));
    await runReleaseJob();
    expect(await history(s)).toMatchObject({ availablePoints: 0, pendingPoints: 150 });

    app.setNow(new Date(NOW.getTime() + 14 * DAY));
    await runReleaseJob();
    const released = await history(s);
    expect(released).toMatchObject({ balance: 150, availablePoints: 150, pendingPoints: 0 });
    expect(released.transactions[0]).toMatchObject({ availableAt, pending: false });
    const claimed = await claim(s);
    expect(claimed.status).toBe(201);
    expect(await history(s)).toMatchObject({ balance: 50, availablePoints: 50, pendingPoints: 0 });
  });

  it("lets a refund within the period take back pending points first: spend-then-refund cannot go negative", async () => {
    const s = await shop(14);
    // An older order, out of its window: spendable at once.
    await earn(s, 1, 100, new Date(NOW.getTime() - 20 * DAY));
    await earn(s, 2, 200);
    expect(await history(s)).toMatchObject({
      balance: 300,
      availablePoints: 100,
      pendingPoints: 200,
    });
    expect((await claim(s)).status).toBe(201);
    expect(await history(s)).toMatchObject({ balance: 200, availablePoints: 0 });

    await refund(s, 2, { status: "partially_refunded", creditNoteId: "CN-1", refundedAmount: 50 });
    await refund(s, 2, { status: "cancelled", creditNoteId: "CN-2" });
    const account = await history(s);
    expect(account).toMatchObject({
      balance: 0,
      availablePoints: 0,
      pendingPoints: 0,
      negativeBalance: null,
    });
    const deductions = account.transactions.filter((t) => t.kind === "refund_deduction");
    expect(deductions.map((t) => [t.points, t.pendingPoints])).toEqual([
      [-150, -150],
      [-50, -50],
    ]);
    expect(await events(s, "POINTS_DEDUCTED")).toEqual([
      expect.objectContaining({ points: 50, balance: 150, pendingPoints: 50 }),
      expect.objectContaining({ points: 150, balance: 0, pendingPoints: 150 }),
    ]);
    // Nothing left to free.
    app.setNow(new Date(NOW.getTime() + 15 * DAY));
    await runReleaseJob();
    expect(await history(s)).toMatchObject({ balance: 0, availablePoints: 0, pendingPoints: 0 });
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({
      balance: 0,
      ledger: 0,
    });
  });

  it("takes a refund after the period from what the customer can spend, and says why it is negative", async () => {
    const s = await shop(7);
    await earn(s, 1, 100);
    app.setNow(new Date(NOW.getTime() + 8 * DAY));
    await runReleaseJob();
    expect((await claim(s)).status).toBe(201);
    await earn(s, 2, 80, new Date(NOW.getTime() + 8 * DAY));
    await refund(s, 1, { status: "refunded" });
    const account = await history(s);
    expect(account).toMatchObject({
      balance: -20,
      availablePoints: -100,
      pendingPoints: 80,
      negativeBalance: { points: 100, reason: "refund-after-spending" },
    });
  });

  it("keeps every customer's pending points equal to their held lots while refunds race the release job", async () => {
    const s = await shop(10);
    const orders = Array.from({ length: 30 }, (_, index) => 100 + index);
    for (const id of orders) await earn(s, id, 10);
    app.setNow(new Date(NOW.getTime() + 10 * DAY));
    await Promise.all([
      ...orders.map((id) => refund(s, id, { status: "cancelled" })),
      runReleaseJob(),
      app.context.services.program.releaseDuePoints(3),
    ]);
    await runReleaseJob();
    const { rows } = await app.context.pool.query<{
      balance: number;
      pending: number;
      held: number;
      ledger: number;
    }>(
      `SELECT c.balance, c.pending_points AS pending,
              (SELECT coalesce(sum(points), 0) FROM earning_lots l
               WHERE l.customer_id = c.id AND l.released_at IS NULL)::bigint AS held,
              (SELECT coalesce(sum(points), 0) FROM ledger_transactions t
               WHERE t.customer_id = c.id)::bigint AS ledger
       FROM customers c WHERE c.store_id = $1`,
      [s.store.id],
    );
    const [customer] = rows;
    // Every order was cancelled: nothing is left, whichever came first for each.
    expect(customer).toEqual({ balance: 0, pending: 0, held: 0, ledger: 0 });
  });
});
