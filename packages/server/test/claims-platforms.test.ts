import { claimRewardResponseSchema, problemSchema } from "@loyalty/shared-types";
import { delay, http, HttpResponse, type HttpHandler } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app.js";
import { addReward, customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";

/**
 * Claims against each real platform, its HTTP API played by msw in this process (the app runs
 * in-process, so msw sees its requests): the code the platform makes is the one answered, and
 * every platform failure answers the spec's reason and gives the points back.
 */

const LATEST = { revision: "2026-08-26" };
const PLATFORM_TIMEOUT_MS = 300;

const SECRETS = {
  consumerSecret: "cs_8f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5",
  accessToken: "shpat_0123456789abcdef0123456789abcdef",
  webserviceKey: "Q2W3E4R5T6Y7U8I9O0P1A2S3D4F5G6H7",
};

const CONNECTIONS = {
  woocommerce: {
    platform: "woocommerce",
    url: "https://woo.test",
    consumerKey: "ck_1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
    consumerSecret: SECRETS.consumerSecret,
  },
  shopify: {
    platform: "shopify",
    url: "https://loyal-shop.myshopify.com",
    accessToken: SECRETS.accessToken,
  },
  prestashop: {
    platform: "prestashop",
    url: "https://presta.test",
    webserviceKey: SECRETS.webserviceKey,
  },
} as const;
type Platform = keyof typeof CONNECTIONS;

/** Every request to the platform's host, answered by `answer`. */
function everyRequestTo(platform: Platform, answer: () => Response | Promise<Response>) {
  return http.all(`${CONNECTIONS[platform].url}/*`, answer);
}

/** The platform making the code, as its documentation answers. */
const SUCCESS: Record<Platform, (created: string[]) => HttpHandler[]> = {
  woocommerce: (created) => [
    http.post("https://woo.test/wp-json/wc/v3/coupons", async ({ request }) => {
      const coupon = (await request.json()) as { code: string };
      created.push(coupon.code);
      return HttpResponse.json({ id: 91, code: coupon.code.toLowerCase() }, { status: 201 });
    }),
  ],
  shopify: (created) => [
    http.post(
      "https://loyal-shop.myshopify.com/admin/api/:version/graphql.json",
      async ({ request }) => {
        const { variables } = (await request.json()) as {
          variables: { basicCodeDiscount: { code: string } };
        };
        created.push(variables.basicCodeDiscount.code);
        return HttpResponse.json({
          data: {
            discountCodeBasicCreate: {
              codeDiscountNode: { id: "gid://shopify/DiscountCodeNode/1" },
              userErrors: [],
            },
          },
        });
      },
    ),
  ],
  prestashop: (created) => [
    http.get("https://presta.test/api/cart_rules", () => HttpResponse.json([])),
    http.post("https://presta.test/api/cart_rules", async ({ request }) => {
      const code = /<code><!\[CDATA\[([^\]]*)\]\]><\/code>|<code>([^<]*)<\/code>/.exec(
        await request.text(),
      );
      created.push((code?.[1] ?? code?.[2]) as string);
      return HttpResponse.json({ cart_rule: { id: 12 } }, { status: 201 });
    }),
  ],
};

const FAILURES: {
  name: string;
  answer: () => Response | Promise<Response>;
  status: number;
  reason: string;
}[] = [
  {
    name: "refused credentials (401)",
    answer: () => HttpResponse.json({ message: "bad credentials" }, { status: 401 }),
    status: 422,
    reason: "platform-credentials-rejected",
  },
  {
    name: "a missing resource (404)",
    answer: () => HttpResponse.json({ message: "no route" }, { status: 404 }),
    status: 422,
    reason: "platform-resource-not-found",
  },
  {
    name: "a refused request (400)",
    answer: () => HttpResponse.json({ message: "invalid" }, { status: 400 }),
    status: 422,
    reason: "platform-request-rejected",
  },
  {
    name: "a failing platform (503)",
    answer: () => new HttpResponse("down for maintenance", { status: 503 }),
    status: 502,
    reason: "platform-unavailable",
  },
  {
    name: "a network error",
    answer: () => HttpResponse.error(),
    status: 502,
    reason: "platform-unavailable",
  },
  {
    name: "a platform that does not answer in time",
    answer: async () => {
      await delay(PLATFORM_TIMEOUT_MS * 10);
      return HttpResponse.json({});
    },
    status: 502,
    reason: "platform-unavailable",
  },
];

const mock = setupServer();
let app: TestApp;
beforeAll(async () => {
  mock.listen({ onUnhandledRequest: "bypass" });
  app = await startTestApp({
    env: { PLATFORM_TIMEOUT_MS: String(PLATFORM_TIMEOUT_MS), CLAIM_RECONCILE_AFTER_MS: "1000" },
  });
});
afterEach(() => mock.resetHandlers());
afterAll(async () => {
  mock.close();
  await app.close();
});

async function customerPoints(storeId: number, externalId: number) {
  const { rows } = await app.context.pool.query<{
    balance: number;
    reserved_points: number;
    redemptions: number;
  }>(
    `SELECT c.balance, c.reserved_points,
            (SELECT count(*)::int FROM ledger_transactions t
             WHERE t.customer_id = c.id AND t.kind = 'reward_redemption') AS redemptions
     FROM customers c WHERE c.store_id = $1 AND c.external_id = $2`,
    [storeId, externalId],
  );
  return rows[0];
}

describe.each(Object.keys(CONNECTIONS) as Platform[])("a store on %s", (platform) => {
  let shop: Awaited<ReturnType<typeof storeWithKey>>;
  let rewardId: number;
  let nextCustomer = 1;

  beforeAll(async () => {
    shop = await storeWithKey(app, `https://${platform}-claims.example`);
    await app.context.services.platforms.connect(shop.store.id, CONNECTIONS[platform], {
      allowPrivateUrls: true,
    });
    rewardId = (
      await addReward(app.context.pool, shop.store.id, {
        triggerValue: 200,
        kind: "percentage",
        value: 10,
      })
    ).rewardId;
  });

  async function claimAsNewCustomer() {
    const externalId = nextCustomer++;
    await customerWithPoints(
      app.context.pool,
      shop.store.id,
      externalId,
      1000,
      `c${externalId}@example.com`,
    );
    const started = Date.now();
    const query = new URLSearchParams({
      domain: shop.store.domain,
      hash: hashFor(shop.store.reference, shop.key, externalId),
    });
    const response = await fetch(`${app.baseUrl}/reward/claim/${externalId}?${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...LATEST },
      body: JSON.stringify({ rewardId }),
    });
    return { externalId, response, elapsed: Date.now() - started };
  }

  it("answers the code the platform made", async () => {
    const created: string[] = [];
    mock.use(...SUCCESS[platform](created));
    const { externalId, response } = await claimAsNewCustomer();
    expect(response.status).toBe(201);
    const body = claimRewardResponseSchema.parse(await response.json());
    expect(created).toEqual([body.code]);
    expect(await customerPoints(shop.store.id, externalId)).toEqual({
      balance: 800,
      reserved_points: 0,
      redemptions: 1,
    });
  });

  it.each(FAILURES)("answers $reason to $name and gives the points back", async (failure) => {
    mock.use(everyRequestTo(platform, failure.answer));
    const { externalId, response, elapsed } = await claimAsNewCustomer();
    expect(response.status).toBe(failure.status);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = problemSchema.parse(await response.json());
    expect(problem.type).toMatch(new RegExp(`/${failure.reason}$`));
    // Bounded by the platform timeout, not by how long the platform would take.
    expect(elapsed).toBeLessThan(PLATFORM_TIMEOUT_MS * 5);
    expect(await customerPoints(shop.store.id, externalId)).toEqual({
      balance: 1000,
      reserved_points: 0,
      redemptions: 0,
    });
    const { rows } = await app.context.pool.query(
      `SELECT cl.status, cl.failure_reason FROM reward_claims cl
       JOIN customers c ON c.id = cl.customer_id
       WHERE c.store_id = $1 AND c.external_id = $2`,
      [shop.store.id, externalId],
    );
    expect(rows).toEqual([{ status: "released", failure_reason: failure.reason }]);
    const { rowCount } = await app.context.pool.query(
      `SELECT 1 FROM outbox_events WHERE store_id = $1 AND type = 'REWARD_OBTAINED'
         AND (payload -> 'customer' ->> 'externalId')::bigint = $2`,
      [shop.store.id, externalId],
    );
    expect(rowCount).toBe(0);
  });
});

it("keeps platform credentials out of the logs and unreadable in the database", async () => {
  const logs = app.logs.join("");
  // The failures above were logged, by their measures (a shop may echo what it was sent)...
  expect(logs).toContain("store platform failed");
  expect(logs).toContain('"httpStatus":503');
  expect(logs).not.toContain("down for maintenance");
  const { rows } = await app.context.pool.query<{ dump: string }>(
    `SELECT string_agg(encode(platform_credentials, 'escape'), '') AS dump FROM stores`,
  );
  for (const secret of Object.values(SECRETS)) {
    // ...never with the credentials.
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(Buffer.from(`${secret}:`).toString("base64"));
    expect(rows[0]?.dump).not.toContain(secret);
  }
});
