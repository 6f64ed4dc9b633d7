import { randomBytes } from "node:crypto";
import {
  adminCustomerSummarySchema,
  customerHistoryResponseV2Schema,
  customerSearchResponseSchema,
  customerTransactionsResponseSchema,
  problemSchema,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendLedgerEntries } from "../src/modules/ledger/ledger.repository.js";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { addClub, addRule, customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";

const LATEST = { revision: "2026-08-26" };

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

let app: TestApp;
/** An admin of the whole service. */
let service: AdminSession;

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  service = await adminSession(app);
});
afterAll(() => app.close());

function shop(): Promise<Shop> {
  return storeWithKey(app, `https://shop-${randomBytes(4).toString("hex")}.example`);
}

async function sql<T extends object = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await app.context.pool.query<T & Record<string, unknown>>(text, values)).rows;
}

/** Customers with these ids and emails, created in this order (the last is the newest). */
async function addCustomers(storeId: number, customers: [number, string | null][]) {
  for (const [externalId, email] of customers) {
    await customerWithPoints(app.context.pool, storeId, externalId, 0, email);
  }
}

async function expectProblem(response: Response, status: number, reason: string) {
  expect(response.status).toBe(status);
  const problem = problemSchema.parse(await response.json());
  expect(problem.type).toMatch(new RegExp(`/${reason}$`));
  return problem;
}

async function search(storeId: number, query: Record<string, string> = {}, as = service) {
  const response = await as.request(
    "GET",
    `/admin/stores/${storeId}/customers?${new URLSearchParams(query).toString()}`,
  );
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return customerSearchResponseSchema.parse(await response.json());
}

async function found(storeId: number, query: string): Promise<(string | number | null)[]> {
  const page = await search(storeId, { query });
  return page.customers.map((customer) => customer.email ?? customer.externalId);
}

async function transactions(
  storeId: number,
  externalId: number | string,
  query: Record<string, string> = {},
) {
  return service.request(
    "GET",
    `/admin/stores/${storeId}/customers/${externalId}/transactions?${new URLSearchParams(query).toString()}`,
  );
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

describe("GET /admin/stores/{storeId}/customers", () => {
  let s: Shop;
  beforeAll(async () => {
    s = await shop();
    await addCustomers(s.store.id, [
      [42, "ada.lovelace@example.com"],
      [420, "Ada.Byron@Example.org"],
      [4242, "42nd@example.com"],
      [7, "bada@example.com"],
      [8, "a_b@example.com"],
      [9, "axb@example.com"],
      [10, "a%c@example.com"],
      [11, "abc@example.com"],
      [12, "a\\d@example.com"],
      [13, "ÉLODIE@example.com"],
    ]);
  });

  it("finds a customer by their exact id, and no other id that starts with it", async () => {
    expect(await found(s.store.id, "7")).toEqual(["bada@example.com"]);
    expect(await found(s.store.id, "4242")).toEqual(["42nd@example.com"]);
    expect(await found(s.store.id, " 420 ")).toEqual(["Ada.Byron@Example.org"]);
    expect(await found(s.store.id, "1")).toEqual([]);
    // Beyond the range of ids: nobody, not an error.
    expect(await found(s.store.id, "99999999999999999999")).toEqual([]);
  });

  it("takes digits as an id and as the start of an email too, newest first, each once", async () => {
    expect(await found(s.store.id, "42")).toEqual(["42nd@example.com", "ada.lovelace@example.com"]);
    expect(await found(s.store.id, "4")).toEqual(["42nd@example.com"]);

    const t = await shop();
    await addCustomers(t.store.id, [
      [1234, "someone@example.com"],
      [7, "1234shop@example.com"],
      [12345, "other@example.com"],
      [8, "1234SHOP@Example.org"],
      [55, "55@example.com"],
      [9, "99999999999999999999@example.com"],
    ]);
    expect(await found(t.store.id, "1234")).toEqual([
      "1234SHOP@Example.org",
      "1234shop@example.com",
      "someone@example.com",
    ]);
    expect(await found(t.store.id, "55")).toEqual(["55@example.com"]);
    // Beyond the range of ids: still the start of an address.
    expect(await found(t.store.id, "99999999999999999999")).toEqual([
      "99999999999999999999@example.com",
    ]);
    const first = await search(t.store.id, { query: "1234", limit: "2" });
    expect(first.customers.map((c) => c.externalId)).toEqual([8, 7]);
    const next = await search(t.store.id, {
      query: "1234",
      limit: "2",
      cursor: first.nextCursor as string,
    });
    expect(next.customers.map((c) => c.externalId)).toEqual([1234]);
    expect(next.nextCursor).toBeNull();
  });

  it("finds customers by the start of their email in any case, newest first", async () => {
    expect(await found(s.store.id, "ADA.")).toEqual([
      "Ada.Byron@Example.org",
      "ada.lovelace@example.com",
    ]);
    expect(await found(s.store.id, "ada.byron@EXAMPLE")).toEqual(["Ada.Byron@Example.org"]);
    expect(await found(s.store.id, "élodie")).toEqual(["ÉLODIE@example.com"]);
    // The start, not anywhere in the address.
    expect(await found(s.store.id, "da.")).toEqual([]);
    expect(await found(s.store.id, "42n")).toEqual(["42nd@example.com"]);
  });

  it("takes %, _ and \\ in the query literally", async () => {
    expect(await found(s.store.id, "a_")).toEqual(["a_b@example.com"]);
    expect(await found(s.store.id, "a%")).toEqual(["a%c@example.com"]);
    expect(await found(s.store.id, "a\\")).toEqual(["a\\d@example.com"]);
    expect(await found(s.store.id, "%")).toEqual([]);
    expect(await found(s.store.id, "_")).toEqual([]);
  });

  it("lists erased customers, without their email, and finds them by id", async () => {
    const t = await shop();
    await addCustomers(t.store.id, [
      [1, "kept@example.com"],
      [2, "gone@example.com"],
    ]);
    expect(
      (await service.request("DELETE", `/admin/stores/${t.store.id}/customers/2`)).status,
    ).toBe(200);
    const all = await search(t.store.id);
    expect(all.customers.map((c) => [c.externalId, c.email, c.erasedAt !== null])).toEqual([
      [2, null, true],
      [1, "kept@example.com", false],
    ]);
    expect(await found(t.store.id, "2")).toEqual([2]);
    expect(await found(t.store.id, "gone")).toEqual([]);
  });

  it("pages through 60 customers in 3 pages, newest first, with no duplicate or gap", async () => {
    const t = await shop();
    const ids = Array.from({ length: 60 }, (_, index) => 1000 + index);
    await addCustomers(
      t.store.id,
      ids.map((id) => [id, `c${id}@example.com`]),
    );
    const pages: number[][] = [];
    let cursor: string | null = null;
    do {
      const page = await search(t.store.id, cursor === null ? {} : { cursor });
      pages.push(page.customers.map((customer) => customer.externalId));
      cursor = page.nextCursor;
      // A customer arriving meanwhile is newer than the pages read: it moves nothing.
      if (pages.length === 1) await addCustomers(t.store.id, [[5000, "late@example.com"]]);
    } while (cursor !== null && pages.length < 5);
    expect(pages.map((page) => page.length)).toEqual([25, 25, 10]);
    expect(pages.flat()).toEqual([...ids].reverse());

    // A page size of the query, and the email search pages the same way.
    const small = await search(t.store.id, { query: "C10", limit: "7" });
    expect(small.customers.map((c) => c.externalId)).toEqual([
      1059, 1058, 1057, 1056, 1055, 1054, 1053,
    ]);
    const next = await search(t.store.id, {
      query: "C10",
      limit: "7",
      cursor: small.nextCursor as string,
    });
    expect(next.customers.map((c) => c.externalId)).toEqual([
      1052, 1051, 1050, 1049, 1048, 1047, 1046,
    ]);
    // The last page of an exact count says there is no next one.
    const exact = await search(t.store.id, { query: "c100", limit: "10" });
    expect(exact.customers).toHaveLength(10);
    expect(exact.nextCursor).toBeNull();
  });

  it("refuses a cursor it did not issue, and bad page sizes, with validation-failed", async () => {
    const { nextCursor } = await search(s.store.id, { limit: "1" });
    expect(nextCursor).toEqual(expect.any(String));
    for (const cursor of ["AAAA", "MA", "LTE", "bm90LWFuLWlk", `${nextCursor as string}A`, "!!"]) {
      const problem = await expectProblem(
        await service.request("GET", `/admin/stores/${s.store.id}/customers?cursor=${cursor}`),
        400,
        "validation-failed",
      );
      expect(problem["errors"]).toEqual([
        expect.objectContaining({ location: "query", pointer: "/cursor" }),
      ]);
    }
    for (const limit of ["0", "101", "ten"]) {
      await expectProblem(
        await service.request("GET", `/admin/stores/${s.store.id}/customers?limit=${limit}`),
        400,
        "validation-failed",
      );
    }
  });

  it("refuses a query with a NUL or another control character, with validation-failed", async () => {
    for (const query of ["%00", "ann%00", "a%0Ab", "%7F"]) {
      const problem = await expectProblem(
        await service.request("GET", `/admin/stores/${s.store.id}/customers?query=${query}`),
        400,
        "validation-failed",
      );
      expect(problem["errors"]).toEqual([
        expect.objectContaining({ location: "query", pointer: "/query" }),
      ]);
    }
  });

  it("never shows another store's customers", async () => {
    const a = await shop();
    const b = await shop();
    await addCustomers(a.store.id, [[1, "anna@a.example"]]);
    await addCustomers(b.store.id, [
      [1, "anna@b.example"],
      [2, "anne@b.example"],
    ]);
    expect(await found(a.store.id, "ann")).toEqual(["anna@a.example"]);
    expect(await found(a.store.id, "2")).toEqual([]);
    expect((await search(a.store.id)).customers.map((c) => c.email)).toEqual(["anna@a.example"]);

    const storeA = await adminSession(app, { storeReference: a.store.reference });
    expect((await search(a.store.id, {}, storeA)).customers).toHaveLength(1);
    await expectProblem(
      await storeA.request("GET", `/admin/stores/${b.store.id}/customers`),
      403,
      "forbidden",
    );
    await expectProblem(
      await storeA.request("GET", `/admin/stores/${b.store.id}/customers/1/transactions`),
      403,
      "forbidden",
    );
  });

  it("gives each customer the points of the last 12 months and the club they reach", async () => {
    const t = await shop();
    await addRule(app.context.pool, t.store.id, { kind: "default", rate: 1 });
    const silver = await addClub(app.context.pool, t.store.id, {
      name: "Silver",
      threshold: 100,
      multiplier: 1.2,
    });
    const gold = await addClub(app.context.pool, t.store.id, {
      name: "Gold",
      threshold: 500,
      multiplier: 1.5,
    });
    const customer = { externalId: 77, email: "vip@example.com" };
    // 300 points, then 250 × 1.2 = 300 as a Silver member: 600 earned, Gold.
    await registerOrder(t, {
      externalId: 1,
      customer,
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 300 }],
    });
    await registerOrder(t, {
      externalId: 2,
      customer,
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 250 }],
    });
    const [row] = await sql<{ id: number }>(
      `SELECT id FROM customers WHERE store_id = $1 AND external_id = 77`,
      [t.store.id],
    );
    const customerId = (row as { id: number }).id;
    // Neither counts: a manual credit, and an earn of 13 months ago.
    await appendLedgerEntries(app.context.pool, [
      { storeId: t.store.id, customerId, kind: "manual_adjustment", points: 1000, note: "gift" },
    ]);
    await sql(
      `WITH credited AS (
         UPDATE customers SET balance = balance + 5000 WHERE id = $2 RETURNING balance
       )
       INSERT INTO ledger_transactions (store_id, customer_id, kind, points, balance_after, created_at)
       SELECT $1, $2, 'earn', 5000, balance, now() - interval '13 months' FROM credited`,
      [t.store.id, customerId],
    );
    await addCustomers(t.store.id, [[78, "new@example.com"]]);
    await customerWithPoints(app.context.pool, t.store.id, 79, 900, "gift@example.com");
    await registerOrder(t, {
      externalId: 3,
      customer: { externalId: 80, email: "silver@example.com" },
      lines: [{ lineId: 1, productId: 1, quantity: 3, unitPrice: 50 }],
    });

    const page = await search(t.store.id);
    expect(
      page.customers.map((c) => ({
        externalId: c.externalId,
        earnedLast12Months: c.earnedLast12Months,
        club: c.club,
      })),
    ).toEqual([
      {
        externalId: 80,
        earnedLast12Months: 150,
        club: { id: silver, name: "Silver", multiplier: 1.2 },
      },
      { externalId: 79, earnedLast12Months: 0, club: null },
      { externalId: 78, earnedLast12Months: 0, club: null },
      {
        externalId: 77,
        earnedLast12Months: 600,
        club: { id: gold, name: "Gold", multiplier: 1.5 },
      },
    ]);
    expect(page.customers[3]).toMatchObject({ balance: 6600, email: "vip@example.com" });

    // The customer's page reads the same standing in one request.
    for (const summary of page.customers) {
      const one = await service.request(
        "GET",
        `/admin/stores/${t.store.id}/customers/${summary.externalId}`,
      );
      expect(one.status).toBe(200);
      // The same standing; a rolling period starts a few milliseconds later.
      expect(adminCustomerSummarySchema.parse(await one.json())).toEqual({
        ...summary,
        clubQualification: { ...summary.clubQualification, periodStart: expect.any(String) },
      });
    }

    // As the customer's own history says.
    const query = new URLSearchParams({
      domain: t.store.domain,
      hash: hashFor(t.store.reference, t.key, 77),
    });
    const response = await fetch(`${app.baseUrl}/point/user-history/77?${query.toString()}`, {
      headers: LATEST,
    });
    const history = customerHistoryResponseV2Schema.parse(await response.json());
    expect(history.earnedLast12Months).toBe(600);
    expect(history.club?.id).toBe(gold);

    // The window rolls: a year and a day later nothing of it is left.
    const now = Date.now();
    try {
      app.setNow(new Date(now + 364 * 86_400_000));
      expect((await search(t.store.id, { query: "77" })).customers[0]).toMatchObject({
        earnedLast12Months: 600,
        club: { id: gold },
      });
      app.setNow(new Date(now + 367 * 86_400_000));
      expect((await search(t.store.id, { query: "vip" })).customers[0]).toMatchObject({
        earnedLast12Months: 0,
        club: null,
      });
    } finally {
      app.setNow(new Date(now));
    }
  });
});

describe("GET /admin/stores/{storeId}/customers/{externalId}/transactions", () => {
  it("pages through the ledger newest first, each entry once, with its cause", async () => {
    const s = await shop();
    await addRule(app.context.pool, s.store.id, { kind: "default", rate: 1 });
    const customerId = await customerWithPoints(app.context.pool, s.store.id, 5, 0, "l@x.example");
    for (let n = 1; n <= 29; n++) {
      await appendLedgerEntries(app.context.pool, [
        { storeId: s.store.id, customerId, kind: "manual_adjustment", points: n, note: `#${n}` },
      ]);
    }
    await registerOrder(s, {
      externalId: 9001,
      customer: { externalId: 5 },
      lines: [{ lineId: 1, productId: 1, quantity: 2, unitPrice: 10 }],
    });

    const seen: { id: number; points: number; note: string | null }[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await transactions(
        s.store.id,
        5,
        cursor === null ? { limit: "12" } : { limit: "12", cursor },
      );
      expect(response.status).toBe(200);
      const page = customerTransactionsResponseSchema.parse(await response.json());
      sizes.push(page.transactions.length);
      seen.push(...page.transactions);
      cursor = page.nextCursor;
    } while (cursor !== null && sizes.length < 5);
    expect(sizes).toEqual([12, 12, 6]);
    const ids = seen.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(30);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(seen[0]).toMatchObject({
      kind: "earn",
      points: 20,
      balanceAfter: 455,
      orderExternalId: "9001",
      note: null,
    });
    expect(seen.slice(1).map((entry) => entry.note)).toEqual(
      Array.from({ length: 29 }, (_, index) => `#${29 - index}`),
    );
  });

  it("answers an empty ledger for a customer without transactions", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 6, 0);
    const response = await transactions(s.store.id, 6);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ transactions: [], nextCursor: null });
  });

  it("answers not-found for a customer the store never met, even one of another store", async () => {
    const a = await shop();
    const b = await shop();
    await customerWithPoints(app.context.pool, b.store.id, 8, 50);
    await expectProblem(await transactions(a.store.id, 8), 404, "not-found");
    await expectProblem(await transactions(a.store.id, "nobody"), 404, "not-found");
    expect((await transactions(b.store.id, 8)).status).toBe(200);
  });

  it("refuses a cursor it did not issue with validation-failed", async () => {
    const s = await shop();
    await customerWithPoints(app.context.pool, s.store.id, 9, 50);
    for (const cursor of ["AAAA", "MA", "x y"]) {
      const problem = await expectProblem(
        await transactions(s.store.id, 9, { cursor }),
        400,
        "validation-failed",
      );
      expect(problem["errors"]).toEqual([
        expect.objectContaining({ location: "query", pointer: "/cursor" }),
      ]);
    }
  });
});
