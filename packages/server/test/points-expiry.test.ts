import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { pointsOf } from "./support/fixtures.js";
import { CUSTOMER, DAY, programme, type Shop } from "./support/programme.js";
import { startSmtpServer, type TestSmtpServer } from "./support/smtp.js";

// After the release of revision 2026-08-26, which the storefront flows speak: the service's
// clock is also the one of revision lifecycles.
const T0 = new Date("2026-09-10T10:00:00.000Z");
const at = (iso: string) => new Date(iso);

let smtp: TestSmtpServer;
let app: TestApp;
let admin: AdminSession;
let flows: ReturnType<typeof programme>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  app = await startTestApp({ workers: true, env: { SMTP_URL: smtp.url } });
  admin = await adminSession(app);
  flows = programme(app, admin);
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});
beforeEach(() => app.setNow(T0));

/** Moves the service's clock and runs the expiry job as its schedule would. */
async function expireAt(date: Date) {
  app.setNow(date);
  await flows.runJob("expire-points");
}

async function adjust(s: Shop, points: number) {
  const response = await admin.request(
    "POST",
    `/admin/stores/${s.store.id}/customers/${CUSTOMER}/adjustments`,
    { points, reason: "test" },
  );
  expect(response.status).toBe(201);
}

async function ledgerKinds(s: Shop) {
  const { rows } = await app.context.pool.query<{ kind: string; points: number }>(
    `SELECT t.kind, t.points FROM ledger_transactions t JOIN customers c ON c.id = t.customer_id
     WHERE c.store_id = $1 AND c.external_id = $2 ORDER BY t.id`,
    [s.store.id, CUSTOMER],
  );
  return rows.map((row) => [row.kind, Number(row.points)]);
}

describe("expiry off (the default)", () => {
  it("never expires points, whatever the time, and the history names no expiry", async () => {
    const s = await flows.shop(undefined);
    await flows.earn(s, 1, 100, T0);
    await expireAt(new Date(T0.getTime() + 600 * DAY));
    expect(await flows.history(s)).toMatchObject({ balance: 100, nextExpiry: null });
    expect(await flows.events(s, "POINTS_EXPIRING")).toEqual([]);
    expect(await ledgerKinds(s)).toEqual([["earn", 100]]);
  });
});

describe("a lifetime from earning", () => {
  it("warns before, by event and email, then expires what was not spent, oldest points first", async () => {
    const s = await flows.shop(
      { expiry: { mode: "lifetime", months: 12, warningDays: 30 } },
      { name: "Trail & Co" },
    );
    await flows.earn(s, 1, 100, T0);
    app.setNow(at("2026-11-10T10:00:00.000Z"));
    await flows.earn(s, 2, 50, at("2026-11-10T10:00:00.000Z"));
    // 30 points spent: the oldest, so 70 of the first order's are left.
    await adjust(s, -30);
    expect((await flows.history(s)).nextExpiry).toEqual({
      points: 70,
      expiresAt: "2027-09-10T10:00:00.000Z",
    });

    // The day before the warning: nothing.
    await expireAt(at("2027-08-10T09:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRING")).toEqual([]);

    await expireAt(at("2027-08-11T10:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRING")).toEqual([
      {
        customer: { externalId: CUSTOMER },
        points: 70,
        expiresAt: "2027-09-10T10:00:00.000Z",
        emailed: true,
      },
    ]);
    const mail = await eventually(() =>
      smtp.messages.find((message) => message.envelopeTo.includes("ada@example.com")),
    );
    expect(mail.subject).toBe("Your 70 points at Trail & Co expire soon");
    expect(mail.text).toContain(
      "70 of your loyalty points at Trail & Co expire on September 10, 2027.",
    );
    expect(mail.html).toContain(`href="${s.store.domain}"`);
    // Once per window: running again warns no more.
    await expireAt(at("2027-08-12T10:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRING")).toHaveLength(1);

    await expireAt(at("2027-09-10T09:59:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRED")).toEqual([]);
    await expireAt(at("2027-09-10T10:01:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRED")).toEqual([
      { customer: { externalId: CUSTOMER }, points: 70, balance: 50 },
    ]);
    const account = await flows.history(s);
    expect(account).toMatchObject({ balance: 50, availablePoints: 50 });
    expect(account.transactions[0]).toMatchObject({ kind: "expiry", points: -70 });
    expect(account.nextExpiry).toEqual({ points: 50, expiresAt: "2027-11-10T10:00:00.000Z" });

    // Again: nothing more is due.
    await expireAt(at("2027-09-11T10:00:00.000Z"));
    expect(await ledgerKinds(s)).toEqual([
      ["earn", 100],
      ["earn", 50],
      ["manual_adjustment", -30],
      ["expiry", -70],
    ]);
    expect(await pointsOf(app.context.pool, s.store.id, CUSTOMER)).toMatchObject({
      balance: 50,
      ledger: 50,
    });
  });

  it("gives points already due when expiry is turned on their full warning first", async () => {
    const s = await flows.shop(undefined, { language: "fr", name: "Boutique" });
    await flows.earn(s, 1, 120, T0);
    app.setNow(at("2027-02-01T08:00:00.000Z"));
    const saved = await admin.request("PUT", `/admin/stores/${s.store.id}/program-settings`, {
      expiry: { mode: "lifetime", months: 1, warningDays: 10 },
    });
    expect(saved.status).toBe(200);
    await eventually(async () =>
      (await flows.history(s)).nextExpiry?.expiresAt === "2027-02-11T08:00:00.000Z"
        ? true
        : undefined,
    );

    await expireAt(at("2027-02-01T08:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRING")).toEqual([
      expect.objectContaining({ points: 120, expiresAt: "2027-02-11T08:00:00.000Z" }),
    ]);
    const mail = await eventually(() =>
      smtp.messages.find((message) => message.subject?.includes("Boutique")),
    );
    expect(mail.subject).toBe("Vos 120 points chez Boutique expirent bientôt");
    expect(mail.text).toContain("expirent le 11 février 2027");

    await expireAt(at("2027-02-10T08:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRED")).toEqual([]);
    await expireAt(at("2027-02-11T08:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRED")).toEqual([
      { customer: { externalId: CUSTOMER }, points: 120, balance: 0 },
    ]);
  });

  it("never expires pending points: a lifetime must outlast the pending period", async () => {
    const s = await flows.shop({
      pendingDays: 20,
      expiry: { mode: "lifetime", months: 1, warningDays: 0 },
    });
    const refused = await admin.request("PUT", `/admin/stores/${s.store.id}/program-settings`, {
      pendingDays: 28,
      expiry: { mode: "lifetime", months: 1, warningDays: 0 },
    });
    expect(refused.status).toBe(400);
    await flows.earn(s, 1, 80, T0);
    await expireAt(new Date(T0.getTime() + 10 * DAY));
    expect(await flows.history(s)).toMatchObject({
      balance: 80,
      pendingPoints: 80,
      availablePoints: 0,
    });
    // Released after 20 days, expired after the month: never while pending.
    app.setNow(new Date(T0.getTime() + 21 * DAY));
    await flows.runJob("release-pending-points");
    await expireAt(new Date(T0.getTime() + 31 * DAY));
    expect(await ledgerKinds(s)).toEqual([
      ["earn", 80],
      ["expiry", -80],
    ]);
    expect(await flows.history(s)).toMatchObject({ balance: 0, pendingPoints: 0 });
  });

  it("lets a refund take back its own order's points, not the oldest ones", async () => {
    const s = await flows.shop({ expiry: { mode: "lifetime", months: 12, warningDays: 0 } });
    await flows.earn(s, 1, 100, T0);
    const later = new Date(T0.getTime() + 100 * DAY);
    app.setNow(later);
    await flows.earn(s, 2, 60, later);
    await flows.refund(s, 2, { status: "cancelled" });
    // Only the first order's points are left, and they keep their own date.
    expect((await flows.history(s)).nextExpiry).toEqual({
      points: 100,
      expiresAt: "2027-09-10T10:00:00.000Z",
    });
    await expireAt(at("2027-09-10T10:00:00.000Z"));
    expect(await ledgerKinds(s)).toEqual([
      ["earn", 100],
      ["earn", 60],
      ["refund_deduction", -60],
      ["expiry", -100],
    ]);
  });
});

describe("inactivity", () => {
  it("warns after months without earning or spending, and activity in between starts over", async () => {
    const s = await flows.shop({ expiry: { mode: "inactivity", months: 6, warningDays: 14 } });
    await flows.earn(s, 1, 200, T0);
    expect((await flows.history(s)).nextExpiry).toEqual({
      points: 200,
      expiresAt: "2027-03-10T10:00:00.000Z",
    });
    await expireAt(at("2027-02-24T10:00:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRING")).toEqual([
      {
        customer: { externalId: CUSTOMER },
        points: 200,
        expiresAt: "2027-03-10T10:00:00.000Z",
        emailed: true,
      },
    ]);
    // The customer claims a reward: that is activity, the clock starts over.
    app.setNow(at("2027-03-01T10:00:00.000Z"));
    expect((await flows.claim(s)).status).toBe(201);
    await expireAt(at("2027-03-10T10:01:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRED")).toEqual([]);
    expect((await flows.history(s)).nextExpiry).toEqual({
      points: 100,
      expiresAt: "2027-09-01T10:00:00.000Z",
    });

    await expireAt(at("2027-08-18T10:01:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRING")).toHaveLength(2);
    await expireAt(at("2027-09-01T10:01:00.000Z"));
    expect(await flows.events(s, "POINTS_EXPIRED")).toEqual([
      { customer: { externalId: CUSTOMER }, points: 100, balance: 0 },
    ]);
    expect(await flows.history(s)).toMatchObject({ balance: 0, nextExpiry: null });
  });
});

describe("the expiry job under load", () => {
  it("expires every due customer across batches, each once", async () => {
    const s = await flows.shop({ expiry: { mode: "lifetime", months: 1, warningDays: 0 } });
    const { pool } = app.context;
    // 120 customers with 30 points each, earned at T0 (as the workers would credit them).
    const { rows } = await pool.query<{ id: number }>(
      `INSERT INTO customers (store_id, external_id, email, last_activity_at)
       SELECT $1, 1000 + n, 'c' || n || '@example.com', $2 FROM generate_series(1, 120) n
       RETURNING id`,
      [s.store.id, T0],
    );
    const { appendLedgerEntries } = await import("../src/modules/ledger/ledger.repository.js");
    await appendLedgerEntries(
      pool,
      rows.map((row) => ({
        storeId: s.store.id,
        customerId: row.id,
        kind: "earn" as const,
        points: 30,
      })),
      T0,
    );
    // The job's steps at an instant of their own: the app's clock stays at T0, so the workers'
    // minute crontab, which runs the same job on that clock, finds nothing due of this store and
    // cannot take a share of its lots.
    const { program } = app.context.services;
    const expireAt40Days = async () => {
      const now = new Date(T0.getTime() + 40 * DAY);
      return {
        warned: await program.warnOfExpiry(now, 7),
        expired: await program.expireDue(now, 7),
      };
    };
    expect(await expireAt40Days()).toEqual({ warned: 0, expired: 120 });
    const { rows: sums } = await pool.query<{ balance: string; ledger: string; expired: number }>(
      `SELECT sum(c.balance) AS balance,
              (SELECT sum(points) FROM ledger_transactions WHERE store_id = $1) AS ledger,
              (SELECT count(*) FROM ledger_transactions
               WHERE store_id = $1 AND kind = 'expiry') AS expired
       FROM customers c WHERE c.store_id = $1`,
      [s.store.id],
    );
    expect(sums[0]).toEqual({ balance: "0", ledger: "0", expired: 120 });
    expect(await expireAt40Days()).toEqual({ warned: 0, expired: 0 });
  });
});
