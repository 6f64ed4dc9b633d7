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
import { MAX_RESPONSE_BYTES } from "../src/net/outbound.js";
import { loopbackListener, streamFiller, type LoopbackListener } from "./support/loopback.js";

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

/** The log line of the store's failed connection test, parsed. */
function testLog(app: TestApp, storeId: number): Record<string, unknown> | undefined {
  return app.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find(
      (line) => line["msg"] === "platform connection test failed" && line["storeId"] === storeId,
    );
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
    expect(result).toMatchObject({
      platform: "sandbox",
      ok: true,
      reason: null,
      cause: null,
      httpStatus: null,
      message: null,
    });
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
      cause: "unauthorized",
      httpStatus: 401,
    });
    expect(result?.message).toContain("HTTP 401");
    expect(result?.message).toContain("consumer key");
    for (const secret of [KEY, SECRET, "hunter2", "Invalid signature"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("logs a failed test with its reason, status, duration and body length, never what the platform said", async () => {
    const shop = await newStore(app);
    const woocommerce = await platform((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" }).end(LEAKY_BODY);
    });
    await connect(admin, shop.store.id, woo(woocommerce.url));

    const { result } = await testConnection(admin, shop.store.id);
    // Every line so far: the tests above had the platform say as much.
    const logs = app.logs.join("");
    for (const secret of [KEY, SECRET, "hunter2", "Invalid signature"]) {
      expect(logs).not.toContain(secret);
    }
    expect(testLog(app, shop.store.id)).toMatchObject({
      msg: "platform connection test failed",
      platform: "woocommerce",
      reason: "platform-credentials-rejected",
      cause: "unauthorized",
      httpStatus: 401,
      durationMs: result?.durationMs,
      bodyLength: LEAKY_BODY.length,
    });
  });

  it("answers ok false, platform unavailable, when WooCommerce answers 500", async () => {
    const shop = await newStore(app);
    const woocommerce = await platform((_req, res) => {
      res.writeHead(500, { "content-type": "text/html" }).end("<h1>Fatal error</h1>");
    });
    await connect(admin, shop.store.id, woo(woocommerce.url));

    const { status, text, result } = await testConnection(admin, shop.store.id);
    expect(status).toBe(200);
    expect(result).toMatchObject({
      ok: false,
      reason: "platform-unavailable",
      cause: "http-error",
      httpStatus: 500,
    });
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
    expect(result).toMatchObject({
      ok: false,
      reason: "platform-unavailable",
      cause: "timeout",
      httpStatus: null,
    });
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

  const answers: Array<{
    cause: NonNullable<PlatformConnectionTest["cause"]>;
    reason: PlatformConnectionTest["reason"];
    httpStatus: number | null;
    handle: (req: IncomingMessage, res: ServerResponse) => void;
  }> = [
    {
      cause: "unauthorized",
      reason: "platform-credentials-rejected",
      httpStatus: 403,
      handle: (_req, res) => res.writeHead(403).end(),
    },
    {
      cause: "redirect",
      reason: "platform-resource-not-found",
      httpStatus: 301,
      handle: (_req, res) => res.writeHead(301, { location: "https://www.shop.example/" }).end(),
    },
    {
      cause: "not-found",
      reason: "platform-resource-not-found",
      httpStatus: 404,
      handle: (_req, res) => res.writeHead(404).end("<h1>Not found</h1>"),
    },
    {
      cause: "request-rejected",
      reason: "platform-request-rejected",
      httpStatus: 400,
      handle: (_req, res) => res.writeHead(400).end(),
    },
    {
      cause: "http-error",
      reason: "platform-unavailable",
      httpStatus: 429,
      handle: (_req, res) => res.writeHead(429).end(),
    },
    {
      cause: "not-api",
      reason: "platform-unavailable",
      httpStatus: null,
      handle: (_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end("<h1>My shop</h1>"),
    },
    {
      cause: "unreadable",
      reason: "platform-unavailable",
      httpStatus: null,
      handle: (_req, res) => streamFiller(res, MAX_RESPONSE_BYTES + 1, { announce: true }),
    },
  ];

  it.each(answers)(
    "answers the cause $cause, with the status $httpStatus, and logs it",
    async ({ cause, reason, httpStatus, handle }) => {
      const shop = await newStore(app);
      const woocommerce = await platform(handle);
      await connect(admin, shop.store.id, woo(woocommerce.url));

      const { result } = await testConnection(admin, shop.store.id);
      expect(result).toMatchObject({ ok: false, reason, cause, httpStatus });
      expect(result?.message).toMatch(/^WooCommerce /);
      expect(testLog(app, shop.store.id)).toMatchObject({ reason, cause, httpStatus });
    },
  );

  it("answers the cause unreachable when nothing listens at the address", async () => {
    const shop = await newStore(app);
    const gone = await platform(() => undefined);
    await gone.close();
    await connect(admin, shop.store.id, woo(gone.url));

    const { result } = await testConnection(admin, shop.store.id);
    expect(result).toMatchObject({ ok: false, cause: "unreachable", httpStatus: null });
    expect(result?.message).toMatch(/could not be reached/);
    expect(testLog(app, shop.store.id)).toMatchObject({
      cause: "unreachable",
      code: "ECONNREFUSED",
    });
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
      cause: "private-address",
      httpStatus: null,
    });
    expect(result?.message).toMatch(/private network/);
    expect(result?.message).not.toContain("127.0.0.1");
    expect(internal.connections).toBe(0);
  });
});
