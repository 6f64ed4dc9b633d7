import type { IncomingMessage, ServerResponse } from "node:http";
import {
  platformConnectionTestSchema,
  problemSchema,
  type PlatformConnectionTest,
} from "@loyalty/shared-types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";
import { loopbackListener, type LoopbackListener } from "./support/loopback.js";

/**
 * POST /admin/stores/{storeId}/platform/test: the merchant's "test the connection" button,
 * against platforms played by real listeners on loopback.
 */

const PLATFORM_ENV = { PLATFORM_TIMEOUT_MS: "1000", CLAIM_RECONCILE_AFTER_MS: "2000" };
const KEY = "ck_secret_key_0123456789";
const SECRET = "cs_secret_value_9876543210";
/** What a shop in debug mode may print: what the merchant must never be shown. */
const LEAKY_BODY = JSON.stringify({
  code: "woocommerce_rest_authentication_error",
  message: `Invalid signature - provided signature does not match. DB_PASSWORD=hunter2 ${KEY}`,
});

let storeCount = 0;
const listeners: LoopbackListener[] = [];

async function platform(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LoopbackListener & { seen: string[] }> {
  const seen: string[] = [];
  const listener = await loopbackListener((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  listeners.push(listener);
  return Object.assign(listener, { seen });
}

afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

async function newStore(app: TestApp) {
  storeCount += 1;
  return storeWithKey(app, `https://platform-test-${storeCount}.example`);
}

async function connect(admin: AdminSession, storeId: number, connection: unknown) {
  const saved = await admin.request("PUT", `/admin/stores/${storeId}/platform`, connection);
  expect(saved.status, await saved.clone().text()).toBe(200);
}

async function testConnection(
  admin: AdminSession,
  storeId: number,
): Promise<{ status: number; text: string; result: PlatformConnectionTest | undefined }> {
  const response = await admin.request("POST", `/admin/stores/${storeId}/platform/test`);
  const text = await response.text();
  return {
    status: response.status,
    text,
    result:
      response.status === 200 ? platformConnectionTestSchema.parse(JSON.parse(text)) : undefined,
  };
}

const woo = (url: string) => ({
  platform: "woocommerce",
  url,
  consumerKey: KEY,
  consumerSecret: SECRET,
});

describe("with ALLOW_PRIVATE_URLS on", () => {
  let app: TestApp;
  let admin: AdminSession;

  beforeAll(async () => {
    app = await startTestApp({ env: { ...PLATFORM_ENV, ALLOW_PRIVATE_URLS: "true" } });
    admin = await adminSession(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("answers ok for a store on the sandbox, the platform of a store never connected", async () => {
    const shop = await newStore(app);
    const { status, result } = await testConnection(admin, shop.store.id);
    expect(status).toBe(200);
    expect(result).toMatchObject({ platform: "sandbox", ok: true, reason: null, message: null });
    expect(result?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("answers ok when WooCommerce answers, having only searched for a customer nobody is", async () => {
    const shop = await newStore(app);
    const woocommerce = await platform((_req, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end("[]"), 150);
    });
    await connect(admin, shop.store.id, woo(woocommerce.url));

    const { result } = await testConnection(admin, shop.store.id);
    expect(result).toMatchObject({
      platform: "woocommerce",
      ok: true,
      reason: null,
      message: null,
    });
    expect(result?.durationMs).toBeGreaterThanOrEqual(150);
    expect(woocommerce.seen).toHaveLength(1);
    const [method, target] = (woocommerce.seen[0] as string).split(" ") as [string, string];
    expect(method).toBe("GET");
    const asked = new URL(target, woocommerce.url);
    expect(asked.pathname).toBe("/wp-json/wc/v3/customers");
    expect(asked.searchParams.get("email")).toMatch(/@example\.invalid$/);
  });

  it("answers ok false, credentials rejected, when WooCommerce answers 401, quoting nothing it said", async () => {
    const shop = await newStore(app);
    const woocommerce = await platform((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" }).end(LEAKY_BODY);
    });
    await connect(admin, shop.store.id, woo(woocommerce.url));

    const { status, text, result } = await testConnection(admin, shop.store.id);
    expect(status).toBe(200);
    expect(result).toMatchObject({
      platform: "woocommerce",
      ok: false,
      reason: "platform-credentials-rejected",
    });
    expect(result?.message).toContain("HTTP 401");
    expect(result?.message).toContain("consumer key");
    for (const secret of [KEY, SECRET, "hunter2", "Invalid signature"]) {
      expect(text).not.toContain(secret);
    }
    // The operator finds what the platform said in the log.
    expect(app.logs.join("")).toContain("platform connection test failed");
  });

  it("answers ok false, platform unavailable, when WooCommerce answers 500", async () => {
    const shop = await newStore(app);
    const woocommerce = await platform((_req, res) => {
      res.writeHead(500, { "content-type": "text/html" }).end("<h1>Fatal error</h1>");
    });
    await connect(admin, shop.store.id, woo(woocommerce.url));

    const { status, text, result } = await testConnection(admin, shop.store.id);
    expect(status).toBe(200);
    expect(result).toMatchObject({ ok: false, reason: "platform-unavailable" });
    expect(result?.message).toContain("HTTP 500");
    expect(text).not.toContain("Fatal error");
  });

  it("answers ok false, platform unavailable, when the platform does not answer in time", async () => {
    const shop = await newStore(app);
    const silent = await platform(() => {
      // Never answers.
    });
    await connect(admin, shop.store.id, woo(silent.url));

    const { result } = await testConnection(admin, shop.store.id);
    expect(result).toMatchObject({ ok: false, reason: "platform-unavailable" });
    expect(result?.message).toMatch(/did not answer in time/);
    expect(result?.durationMs).toBeGreaterThanOrEqual(900);
  });

  it("names each platform's credentials when they are refused", async () => {
    const shop = await newStore(app);
    const shopify = await platform((_req, res) => {
      res.writeHead(403, { "content-type": "application/json" }).end('{"errors":"denied"}');
    });
    await connect(admin, shop.store.id, {
      platform: "shopify",
      url: shopify.url,
      accessToken: "shpat_secret_token",
    });
    const { text, result } = await testConnection(admin, shop.store.id);
    expect(result).toMatchObject({
      platform: "shopify",
      ok: false,
      reason: "platform-credentials-rejected",
    });
    expect(result?.message).toContain("access token");
    expect(text).not.toContain("shpat_secret_token");
  });

  it("answers not-found for an unknown store, forbidden for another store's token", async () => {
    const shop = await newStore(app);
    const elsewhere = await newStore(app);
    const unknown = await testConnection(admin, 999_999_999);
    expect(unknown.status).toBe(404);
    expect(problemSchema.parse(JSON.parse(unknown.text)).type).toMatch(/\/not-found$/);

    const storeAdmin = await adminSession(app, { storeReference: shop.store.reference });
    expect((await testConnection(storeAdmin, shop.store.id)).status).toBe(200);
    const forbidden = await testConnection(storeAdmin, elsewhere.store.id);
    expect(forbidden.status).toBe(403);
  });
});

describe("with ALLOW_PRIVATE_URLS off (the default)", () => {
  let app: TestApp;
  let admin: AdminSession;

  beforeAll(async () => {
    app = await startTestApp({ env: PLATFORM_ENV });
    admin = await adminSession(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("refuses to connect to a platform whose name leads to the service's own network", async () => {
    const shop = await newStore(app);
    const internal = await platform((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end("[]");
    });
    // A name: saving cannot tell where it leads, so it is accepted; connecting is refused.
    await connect(admin, shop.store.id, woo(internal.namedUrl));

    const { result } = await testConnection(admin, shop.store.id);
    expect(result).toMatchObject({
      platform: "woocommerce",
      ok: false,
      reason: "platform-unavailable",
    });
    expect(result?.message).toMatch(/private network/);
    expect(result?.message).not.toContain("127.0.0.1");
    expect(internal.connections).toBe(0);
  });
});
