import {
  LoyaltyAuthenticationError,
  LoyaltyClient,
  LoyaltyNotFoundError,
  LoyaltyValidationError,
} from "@loyalty/node-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "./support/app.js";

/**
 * The Node SDK against the real server, as a store's backend uses it: the demo store's rules
 * (1 point per euro, 2 in category 10), rewards (300, 500 and 900 points) and widgets.
 */
let app: TestApp;
let client: LoyaltyClient;
let credentials: { apiKey: string; storeReference: string; domain: string };

const line = (lineId: number, unitPrice: number, categoryIds: number[] = []) => ({
  lineId,
  productId: 100 + lineId,
  categoryIds,
  quantity: 1,
  unitPrice,
});

beforeAll(async () => {
  app = await startTestApp({ workers: true });
  const demo = await app.context.services.demo.load("https://sdk-shop.example");
  credentials = {
    apiKey: demo.apiKey,
    storeReference: demo.store.reference,
    domain: demo.store.domain,
  };
  client = new LoyaltyClient({ ...credentials, baseUrl: app.baseUrl });
});
afterAll(async () => {
  await app.close();
});

async function balanceOf(externalId: number, expected: number): Promise<void> {
  await eventually(async () => {
    const history = await client.customers.history(externalId);
    return history.balance === expected ? true : undefined;
  });
}

describe("the Node SDK against the server", () => {
  it("registers an order from a checkout, and the customer's history shows its points", async () => {
    const registered = await client.orders.register({
      externalId: 9001,
      externalReference: "#9001",
      currency: "EUR",
      customer: { externalId: 42, email: "ada@example.com", firstName: "Ada" },
      lines: [line(1, 250, [10]), line(2, 100)],
    });
    expect(registered).toMatchObject({ externalId: 9001, status: "pending" });
    // 250 € in coffee at 2 points per euro, 100 € at the default 1 point.
    await balanceOf(42, 600);

    const pages = [];
    for await (const page of client.customers.historyPages(42, { limit: 1 })) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0]?.transactions[0]).toMatchObject({
      kind: "earn",
      points: 600,
      order: { externalId: 9001, externalReference: "#9001" },
    });
  });

  it("computes product points and reads the widget configurations and the catalogue", async () => {
    expect(await client.products.calculatePoints({ price: 10, categories: [10] })).toMatchObject({
      points: 20,
      type: "category",
    });
    expect(
      await client.products.calculateManyPoints([
        { price: 10, categories: [10] },
        { product: 5, price: 10 },
      ]),
    ).toEqual([
      expect.objectContaining({ product: null, categories: [10], points: 20, type: "category" }),
      expect.objectContaining({
        product: 5,
        price: 10,
        categories: [],
        points: 10,
        type: "default",
      }),
    ]);
    const rewards = await client.rewards.list();
    expect(rewards.map((reward) => reward.triggerValue)).toEqual([300, 500, 900]);
    expect((await client.widgets.cart()).store.domain).toBe(credentials.domain);
    expect((await client.widgets.productPoints()).config).toBeDefined();
    expect((await client.widgets.programPresentation()).config.header).toBeDefined();
    expect((await client.widgets.launcher()).config.label).toBeTruthy();
  });

  it("claims a reward, and answers a refusal as a result rather than an error", async () => {
    const [cheap, , dear] = await client.rewards.list();
    const claimed = await client.rewards.claim(42, { rewardId: cheap?.id as number });
    expect(claimed.code).toEqual(expect.any(String));
    expect(await client.rewards.listCodes(42)).toEqual([
      expect.objectContaining({ code: claimed.code, rewardId: cheap?.id, rewardName: cheap?.name }),
    ]);
    const refused = await client.rewards.claim(42, { rewardId: dear?.id as number });
    expect(refused).toEqual({ code: null, reason: "insufficient-balance" });
    await expect(client.rewards.claim(404404, { rewardId: cheap?.id as number })).rejects.toThrow(
      LoyaltyNotFoundError,
    );
  });

  it("declares a refund from a credit note, deducting the order's points", async () => {
    await client.orders.refund({ externalId: 9001, status: "refunded" });
    // 600 earned, 300 spent on the claim, all 600 taken back.
    await balanceOf(42, -300);
  });

  it("refers a friend, whose invitation hash gives their code once", async () => {
    const referral = await client.referrals.create(42, { email: "friend@example.com" });
    expect(referral.status).toBe("pending");
    const first = await client.referrals.getRefereeCode({ referralHash: referral.hash });
    const again = await client.referrals.getRefereeCode({ referralHash: referral.hash });
    expect(again.code).toBe(first.code);
  });

  it("gives the widget tag a hash the server accepts for that customer only", async () => {
    const attributes = client.widgetAttributes(42);
    expect(attributes).not.toHaveProperty("reference");
    expect(JSON.stringify(attributes)).not.toContain(credentials.apiKey);
    const query = new URLSearchParams({
      domain: attributes.domain,
      hash: attributes["customer-hash"] as string,
    });
    const own = await fetch(`${app.baseUrl}/point/user-history/42?${query.toString()}`);
    expect(own.status).toBe(200);
    const other = await fetch(`${app.baseUrl}/point/user-history/43?${query.toString()}`);
    expect(other.status).toBe(401);
  });

  it("sends an Idempotency-Key the server honours: a repeated call is answered the first answer", async () => {
    const order = {
      externalId: 9100,
      currency: "EUR",
      customer: { externalId: 43 },
      lines: [line(1, 40)],
    };
    const first = await client.orders.register(order, { idempotencyKey: "checkout-9100" });
    const again = await client.orders.register(order, { idempotencyKey: "checkout-9100" });
    expect(again).toEqual(first);
    await expect(
      client.orders.register(
        { ...order, lines: [line(1, 41)] },
        { idempotencyKey: "checkout-9100" },
      ),
    ).rejects.toThrow(LoyaltyValidationError);
    await balanceOf(43, 40);
  });

  it("throws typed errors: authentication, validation with its issues", async () => {
    const stranger = new LoyaltyClient({
      ...credentials,
      apiKey: "lk_0000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      baseUrl: app.baseUrl,
    });
    await expect(stranger.orders.register({ externalId: 1 } as never)).rejects.toThrow(
      LoyaltyAuthenticationError,
    );
    const error = await client.orders
      .register({ externalId: 9002, currency: "EUR", customer: { externalId: 42 }, lines: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).issues.map((issue) => issue.pointer)).toContain(
      "/lines",
    );
    expect((error as LoyaltyValidationError).requestId).toEqual(expect.any(String));
  });

  it("speaks revision 2026-01-01 when pinned to it: externalRef and the legacy errors", async () => {
    const legacy = new LoyaltyClient({
      ...credentials,
      baseUrl: app.baseUrl,
      revision: "2026-01-01",
    });
    const registered = await legacy.orders.register({
      externalRef: "A-7",
      currency: "EUR",
      customer: { externalId: 7 },
      lines: [line(1, 30)],
    });
    expect(registered).toMatchObject({ externalRef: "A-7", status: "pending" });
    const error = await legacy.orders
      .register({ externalRef: "", currency: "EUR", customer: { externalId: 7 }, lines: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).status).toBe(400);
    await balanceOf(7, 30);
  });
});
