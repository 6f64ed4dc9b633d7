import { problemSchema } from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { addReward, customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";
import { loopbackListener, streamFiller, type LoopbackListener } from "./support/loopback.js";

/**
 * Claims whose platform request must not be made, or must not be read whole: the app in-process
 * with real listeners on loopback, reached through the system's name resolution.
 */

const MIB = 1024 * 1024;
const PLATFORM_ENV = { PLATFORM_TIMEOUT_MS: "5000", CLAIM_RECONCILE_AFTER_MS: "10000" };

/** A connection of each kind to the platform at `url`, as the back-office sends it. */
const CONNECTIONS = {
  woocommerce: (url: string) => ({
    platform: "woocommerce",
    url,
    consumerKey: "ck_outbound",
    consumerSecret: "cs_outbound",
  }),
  shopify: (url: string) => ({ platform: "shopify", url, accessToken: "shpat_outbound" }),
  prestashop: (url: string) => ({ platform: "prestashop", url, webserviceKey: "OUTBOUNDKEY" }),
};
type Platform = keyof typeof CONNECTIONS;

let storeCount = 0;
let customerCount = 0;

/** A store with a 200-point reward, connected to `platform` at `url` through the admin API. */
async function storeOn(app: TestApp, admin: AdminSession, platform: Platform, url: string) {
  storeCount += 1;
  const shop = await storeWithKey(app, `https://outbound-${storeCount}.example`);
  const saved = await admin.request(
    "PUT",
    `/admin/stores/${shop.store.id}/platform`,
    CONNECTIONS[platform](url),
  );
  const { rewardId } = await addReward(app.context.pool, shop.store.id, {
    triggerValue: 200,
    kind: "percentage",
    value: 10,
  });
  return { ...shop, rewardId, saved };
}

/** A claim by a new customer holding 1,000 points; their points afterwards. */
async function claim(app: TestApp, shop: Awaited<ReturnType<typeof storeOn>>) {
  customerCount += 1;
  const externalId = customerCount;
  await customerWithPoints(
    app.context.pool,
    shop.store.id,
    externalId,
    1000,
    `c${externalId}@x.example`,
  );
  const query = new URLSearchParams({
    domain: shop.store.domain,
    hash: hashFor(shop.store.reference, shop.key, externalId),
  });
  const response = await fetch(`${app.baseUrl}/reward/claim/${externalId}?${query.toString()}`, {
    method: "POST",
    headers: { "content-type": "application/json", revision: "2026-08-26" },
    body: JSON.stringify({ rewardId: shop.rewardId }),
  });
  const body: unknown = await response.json();
  const { rows } = await app.context.pool.query<{ balance: number; reserved_points: number }>(
    "SELECT balance, reserved_points FROM customers WHERE store_id = $1 AND external_id = $2",
    [shop.store.id, externalId],
  );
  return { status: response.status, body, points: rows[0] };
}

describe("with ALLOW_PRIVATE_URLS off (the default)", () => {
  let app: TestApp;
  let admin: AdminSession;
  let internal: LoopbackListener;

  beforeAll(async () => {
    app = await startTestApp({ env: PLATFORM_ENV });
    admin = await adminSession(app);
    // What an internal service would answer, were it asked: a coupon, as a platform would.
    internal = await loopbackListener((_req, res) => {
      res.writeHead(201, { "content-type": "application/json" }).end('{"id":1}');
    });
  });
  afterAll(async () => {
    await internal.close();
    await app.close();
  });

  it("a platform URL written as a loopback address is refused when saved", async () => {
    const port = new URL(internal.url).port;
    for (const url of [
      internal.url,
      `http://[::ffff:0:7f00:1]:${port}`,
      `http://[::127.0.0.1]:${port}`,
    ]) {
      const { saved } = await storeOn(app, admin, "woocommerce", url);
      expect(saved.status).toBe(400);
      const problem = problemSchema.parse(await saved.json());
      expect(problem.type).toMatch(/\/validation-failed$/);
      expect(JSON.stringify(problem)).toContain("private_host");
    }
  });

  it.each(Object.keys(CONNECTIONS) as Platform[])(
    "a claim on %s at a name resolving to loopback answers platform-unavailable, gives the points back, and sends nothing",
    async (platform) => {
      // A name: saving cannot tell where it leads, so it is accepted.
      const shop = await storeOn(app, admin, platform, internal.namedUrl);
      expect(shop.saved.status).toBe(200);

      const { status, body, points } = await claim(app, shop);
      expect(status).toBe(502);
      expect(problemSchema.parse(body).type).toMatch(/\/platform-unavailable$/);
      expect(points).toEqual({ balance: 1000, reserved_points: 0 });
      expect(internal.connections).toBe(0);
    },
  );

  it("says in the log why the platform was not asked", () => {
    expect(app.logs.join("")).toContain("an address of the service's own network");
  });
});

describe("with ALLOW_PRIVATE_URLS on, a platform answering 300 MB", () => {
  let app: TestApp;
  let admin: AdminSession;
  let platform: LoopbackListener;

  beforeAll(async () => {
    app = await startTestApp({ env: { ...PLATFORM_ENV, ALLOW_PRIVATE_URLS: "true" } });
    admin = await adminSession(app);
    // The coupon "created", then filler made as it is sent, as fast as the service reads.
    platform = await loopbackListener((req, res) => {
      req.resume();
      res.statusCode = 201;
      streamFiller(res, 300 * MIB, { announce: false });
    });
  });
  afterAll(async () => {
    await platform.close();
    await app.close();
  });

  it("fails the claim as platform-unavailable and gives the points back, its memory barely moving", async () => {
    const shop = await storeOn(app, admin, "woocommerce", platform.url);
    expect(shop.saved.status).toBe(200);

    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const { status, body, points } = await claim(app, shop).finally(() => clearInterval(sampler));

    expect(platform.requests).toBe(1);
    expect(status).toBe(502);
    expect(problemSchema.parse(body).type).toMatch(/\/platform-unavailable$/);
    expect(points).toEqual({ balance: 1000, reserved_points: 0 });
    expect(peak - baseline).toBeLessThan(64 * MIB);
    await platform.requestsClosed();
    expect(platform.bytesWritten()).toBeLessThan(32 * MIB);
  });
});
