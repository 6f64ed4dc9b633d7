import { randomBytes, randomUUID } from "node:crypto";
import {
  ADMIN_OPERATIONS,
  OPERATIONS,
  claimRefusalSchema,
  claimRewardResponseSchema,
  createdApiKeySchema,
  problemSchema,
  type OperationDefinition,
} from "@loyalty/shared-types";
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { taskList } from "../src/jobs/tasks.js";
import { appendLedgerEntries } from "../src/modules/ledger/ledger.repository.js";
import { adminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import {
  addReward,
  addRule,
  customerWithPoints,
  hashFor,
  pointsOf,
  storeWithKey,
} from "./support/fixtures.js";

/**
 * Idempotency-Key on the POST operations: one run per key and request, its response answered
 * again to a retry, keys of different senders apart, and nothing different without the header.
 */

const LATEST = { revision: "2026-08-26" };
const PROBLEMS = "https://loyalty.dev/problems";
const PLATFORM_TIMEOUT_MS = 10_000;
const WOO = "https://woo-idempotency.test";

const mock = setupServer();
let app: TestApp;
beforeAll(async () => {
  mock.listen({ onUnhandledRequest: "bypass" });
  app = await startTestApp({
    workers: true,
    env: { PLATFORM_TIMEOUT_MS: String(PLATFORM_TIMEOUT_MS) },
  });
});
afterEach(() => mock.resetHandlers());
afterAll(async () => {
  mock.close();
  await app.close();
});

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

async function shop(): Promise<Shop> {
  const created = await storeWithKey(app, `https://shop-${randomBytes(4).toString("hex")}.example`);
  await addRule(app.context.pool, created.store.id, { kind: "default", rate: 1 });
  return created;
}

function post(path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...LATEST, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function order(externalId: number, overrides: Record<string, unknown> = {}) {
  return {
    externalId,
    customer: { externalId: 42, email: "ada@example.com" },
    currency: "EUR",
    lines: [{ lineId: 1, productId: 100, categoryIds: [10], quantity: 2, unitPrice: 10 }],
    ...overrides,
  };
}

const register = (shopOf: Shop, body: unknown, key?: string) =>
  post("/api/order/register", body, {
    authorization: shopOf.authorization,
    ...(key === undefined ? {} : { "idempotency-key": key }),
  });

async function ordersOf(storeId: number) {
  const { rows } = await app.context.pool.query<{ external_id: string }>(
    `SELECT external_id FROM orders WHERE store_id = $1 ORDER BY external_id`,
    [storeId],
  );
  return rows.map((row) => row.external_id);
}

/**
 * The rows of `key` once the responses sent with it are kept: a response is kept as it is
 * sent, and its row is written a moment after the client has it.
 */
async function keptKeys(key: string) {
  return eventually(async () => {
    const { rows } = await app.context.pool.query<{ scope: string; state: string; body: Buffer }>(
      `SELECT scope, state, body FROM idempotency_keys WHERE key = $1 ORDER BY scope`,
      [key],
    );
    return rows.every((row) => row.state === "done") ? rows : undefined;
  });
}

async function expectKeyRefused(response: Response, message: RegExp) {
  expect(response.status).toBe(400);
  const problem = problemSchema.parse(await response.json());
  expect(problem.type).toBe(`${PROBLEMS}/validation-failed`);
  expect(problem.errors).toEqual([
    expect.objectContaining({ location: "header", pointer: "/idempotency-key" }),
  ]);
  expect(problem.detail).toMatch(message);
}

/** A customer of `shopOf` holding `points`, and how to claim `rewardId` as them. */
async function claimer(shopOf: Shop, externalId: number, points: number) {
  const customerId = await customerWithPoints(
    app.context.pool,
    shopOf.store.id,
    externalId,
    points,
    `c${externalId}-${shopOf.store.id}@example.com`,
  );
  const query = new URLSearchParams({
    domain: shopOf.store.domain,
    hash: hashFor(shopOf.store.reference, shopOf.key, externalId),
  });
  const claim = (rewardId: number, key?: string) =>
    post(
      `/reward/claim/${externalId}?${query.toString()}`,
      { rewardId },
      key === undefined ? {} : { "idempotency-key": key },
    );
  return Object.assign(claim, { customerId });
}

async function redemptions(storeId: number, externalId: number) {
  const { rows } = await app.context.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions t JOIN customers c ON c.id = t.customer_id
     WHERE c.store_id = $1 AND c.external_id = $2 AND t.kind = 'reward_redemption'`,
    [storeId, externalId],
  );
  return rows[0]?.n;
}

describe("registration with an Idempotency-Key", () => {
  it("runs once: a retry is answered the first response, marked as replayed", async () => {
    const seller = await shop();
    const key = randomUUID();
    const first = await register(seller, order(1001), key);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstBody = (await first.json()) as { status: string; receivedAt: string };
    expect(firstBody.status).toBe("pending");

    await eventually(async () => {
      const { rows } = await app.context.pool.query<{ status: string }>(
        `SELECT status FROM orders WHERE store_id = $1 AND external_id = '1001'`,
        [seller.store.id],
      );
      return rows[0]?.status === "processed" ? true : undefined;
    });
    // The same request sent again, member order and spacing aside: the first answer, as it was.
    const reordered = Object.fromEntries(Object.entries(order(1001)).reverse());
    const retry = await register(seller, JSON.stringify(reordered, null, 2), key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(retry.headers.get("revision")).toBe("2026-08-26");
    expect(await retry.json()).toEqual(firstBody);
    // Without the key, the order is registered again as before: it says where it stands now.
    const again = await register(seller, order(1001));
    expect(((await again.json()) as { status: string }).status).toBe("processed");
    expect(await ordersOf(seller.store.id)).toEqual(["1001"]);
  });

  it("refuses the key with another body, and registers nothing", async () => {
    const seller = await shop();
    const key = randomUUID();
    expect((await register(seller, order(2001), key)).status).toBe(201);
    const other = await register(seller, order(2002), key);
    await expectKeyRefused(other, /used with another request/);
    expect(await ordersOf(seller.store.id)).toEqual(["2001"]);
  });

  it("refuses the key on another operation rather than answering the registration", async () => {
    const seller = await shop();
    const key = randomUUID();
    expect((await register(seller, order(3001), key)).status).toBe(201);
    const refund = await post(
      "/api/order/refund",
      { externalId: 3001, status: "refunded" },
      { authorization: seller.authorization, "idempotency-key": key },
    );
    await expectKeyRefused(refund, /used with another request/);
    // Even with the registration's very body, the refund is not answered the registration.
    const sameBody = await post("/api/order/refund", order(3001), {
      authorization: seller.authorization,
      "idempotency-key": key,
    });
    await expectKeyRefused(sameBody, /used with another request/);
    const { rows } = await app.context.pool.query(`SELECT 1 FROM refunds WHERE store_id = $1`, [
      seller.store.id,
    ]);
    expect(rows).toEqual([]);
  });

  it("refuses the key with another revision of the same body", async () => {
    const seller = await shop();
    const key = randomUUID();
    expect((await register(seller, order(3501), key)).status).toBe(201);
    const older = await post("/api/order/register", order(3501), {
      authorization: seller.authorization,
      "idempotency-key": key,
      revision: "2026-06-18",
    });
    expect(older.status).toBe(400);
    const { message } = (await older.json()) as { message: string };
    expect(message).toMatch(/used with another request/);
    expect(await ordersOf(seller.store.id)).toEqual(["3501"]);
  });

  it("keeps two stores' keys apart: the same key registers each store's order", async () => {
    const [one, two] = [await shop(), await shop()];
    const key = randomUUID();
    for (const seller of [one, two]) {
      const response = await register(seller, order(4001), key);
      expect(response.status).toBe(201);
      expect(response.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(await ordersOf(one.store.id)).toEqual(["4001"]);
    expect(await ordersOf(two.store.id)).toEqual(["4001"]);
    expect(await keptKeys(key)).toHaveLength(2);
  });

  it("answers before its response is kept; a retry meanwhile waits, and is answered it", async () => {
    const seller = await shop();
    const key = randomUUID();
    // Keeping a response takes a second on this database, as on one that is struggling.
    const slowKeeping = `slow_keeping_${randomBytes(4).toString("hex")}`;
    await app.context.pool.query(
      `CREATE FUNCTION ${slowKeeping}() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
       CREATE TRIGGER ${slowKeeping} BEFORE UPDATE ON idempotency_keys FOR EACH ROW
         WHEN (NEW.state = 'done' AND NEW.key = '${key}') EXECUTE FUNCTION ${slowKeeping}()`,
    );
    try {
      const sent = performance.now();
      const first = await register(seller, order(4501), key);
      const answeredAfter = performance.now() - sent;
      expect(first.status).toBe(201);
      const firstBody: unknown = await first.json();
      expect(answeredAfter).toBeLessThan(800);
      // Sent while the first response is being kept: it waits for it rather than running.
      const retry = await register(seller, order(4501), key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await retry.json()).toEqual(firstBody);
      expect((await keptKeys(key)).map((row) => row.state)).toEqual(["done"]);
    } finally {
      await app.context.pool.query(
        `DROP TRIGGER ${slowKeeping} ON idempotency_keys; DROP FUNCTION ${slowKeeping}()`,
      );
    }
    expect(await ordersOf(seller.store.id)).toEqual(["4501"]);
  });

  it("keeps a refused request and answers it again, even once it would pass", async () => {
    const seller = await shop();
    const key = randomUUID();
    const invalid = order(5001, { currency: "EURO" });
    const first = await register(seller, invalid, key);
    expect(first.status).toBe(400);
    const firstBody = await first.json();
    const retry = await register(seller, invalid, key);
    expect(retry.status).toBe(400);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(retry.headers.get("cache-control")).toBe("no-store");
    expect(await retry.json()).toEqual(firstBody);
  });

  it("refuses a key that is not 1 to 255 printable ASCII characters, and registers nothing", async () => {
    const seller = await shop();
    for (const key of ["", "x".repeat(256), "tab\there", "caf\u00e9"]) {
      const response = await register(seller, order(6001), key);
      await expectKeyRefused(response, /1 to 255 printable ASCII/);
    }
    expect((await register(seller, order(6001), "k".repeat(255))).status).toBe(201);
    expect(await ordersOf(seller.store.id)).toEqual(["6001"]);
  });

  it("changes nothing without the header: nothing is kept, nothing is replayed", async () => {
    const seller = await shop();
    const before = await app.context.pool.query(`SELECT count(*)::int AS n FROM idempotency_keys`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await register(seller, order(7001));
      expect(response.status).toBe(201);
      expect(response.headers.get("idempotent-replayed")).toBeNull();
    }
    const after = await app.context.pool.query(`SELECT count(*)::int AS n FROM idempotency_keys`);
    expect(after.rows).toEqual(before.rows);
    expect(await ordersOf(seller.store.id)).toEqual(["7001"]);
  });

  it("forgets a key after 24 hours: the job deletes it, and the key may serve again", async () => {
    const seller = await shop();
    const [old, recent] = [randomUUID(), randomUUID()];
    expect((await register(seller, order(8001), old)).status).toBe(201);
    expect((await register(seller, order(8002), recent)).status).toBe(201);
    await app.context.pool.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute'
       WHERE key = $1`,
      [old],
    );
    // A day later the key is new: another order with it is registered, not refused.
    const reused = await register(seller, order(8003), old);
    expect(reused.status).toBe(201);
    expect(reused.headers.get("idempotent-replayed")).toBeNull();
    expect(await ordersOf(seller.store.id)).toEqual(["8001", "8002", "8003"]);

    await app.context.pool.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`,
      [old],
    );
    const task = taskList(app.context.services)["expire-idempotency-keys"];
    await task?.({}, {} as never);
    expect(await keptKeys(old)).toEqual([]);
    expect(await keptKeys(recent)).toHaveLength(1);
  });

  it("runs a request whose first run died midway, once the key is abandoned", async () => {
    const seller = await shop();
    const key = randomUUID();
    expect((await register(seller, order(9001), key)).status).toBe(201);
    expect(await keptKeys(key)).toHaveLength(1);
    // The state of a process killed while it ran: in progress, no response.
    const dieMidway = (age: string) =>
      app.context.pool.query(
        `UPDATE idempotency_keys SET state = 'in_progress', status = NULL, headers = NULL,
           body = NULL, created_at = now() - $2::interval
         WHERE key = $1`,
        [key, age],
      );
    await dieMidway("6 minutes");
    // Another request cannot take the key over...
    await expectKeyRefused(await register(seller, order(9002), key), /another request/);
    // ...the same one runs again.
    const retry = await register(seller, order(9001), key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect((await keptKeys(key)).map((row) => row.state)).toEqual(["done"]);
    expect(await ordersOf(seller.store.id)).toEqual(["9001"]);
  });
});

describe("claims with an Idempotency-Key", () => {
  it("debits once and answers the same code to a retry", async () => {
    const seller = await shop();
    const { rewardId } = await addReward(app.context.pool, seller.store.id, { triggerValue: 100 });
    const claim = await claimer(seller, 11, 1000);
    const key = randomUUID();
    const first = await claim(rewardId, key);
    expect(first.status).toBe(201);
    const { code, balance } = claimRewardResponseSchema.parse(await first.json());
    expect(balance).toBe(900);
    const retry = await claim(rewardId, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(claimRewardResponseSchema.parse(await retry.json())).toMatchObject({ code, balance });
    expect(await pointsOf(app.context.pool, seller.store.id, 11)).toMatchObject({
      balance: 900,
      ledger: 900,
    });
    expect(await redemptions(seller.store.id, 11)).toBe(1);
    // The same key by another customer of the store is theirs alone.
    const neighbour = await claimer(seller, 12, 1000);
    const theirs = await neighbour(rewardId, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(claimRewardResponseSchema.parse(await theirs.json()).code).not.toBe(code);
  });

  it("runs the claim once when ten requests with one key arrive at once", async () => {
    const seller = await shop();
    const { rewardId } = await addReward(app.context.pool, seller.store.id, { triggerValue: 100 });
    const claim = await claimer(seller, 21, 1000);
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 10 }, () => claim(rewardId, key)));
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(201));
    const codes = await Promise.all(
      responses.map(
        async (response) => claimRewardResponseSchema.parse(await response.json()).code,
      ),
    );
    expect(new Set(codes).size).toBe(1);
    const replayed = responses.filter((r) => r.headers.get("idempotent-replayed") === "true");
    expect(replayed).toHaveLength(9);
    expect(await redemptions(seller.store.id, 21)).toBe(1);
    expect(await pointsOf(app.context.pool, seller.store.id, 21)).toMatchObject({ balance: 900 });
  });

  it("answers a refused exchange again, even once the customer could pay", async () => {
    const seller = await shop();
    const { rewardId } = await addReward(app.context.pool, seller.store.id, { triggerValue: 500 });
    const claim = await claimer(seller, 31, 100);
    const key = randomUUID();
    const first = await claim(rewardId, key);
    expect(first.status).toBe(404);
    expect(claimRefusalSchema.parse(await first.json()).reason).toBe("insufficient-balance");
    await appendLedgerEntries(app.context.pool, [
      {
        storeId: seller.store.id,
        customerId: claim.customerId,
        kind: "manual_adjustment",
        points: 1000,
        note: "test credit",
      },
    ]);
    const retry = await claim(rewardId, key);
    expect(retry.status).toBe(404);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(claimRefusalSchema.parse(await retry.json()).reason).toBe("insufficient-balance");
    // A new request, with a new key, is a new claim.
    expect((await claim(rewardId, randomUUID())).status).toBe(201);
  });

  describe("on a platform that fails or is slow", () => {
    let seller: Shop;
    let rewardId: number;
    const coupons: string[] = [];

    beforeAll(async () => {
      seller = await shop();
      await app.context.services.platforms.connect(
        seller.store.id,
        { platform: "woocommerce", url: WOO, consumerKey: "ck_idem", consumerSecret: "cs_idem" },
        { allowPrivateUrls: true },
      );
      ({ rewardId } = await addReward(app.context.pool, seller.store.id, { triggerValue: 100 }));
    });

    const platformAnswering = (wait = 0) =>
      http.post(`${WOO}/wp-json/wc/v3/coupons`, async ({ request }) => {
        const coupon = (await request.json()) as { code: string };
        await delay(wait);
        coupons.push(coupon.code);
        return HttpResponse.json({ id: coupons.length, code: coupon.code }, { status: 201 });
      });

    it("does not keep a 5xx: the retry after the platform recovers runs, then is kept", async () => {
      const claim = await claimer(seller, 41, 1000);
      const key = randomUUID();
      mock.use(
        http.all(`${WOO}/*`, () => new HttpResponse("down for maintenance", { status: 503 })),
      );
      const failed = await claim(rewardId, key);
      expect(failed.status).toBe(502);
      expect(problemSchema.parse(await failed.json()).type).toBe(
        `${PROBLEMS}/platform-unavailable`,
      );
      expect(await keptKeys(key)).toEqual([]);

      mock.resetHandlers(platformAnswering());
      const retry = await claim(rewardId, key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
      const { code } = claimRewardResponseSchema.parse(await retry.json());
      const again = await claim(rewardId, key);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(claimRewardResponseSchema.parse(await again.json()).code).toBe(code);
      expect(await redemptions(seller.store.id, 41)).toBe(1);
    });

    it("lets a retry wait for the first request, then answers it the same code", async () => {
      mock.use(platformAnswering(1_000));
      const claim = await claimer(seller, 42, 1000);
      const key = randomUUID();
      const first = claim(rewardId, key);
      await delay(200);
      const retry = await claim(rewardId, key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      const firstCode = claimRewardResponseSchema.parse(await (await first).json()).code;
      expect(claimRewardResponseSchema.parse(await retry.json()).code).toBe(firstCode);
      expect(await redemptions(seller.store.id, 42)).toBe(1);
    });

    it("answers a retryable 500 when the first request is still running after the wait", async () => {
      mock.use(platformAnswering(7_000));
      const claim = await claimer(seller, 43, 1000);
      const key = randomUUID();
      const first = claim(rewardId, key);
      await delay(200);
      const started = Date.now();
      const busy = await claim(rewardId, key);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
      expect(busy.status).toBe(500);
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(problemSchema.parse(await busy.json()).detail).toMatch(/still in progress/);
      // A key held by the same request still running is not another request's: 400 at once.
      const other = await post(
        `/reward/claim/43?${new URLSearchParams({
          domain: seller.store.domain,
          hash: hashFor(seller.store.reference, seller.key, 43),
        }).toString()}`,
        { rewardId: rewardId + 1000 },
        { "idempotency-key": key },
      );
      await expectKeyRefused(other, /another request/);

      expect((await first).status).toBe(201);
      const later = await claim(rewardId, key);
      expect(later.status).toBe(201);
      expect(later.headers.get("idempotent-replayed")).toBe("true");
      expect(await redemptions(seller.store.id, 43)).toBe(1);
    });
  });
});

describe("the back-office with an Idempotency-Key", () => {
  it("creates one API key per Idempotency-Key, keeps the key shown once encrypted, and keeps admins apart", async () => {
    const seller = await shop();
    const [admin, other] = [await adminSession(app), await adminSession(app)];
    const key = randomUUID();
    const path = `/admin/stores/${seller.store.id}/api-keys`;
    const first = await admin.request("POST", path, { label: "till" }, { "idempotency-key": key });
    expect(first.status).toBe(201);
    const created = createdApiKeySchema.parse(await first.json());
    const retry = await admin.request("POST", path, { label: "till" }, { "idempotency-key": key });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(createdApiKeySchema.parse(await retry.json())).toEqual(created);
    const theirs = await other.request("POST", path, { label: "till" }, { "idempotency-key": key });
    expect(theirs.status).toBe(201);
    expect(createdApiKeySchema.parse(await theirs.json()).id).not.toBe(created.id);

    const { rows } = await app.context.pool.query(
      `SELECT 1 FROM api_keys WHERE store_id = $1 AND label = 'till'`,
      [seller.store.id],
    );
    expect(rows).toHaveLength(2);
    const kept = await keptKeys(key);
    expect(kept).toHaveLength(2);
    for (const row of kept) expect(row.body.toString("latin1")).not.toContain(created.key);
  });

  it("does not take a key on the sign-in, which changes nothing", async () => {
    const admin = await adminSession(app);
    const response = await post(
      "/admin/token",
      { email: admin.email, password: admin.password },
      { "idempotency-key": "" },
    );
    expect(response.status).toBe(200);
  });
});

describe("every operation that takes an Idempotency-Key", () => {
  const operations = [...Object.entries(OPERATIONS), ...Object.entries(ADMIN_OPERATIONS)].filter(
    ([name, definition]) => definition.method === "POST" && name !== "createAdminToken",
  ) as [string, OperationDefinition][];

  it("is every POST but the sign-in: each checks the key once its caller is authenticated", async () => {
    expect(operations.map(([name]) => name).sort()).toEqual(
      [
        "registerOrder",
        "refundOrder",
        "recordActivity",
        "createReferral",
        "claimReward",
        "getRefereeCode",
        "createStore",
        "createApiKey",
        "createRule",
        "createClub",
        "createReward",
        "createWebhookEndpoint",
        "adjustCustomerPoints",
        "testPlatformConnection",
        "redeliverWebhook",
      ].sort(),
    );
    const seller = await shop();
    const admin = await adminSession(app);
    const customer = 51;
    const customerQuery = new URLSearchParams({
      domain: seller.store.domain,
      hash: hashFor(seller.store.reference, seller.key, customer),
    });
    for (const [name, definition] of operations) {
      const path = definition.path
        .replace("{storeId}", String(seller.store.id))
        .replace("{externalId}", String(customer));
      // The customer operations name the customer in the path, or else in the query.
      const customerParameters = definition.path.includes("{externalId}")
        ? customerQuery
        : new URLSearchParams([...customerQuery, ["externalId", String(customer)]]);
      const query = definition.auth === "hmac" ? `?${customerParameters.toString()}` : "";
      const credentials: Record<OperationDefinition["auth"], Record<string, string>> = {
        basic: { authorization: seller.authorization },
        bearer: { authorization: `Bearer ${admin.token}` },
        hmac: {},
        public: {},
      };
      const response = await post(
        `${path}${query}`,
        {},
        {
          ...credentials[definition.auth],
          "idempotency-key": "",
        },
      );
      expect(response.status, name).toBe(400);
      const problem = problemSchema.parse(await response.json());
      expect(problem.errors?.[0], name).toMatchObject({
        location: "header",
        pointer: "/idempotency-key",
      });
      if (definition.auth !== "public") {
        const anonymous = await post(path, {}, { "idempotency-key": "" });
        expect(anonymous.status, name).toBe(401);
      }
    }
  });
});
