import { randomBytes } from "node:crypto";
import {
  adminCustomerSchema,
  claimRewardResponseSchema,
  createReferralResponseSchema,
  customerErasureResponseSchema,
  customerExportSchema,
  customerHistoryResponseV2Schema,
  pointAdjustmentResponseSchema,
  problemSchema,
  refereeCodeResponseSchema,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import {
  addReward,
  addRule,
  customerWithPoints,
  hashFor,
  pointsOf,
  storeWithKey,
} from "./support/fixtures.js";
import { startSmtpServer, type TestSmtpServer } from "./support/smtp.js";

const LATEST = { revision: "2026-08-26" };

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

let app: TestApp;
let smtp: TestSmtpServer;
/** An admin of the whole service. */
let service: AdminSession;

beforeAll(async () => {
  // Referral invitations go out through a real (local) SMTP server rather than to files.
  smtp = await startSmtpServer();
  app = await startTestApp({ workers: true, env: { SMTP_URL: smtp.url } });
  service = await adminSession(app);
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

async function shop(): Promise<Shop> {
  const created = await storeWithKey(app, `https://shop-${randomBytes(4).toString("hex")}.example`);
  await addRule(app.context.pool, created.store.id, { kind: "default", rate: 1 });
  return created;
}

function customerPath(storeId: number, externalId: number | string, suffix = ""): string {
  return `/admin/stores/${storeId}/customers/${externalId}${suffix}`;
}

async function sql<T extends object = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await app.context.pool.query<T & Record<string, unknown>>(text, values)).rows;
}

async function expectProblem(response: Response, status: number, reason: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(await response.json());
  expect(problem.type).toMatch(new RegExp(`/${reason}$`));
  return problem;
}

/** What a refused request must leave as it was: customers, balances, the ledger. */
async function footprint(storeId: number) {
  return sql(
    `SELECT c.external_id, c.email, c.first_name, c.balance, c.reserved_points, c.erased_at,
            (SELECT count(*)::int FROM ledger_transactions l WHERE l.customer_id = c.id) AS entries
     FROM customers c WHERE c.store_id = $1 ORDER BY c.id`,
    [storeId],
  );
}

function storefront(s: Shop, path: string, externalId: number, init: RequestInit = {}) {
  const query = new URLSearchParams({
    domain: s.store.domain,
    hash: hashFor(s.store.reference, s.key, externalId),
  });
  return fetch(`${app.baseUrl}${path}?${query.toString()}`, {
    ...init,
    headers: { "content-type": "application/json", ...LATEST },
  });
}

async function history(s: Shop, externalId: number) {
  const response = await storefront(s, `/point/user-history/${externalId}`, externalId);
  expect(response.status).toBe(200);
  return customerHistoryResponseV2Schema.parse(await response.json());
}

async function registerOrder(s: Shop, order: Record<string, unknown>) {
  const response = await fetch(`${app.baseUrl}/api/order/register`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: s.authorization, ...LATEST },
    body: JSON.stringify({ currency: "EUR", ...order }),
  });
  expect(response.status).toBe(201);
  await eventually(async () => {
    const rows = await sql(
      `SELECT 1 FROM orders WHERE store_id = $1 AND external_id = $2 AND status = 'processed'`,
      [s.store.id, String(order.externalId)],
    );
    return rows.length === 1 ? true : undefined;
  });
}

describe("GET /admin/stores/{storeId}/customers/{externalId}", () => {
  it("answers the customer's profile, balance and reserved points", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 7, 120, "ada@example.com");
    await sql(
      `UPDATE customers SET first_name = 'Ada', last_name = 'Lovelace', language = 'en',
         reserved_points = 20
       WHERE store_id = $1 AND external_id = 7`,
      [s.store.id],
    );
    const response = await service.request("GET", customerPath(s.store.id, 7));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const customer = adminCustomerSchema.parse(await response.json());
    expect(customer).toEqual({
      externalId: 7,
      email: "ada@example.com",
      firstName: "Ada",
      lastName: "Lovelace",
      language: "en",
      balance: 120,
      reservedPoints: 20,
      pendingPoints: 0,
      createdAt: expect.any(String),
      erasedAt: null,
    });
    expect(Date.parse(customer.createdAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("answers not-found for a customer the store never met, and creates none", async () => {
    const s = await shop();
    const response = await service.request("GET", customerPath(s.store.id, 404));
    await expectProblem(response, 404, "not-found");
    expect(await footprint(s.store.id)).toEqual([]);
    await expectProblem(
      await service.request("GET", customerPath(s.store.id, "not-a-number")),
      404,
      "not-found",
    );
  });
});

describe("store boundaries", () => {
  let a: Shop;
  let b: Shop;
  let storeA: AdminSession;
  beforeAll(async () => {
    a = await shop();
    b = await shop();
    await customerWithPoints(app.context.pool, b.store.id, 55, 300, "bea@example.com");
    storeA = await adminSession(app, { storeReference: a.store.reference });
  });

  it("does not find store B's customer through store A's path", async () => {
    const before = await footprint(b.store.id);
    for (const session of [service, storeA]) {
      for (const [method, suffix, body] of [
        ["GET", "", undefined],
        ["GET", "/export", undefined],
        ["POST", "/adjustments", { points: -10, reason: "wrong store" }],
        ["DELETE", "", undefined],
      ] as const) {
        await expectProblem(
          await session.request(method, customerPath(a.store.id, 55, suffix), body),
          404,
          "not-found",
        );
      }
    }
    expect(await footprint(b.store.id)).toEqual(before);
    expect(await footprint(a.store.id)).toEqual([]);
  });

  it("refuses a store token on another store's customers with forbidden, changing nothing", async () => {
    const before = await footprint(b.store.id);
    for (const [method, suffix, body] of [
      ["GET", "", undefined],
      ["GET", "/export", undefined],
      ["POST", "/adjustments", { points: -10, reason: "not my store" }],
      ["DELETE", "", undefined],
    ] as const) {
      await expectProblem(
        await storeA.request(method, customerPath(b.store.id, 55, suffix), body),
        403,
        "forbidden",
      );
    }
    expect(await footprint(b.store.id)).toEqual(before);
    expect(before[0]).toMatchObject({ email: "bea@example.com", balance: 300, erased_at: null });
  });

  it("refuses a request without a token with unauthorized", async () => {
    const response = await fetch(`${app.baseUrl}${customerPath(b.store.id, 55)}`, {
      headers: LATEST,
    });
    await expectProblem(response, 401, "unauthorized");
  });
});

describe("POST /admin/stores/{storeId}/customers/{externalId}/adjustments", () => {
  it("credits points as a manual adjustment the customer sees in their history", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 8, 100);
    const response = await service.request("POST", customerPath(s.store.id, 8, "/adjustments"), {
      points: 50,
      reason: "  Goodwill: parcel arrived late  ",
    });
    expect(response.status).toBe(201);
    const body = pointAdjustmentResponseSchema.parse(await response.json());
    expect(body).toEqual({
      transaction: {
        id: expect.any(Number),
        kind: "manual_adjustment",
        points: 50,
        balanceAfter: 150,
        note: "Goodwill: parcel arrived late",
        orderExternalId: null,
        rewardId: null,
        referralId: null,
        activity: null,
        createdAt: expect.any(String),
        pendingPoints: 0,
        availableAt: null,
      },
      balance: 150,
    });
    expect(await pointsOf(app.context.pool, s.store.id, 8)).toEqual({
      balance: 150,
      ledger: 150,
      entries: 2,
    });

    const seen = await history(s, 8);
    expect(seen.balance).toBe(150);
    expect(seen.transactions[0]).toMatchObject({
      id: body.transaction.id,
      kind: "manual_adjustment",
      points: 50,
      balanceAfter: 150,
      note: "Goodwill: parcel arrived late",
      order: null,
    });
  });

  it("debits up to what the customer may spend, and refuses more naming /points", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 9, 100);
    // A claim waiting for the platform holds 30 of them.
    await sql(`UPDATE customers SET reserved_points = 30 WHERE store_id = $1`, [s.store.id]);
    const before = await footprint(s.store.id);

    const refused = await service.request("POST", customerPath(s.store.id, 9, "/adjustments"), {
      points: -71,
      reason: "Correction",
    });
    const problem = await expectProblem(refused, 400, "validation-failed");
    expect(problem.errors?.map((issue) => issue.pointer)).toEqual(["/points"]);
    expect(problem.detail).toContain("70 points are available");
    expect(await footprint(s.store.id)).toEqual(before);

    const accepted = await service.request("POST", customerPath(s.store.id, 9, "/adjustments"), {
      points: -70,
      reason: "Correction",
    });
    expect(accepted.status).toBe(201);
    expect(pointAdjustmentResponseSchema.parse(await accepted.json())).toMatchObject({
      transaction: { points: -70, balanceAfter: 30, note: "Correction" },
      balance: 30,
    });
    // Nothing left to spend: even one point is refused.
    const problemAfter = await expectProblem(
      await service.request("POST", customerPath(s.store.id, 9, "/adjustments"), {
        points: -1,
        reason: "Correction",
      }),
      400,
      "validation-failed",
    );
    expect(problemAfter.detail).toContain("0 points are available");
    expect(await pointsOf(app.context.pool, s.store.id, 9)).toEqual({
      balance: 30,
      ledger: 30,
      entries: 2,
    });
  });

  it("refuses a malformed adjustment with validation-failed, changing nothing", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 10, 100);
    const before = await footprint(s.store.id);
    const cases: [unknown, string[]][] = [
      [{ points: 0, reason: "Nothing" }, ["/points"]],
      [{ points: 10 }, ["/reason"]],
      [{ points: 10, reason: "   " }, ["/reason"]],
      [{ points: 1.5, reason: "Half a point" }, ["/points"]],
      [{ points: "10", reason: "Text" }, ["/points"]],
      [{ points: 2_000_000_000, reason: "Too many" }, ["/points"]],
      [{ reason: "No points" }, ["/points"]],
    ];
    for (const [body, pointers] of cases) {
      const response = await service.request(
        "POST",
        customerPath(s.store.id, 10, "/adjustments"),
        body,
      );
      const problem = await expectProblem(response, 400, "validation-failed");
      expect(problem.errors?.map((issue) => issue.pointer)).toEqual(pointers);
    }
    expect(await footprint(s.store.id)).toEqual(before);
    expect((await history(s, 10)).transactions).toHaveLength(1);
  });

  it("answers not-found for a customer the store never met, and creates none", async () => {
    const s = await shop();
    await expectProblem(
      await service.request("POST", customerPath(s.store.id, 11, "/adjustments"), {
        points: 10,
        reason: "Welcome",
      }),
      404,
      "not-found",
    );
    expect(await footprint(s.store.id)).toEqual([]);
  });

  it("never overdraws under concurrent debits", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 12, 100);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        service.request("POST", customerPath(s.store.id, 12, "/adjustments"), {
          points: -30,
          reason: "Concurrent debit",
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 201, 400, 400, 400, 400, 400, 400, 400]);
    expect(await pointsOf(app.context.pool, s.store.id, 12)).toEqual({
      balance: 10,
      ledger: 10,
      entries: 4,
    });
  });
});

describe("export and erasure", () => {
  const PROGRAM = {
    referrerBonus: 15,
    refereeVoucher: {
      kind: "fixed_amount" as const,
      value: 10,
      currency: "EUR",
      minimumOrderAmount: null,
      validityDays: 30,
    },
    landingUrl: null,
  };
  let s: Shop;
  let bobHash: string;
  let refereeCode: string;
  let claimCode: string;
  let rewardId: number;
  let ledgerBefore: Record<string, unknown>[];

  /** Every row of the store's personal-data-bearing tables, as text. */
  async function everything(): Promise<string> {
    const rows = await sql<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM customers t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM orders t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM refunds t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM referrals t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM reward_claims t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM sandbox_discount_codes t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM outbox_events t WHERE store_id = $1
       UNION ALL SELECT row_to_json(t)::text FROM ledger_transactions t WHERE store_id = $1`,
      [s.store.id],
    );
    return rows.map((row) => row.row).join("\n");
  }

  async function ledger() {
    return sql(`SELECT * FROM ledger_transactions WHERE store_id = $1 ORDER BY id`, [s.store.id]);
  }

  async function storefrontReferral(referrer: number, body: Record<string, unknown>) {
    const query = new URLSearchParams({
      externalId: String(referrer),
      domain: s.store.domain,
      hash: hashFor(s.store.reference, s.key, referrer),
    });
    const response = await fetch(`${app.baseUrl}/point/referral?${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...LATEST },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return createReferralResponseSchema.parse(await response.json());
  }

  beforeAll(async () => {
    s = await shop();
    await app.context.services.referrals.saveProgram(s.store.id, PROGRAM);
    ({ rewardId } = await addReward(app.context.pool, s.store.id, { triggerValue: 20 }));
    // Ada (1) invites Bob, who fetches his welcome code and then orders as customer 2.
    await customerWithPoints(app.context.pool, s.store.id, 1, 0, "ada@example.com");
    const invited = await storefrontReferral(1, {
      email: "Bob@Example.com",
      firstName: "Bob",
      lastName: "Builder",
    });
    bobHash = invited.hash;
    const code = await fetch(`${app.baseUrl}/reward/referral/get-referee-code`, {
      method: "POST",
      headers: { "content-type": "application/json", ...LATEST },
      body: JSON.stringify({ referralHash: bobHash }),
    });
    expect(code.status).toBe(201);
    refereeCode = refereeCodeResponseSchema.parse(await code.json()).code;
    await registerOrder(s, {
      externalId: 5001,
      externalReference: "#5001",
      customer: {
        externalId: 2,
        email: "Bob@Example.com",
        firstName: "Bob",
        lastName: "Builder",
        language: "fr",
      },
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 50 }],
    });
    // Bob spends 20 of his 50 points, invites Carol, and gets 5 points by hand.
    const claimed = await storefront(s, "/reward/claim/2", 2, {
      method: "POST",
      body: JSON.stringify({ rewardId }),
    });
    expect(claimed.status).toBe(201);
    claimCode = claimRewardResponseSchema.parse(await claimed.json()).code;
    await storefrontReferral(2, { email: "carol@example.com", firstName: "Carol" });
    const adjusted = await service.request("POST", customerPath(s.store.id, 2, "/adjustments"), {
      points: 5,
      reason: "Welcome gift",
    });
    expect(adjusted.status).toBe(201);
    // Settled: Ada's bonus for Bob's first order, and both invitations mailed.
    await eventually(async () =>
      (
        await sql(`SELECT 1 FROM referrals WHERE store_id = $1 AND invitation_sent_at IS NULL`, [
          s.store.id,
        ])
      ).length === 0
        ? true
        : undefined,
    );
    await eventually(async () =>
      (await pointsOf(app.context.pool, s.store.id, 1))?.balance ? true : undefined,
    );
  });

  it("exports everything held about the customer", async () => {
    const response = await service.request("GET", customerPath(s.store.id, 2, "/export"));
    expect(response.status).toBe(200);
    const exported = customerExportSchema.parse(await response.json());
    expect(Date.parse(exported.exportedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(exported.store).toEqual({ id: s.store.id, domain: s.store.domain });
    expect(exported.customer).toMatchObject({
      externalId: 2,
      email: "bob@example.com",
      firstName: "Bob",
      lastName: "Builder",
      language: "fr",
      balance: 35,
      reservedPoints: 0,
      erasedAt: null,
    });
    expect(exported.orders).toEqual([
      {
        externalId: "5001",
        externalReference: "#5001",
        currency: "EUR",
        orderedAt: expect.any(String),
        pointsEarned: 50,
        pointsDeducted: 0,
        refundStatus: null,
        payload: expect.objectContaining({
          customer: {
            externalId: 2,
            email: "Bob@Example.com",
            firstName: "Bob",
            lastName: "Builder",
            language: "fr",
          },
          lines: [expect.objectContaining({ lineId: 1, productId: 1, quantity: 1 })],
        }),
      },
    ]);
    expect(
      exported.transactions.map(({ kind, points, balanceAfter, note, orderExternalId }) => ({
        kind,
        points,
        balanceAfter,
        note,
        orderExternalId,
      })),
    ).toEqual([
      {
        kind: "manual_adjustment",
        points: 5,
        balanceAfter: 35,
        note: "Welcome gift",
        orderExternalId: null,
      },
      {
        kind: "reward_redemption",
        points: -20,
        balanceAfter: 30,
        note: null,
        orderExternalId: null,
      },
      { kind: "earn", points: 50, balanceAfter: 50, note: null, orderExternalId: "5001" },
    ]);
    expect(exported.transactions[1]?.rewardId).toBe(rewardId);
    expect(exported.claims).toEqual([
      {
        rewardId,
        code: claimCode,
        points: 20,
        status: "confirmed",
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
      },
    ]);
    expect(exported.referralsMade).toEqual([
      {
        id: expect.any(Number),
        email: "carol@example.com",
        firstName: "Carol",
        lastName: null,
        status: "pending",
        createdAt: expect.any(String),
        completedAt: null,
      },
    ]);
    const [bobReferral] = await sql<{ id: number }>(
      `SELECT id FROM referrals WHERE store_id = $1 AND email = 'bob@example.com'`,
      [s.store.id],
    );
    expect(exported.referredBy).toEqual({
      referralId: bobReferral?.id,
      referrerExternalId: 1,
      refereeCode,
    });
  });

  it("answers not-found when exporting a customer the store never met", async () => {
    await expectProblem(
      await service.request("GET", customerPath(s.store.id, 999, "/export")),
      404,
      "not-found",
    );
  });

  it("erases the customer's personal data everywhere, keeping the ledger and its sums", async () => {
    const pointsBefore = await pointsOf(app.context.pool, s.store.id, 2);
    ledgerBefore = await ledger();
    expect(await everything()).toMatch(/bob@example\.com/i);

    const response = await service.request("DELETE", customerPath(s.store.id, 2));
    expect(response.status).toBe(200);
    const erased = customerErasureResponseSchema.parse(await response.json());
    expect(erased).toEqual({ externalId: 2, erasedAt: expect.any(String), balance: 35 });

    // Nowhere in the store's data: not the address (any case), not the names.
    const after = await everything();
    expect(after).not.toMatch(/bob@example\.com/i);
    expect(after).not.toMatch(/Builder/);
    expect(after).not.toMatch(/"Bob"/);

    const [customer] = await sql(
      `SELECT email, first_name, last_name, language, erased_at, balance FROM customers
       WHERE store_id = $1 AND external_id = 2`,
      [s.store.id],
    );
    expect(customer).toEqual({
      email: null,
      first_name: null,
      last_name: null,
      language: null,
      erased_at: new Date(erased.erasedAt),
      balance: 35,
    });
    const [order] = await sql<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM orders WHERE store_id = $1 AND external_id = '5001'`,
      [s.store.id],
    );
    expect(order?.payload.customer).toEqual({ externalId: 2 });
    expect(order?.payload.lines).toEqual([expect.objectContaining({ productId: 1, quantity: 1 })]);

    const referrals = await sql(
      `SELECT r.email, r.first_name, r.last_name, r.language, r.hash_sealed, r.status,
              r.referee_code,
              r.referrer_customer_id = c.id AS made_by_bob
       FROM referrals r JOIN customers c ON c.store_id = r.store_id AND c.external_id = 2
       WHERE r.store_id = $1 ORDER BY r.id`,
      [s.store.id],
    );
    expect(referrals).toEqual([
      {
        email: expect.stringMatching(/^erased-[0-9a-f]{32}@invalid$/),
        first_name: null,
        last_name: null,
        language: null,
        hash_sealed: null,
        status: "completed",
        referee_code: refereeCode,
        made_by_bob: false,
      },
      // The person Bob invited is someone else: her data is not his to erase.
      {
        email: "carol@example.com",
        first_name: "Carol",
        last_name: null,
        language: null,
        hash_sealed: expect.any(Buffer),
        status: "pending",
        referee_code: expect.any(String),
        made_by_bob: true,
      },
    ]);
    const codes = await sql(
      `SELECT code, customer_email FROM sandbox_discount_codes WHERE store_id = $1`,
      [s.store.id],
    );
    expect(codes).toHaveLength(2);
    expect(codes).toEqual(
      expect.arrayContaining([
        { code: refereeCode, customer_email: null },
        { code: claimCode, customer_email: null },
      ]),
    );

    // The ledger is untouched, and the balance is still its sum.
    expect(await ledger()).toEqual(ledgerBefore);
    expect(await pointsOf(app.context.pool, s.store.id, 2)).toEqual(pointsBefore);
    // Ada, the referrer, keeps her data and her bonus.
    expect(
      await sql(`SELECT email, balance FROM customers WHERE store_id = $1 AND external_id = 1`, [
        s.store.id,
      ]),
    ).toEqual([{ email: "ada@example.com", balance: 15 }]);
  });

  it("keeps the account working after erasure: history, balance and export", async () => {
    const seen = await history(s, 2);
    expect(seen.balance).toBe(35);
    expect(seen.transactions.map((transaction) => transaction.kind)).toEqual([
      "manual_adjustment",
      "reward_redemption",
      "earn",
    ]);

    const exported = customerExportSchema.parse(
      await (await service.request("GET", customerPath(s.store.id, 2, "/export"))).json(),
    );
    expect(exported.customer).toMatchObject({
      email: null,
      firstName: null,
      lastName: null,
      language: null,
      balance: 35,
      erasedAt: expect.any(String),
    });
    expect(exported.orders.map((order) => order.payload)).toEqual([
      expect.objectContaining({ customer: { externalId: 2 } }),
    ]);
    expect(exported.transactions).toHaveLength(3);
    expect(exported.claims.map((claim) => claim.code)).toEqual([claimCode]);
    expect(exported.referredBy).toMatchObject({ referrerExternalId: 1, refereeCode });
    expect(JSON.stringify(exported)).not.toMatch(/bob@example\.com|Builder/i);
  });

  it("unlinks the invitation's hash from the erased referee", async () => {
    const response = await fetch(`${app.baseUrl}/reward/referral/get-referee-code`, {
      method: "POST",
      headers: { "content-type": "application/json", ...LATEST },
      body: JSON.stringify({ referralHash: bobHash }),
    });
    await expectProblem(response, 404, "not-found");
  });

  it("answers the same erasure when asked again, changing nothing", async () => {
    const [first] = await sql<{ erased_at: Date }>(
      `SELECT erased_at FROM customers WHERE store_id = $1 AND external_id = 2`,
      [s.store.id],
    );
    const before = await everything();
    const response = await service.request("DELETE", customerPath(s.store.id, 2));
    expect(response.status).toBe(200);
    expect(customerErasureResponseSchema.parse(await response.json())).toEqual({
      externalId: 2,
      erasedAt: first?.erased_at.toISOString(),
      balance: 35,
    });
    // As the first erasure left it (the anonymised referral keeps its placeholder), but for
    // the times rows were last touched.
    const untimed = (text: string) => text.replace(/"updated_at":"[^"]*"/g, "");
    expect(untimed(await everything())).toBe(untimed(before));
    expect(await ledger()).toEqual(ledgerBefore);
    const got = adminCustomerSchema.parse(
      await (await service.request("GET", customerPath(s.store.id, 2))).json(),
    );
    expect(got.erasedAt).toBe(first?.erased_at.toISOString());
  });

  it("erases a pending invitation of the customer's address", async () => {
    // Eve ordered before anyone knew her address; Ada then invited it, and Eve's next order
    // under it is not her first: the invitation stays pending, naming her only by address.
    await registerOrder(s, {
      externalId: 6001,
      customer: { externalId: 3 },
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 10 }],
    });
    await storefrontReferral(1, { email: "eve@example.com", firstName: "Eve" });
    await registerOrder(s, {
      externalId: 6002,
      customer: { externalId: 3, email: "eve@example.com", firstName: "Eve" },
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 10 }],
    });
    const exported = customerExportSchema.parse(
      await (await service.request("GET", customerPath(s.store.id, 3, "/export"))).json(),
    );
    expect(exported.referredBy).toEqual({
      referralId: expect.any(Number),
      referrerExternalId: 1,
      refereeCode: null,
    });

    const response = await service.request("DELETE", customerPath(s.store.id, 3));
    expect(response.status).toBe(200);
    expect(await everything()).not.toMatch(/eve@example\.com|"Eve"/i);
    const [referral] = await sql(`SELECT email, first_name, status FROM referrals WHERE id = $1`, [
      exported.referredBy?.referralId,
    ]);
    expect(referral).toEqual({
      email: expect.stringMatching(/^erased-[0-9a-f]{32}@invalid$/),
      first_name: null,
      status: "pending",
    });
  });

  it("makes an erased customer who orders again with their details a customer again", async () => {
    const returning = await shop();
    await registerOrder(returning, {
      externalId: 7001,
      customer: { externalId: 8, email: "zoe@example.com", firstName: "Zoe" },
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 40 }],
    });
    expect((await service.request("DELETE", customerPath(returning.store.id, 8))).status).toBe(200);
    await registerOrder(returning, {
      externalId: 7002,
      customer: { externalId: 8, email: "zoe.new@example.com", firstName: "Zoe" },
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 10 }],
    });
    const customer = adminCustomerSchema.parse(
      await (await service.request("GET", customerPath(returning.store.id, 8))).json(),
    );
    expect(customer).toMatchObject({ email: "zoe.new@example.com", erasedAt: null, balance: 50 });
    // Claims know the customer again.
    const { rewardId } = await addReward(app.context.pool, returning.store.id, {
      triggerValue: 30,
    });
    const claim = await storefront(returning, "/reward/claim/8", 8, {
      method: "POST",
      body: JSON.stringify({ rewardId }),
    });
    expect(claim.status).toBe(201);
    // The first order's payload stays scrubbed.
    const [first] = await sql<{ payload: { customer: unknown } }>(
      `SELECT payload FROM orders WHERE store_id = $1 AND external_id = '7001'`,
      [returning.store.id],
    );
    expect(first?.payload.customer).toEqual({ externalId: 8 });
  });

  it("answers not-found when erasing a customer the store never met", async () => {
    const before = await everything();
    await expectProblem(
      await service.request("DELETE", customerPath(s.store.id, 999)),
      404,
      "not-found",
    );
    expect(await everything()).toBe(before);
  });
});
