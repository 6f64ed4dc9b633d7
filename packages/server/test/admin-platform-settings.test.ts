import type { IncomingMessage, ServerResponse } from "node:http";
import { platformConnectionSummarySchema, problemSchema } from "@loyalty/shared-types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";
import { loopbackListener, type LoopbackListener } from "./support/loopback.js";

/**
 * GET and PUT /admin/stores/{storeId}/platform: the settings read back (never a secret), and a
 * save that leaves the secrets out to keep the stored ones, only for the same platform and URL.
 * The platforms are real listeners on loopback (the service runs with ALLOW_PRIVATE_URLS).
 */

const TOKEN = "shpat_kept_token_0123456789abcdef";
const WEBSERVICE_KEY = "PSKEY0123456789ABCDEFGHIJKLMNOPQ";
const SECRETS = [TOKEN, WEBSERVICE_KEY];

let app: TestApp;
let admin: AdminSession;
let storeCount = 0;
const listeners: LoopbackListener[] = [];

beforeAll(async () => {
  app = await startTestApp({
    env: {
      PLATFORM_TIMEOUT_MS: "1000",
      CLAIM_RECONCILE_AFTER_MS: "2000",
      ALLOW_PRIVATE_URLS: "true",
    },
  });
  admin = await adminSession(app);
});
afterAll(async () => {
  await app.close();
});
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

/** A Shopify shop that knows no customer, and what it was asked with which token. */
async function shopify(): Promise<LoopbackListener & { seen: { path: string; token: string }[] }> {
  const seen: { path: string; token: string }[] = [];
  const listener = await loopbackListener((req: IncomingMessage, res: ServerResponse) => {
    seen.push({
      path: req.url ?? "",
      token: String(req.headers["x-shopify-access-token"] ?? ""),
    });
    req.resume();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ data: { customers: { nodes: [] } } }));
  });
  listeners.push(listener);
  return Object.assign(listener, { seen });
}

async function newStore(): Promise<number> {
  storeCount += 1;
  const { store } = await storeWithKey(app, `https://platform-settings-${storeCount}.example`);
  return store.id;
}

interface Answer {
  status: number;
  text: string;
  body: unknown;
}

const responses: string[] = [];

async function call(method: string, storeId: number, body?: unknown): Promise<Answer> {
  const response = await admin.request(method, `/admin/stores/${storeId}/platform`, body);
  const text = await response.text();
  responses.push(text);
  return { status: response.status, text, body: JSON.parse(text) as unknown };
}

async function save(storeId: number, body: unknown) {
  const saved = await call("PUT", storeId, body);
  expect(saved.status, saved.text).toBe(200);
  return platformConnectionSummarySchema.parse(saved.body);
}

async function read(storeId: number) {
  return platformConnectionSummarySchema.parse((await call("GET", storeId)).body);
}

/** A validation-failed problem whose issues name exactly these fields, with these words. */
function expectRefused(answer: Answer, issues: [pointer: string, message: string][]) {
  expect(answer.status, answer.text).toBe(400);
  const problem = problemSchema.parse(answer.body);
  expect(problem.type).toMatch(/\/validation-failed$/);
  expect(problem.errors?.map((issue) => [issue.pointer, issue.message])).toEqual(issues);
}

async function testConnection(storeId: number) {
  const response = await admin.request("POST", `/admin/stores/${storeId}/platform/test`);
  responses.push(await response.clone().text());
  return (await response.json()) as { ok: boolean };
}

describe("the platform connection's settings", () => {
  it("are read back with the platform, without a secret", async () => {
    const storeId = await newStore();
    expect(await read(storeId)).toEqual({
      platform: "sandbox",
      url: null,
      hasCredentials: false,
      settings: null,
    });

    const shop = await shopify();
    const shopifySummary = {
      platform: "shopify",
      url: shop.url,
      hasCredentials: true,
      settings: { platform: "shopify", apiVersion: "2026-01" },
    };
    expect(
      await save(storeId, {
        platform: "shopify",
        url: shop.url,
        accessToken: TOKEN,
        apiVersion: "2026-01",
      }),
    ).toEqual(shopifySummary);
    expect(await read(storeId)).toEqual(shopifySummary);

    const prestashopSummary = {
      platform: "prestashop",
      url: "https://boutique.example",
      hasCredentials: true,
      settings: { platform: "prestashop", languageId: 2, currencyId: 3 },
    };
    expect(
      await save(storeId, {
        platform: "prestashop",
        url: "https://boutique.example/",
        webserviceKey: WEBSERVICE_KEY,
        languageId: 2,
        currencyId: 3,
      }),
    ).toEqual(prestashopSummary);
    expect(await read(storeId)).toEqual(prestashopSummary);
  });

  it("keeps the stored secret when a save leaves it out for the same platform and URL", async () => {
    const storeId = await newStore();
    const shop = await shopify();
    await save(storeId, { platform: "shopify", url: shop.url, accessToken: TOKEN });

    // The same URL, written another way (a trailing slash), is the same URL.
    const changed = await save(storeId, {
      platform: "shopify",
      url: `${shop.url}/`,
      apiVersion: "2026-04",
    });
    expect(changed).toMatchObject({
      url: shop.url,
      hasCredentials: true,
      settings: { platform: "shopify", apiVersion: "2026-04" },
    });

    // The adapter speaks the new version with the token typed before.
    expect(await testConnection(storeId)).toMatchObject({ ok: true });
    expect(shop.seen).toEqual([{ path: "/admin/api/2026-04/graphql.json", token: TOKEN }]);
  });

  it("takes the other settings from the save, their defaults included", async () => {
    const storeId = await newStore();
    const url = "https://kept-key.example";
    await save(storeId, {
      platform: "prestashop",
      url,
      webserviceKey: WEBSERVICE_KEY,
      languageId: 2,
      currencyId: 3,
    });
    const saved = await save(storeId, { platform: "prestashop", url, languageId: 4 });
    expect(saved.settings).toEqual({ platform: "prestashop", languageId: 4, currencyId: 1 });
    expect(saved.hasCredentials).toBe(true);
  });

  it("asks for every secret again when the URL or the platform changes, or none is stored", async () => {
    const storeId = await newStore();
    const stored = await shopify();
    const other = await shopify();
    await save(storeId, { platform: "shopify", url: stored.url, accessToken: TOKEN });
    const before = await read(storeId);

    // The stored token must not be sent to another address.
    expectRefused(await call("PUT", storeId, { platform: "shopify", url: other.url }), [
      ["/accessToken", "accessToken is required"],
    ]);
    expectRefused(await call("PUT", storeId, { platform: "woocommerce", url: stored.url }), [
      ["/consumerKey", "consumerKey is required"],
      ["/consumerSecret", "consumerSecret is required"],
    ]);
    expect(await read(storeId)).toEqual(before);
    expect(await testConnection(storeId)).toMatchObject({ ok: true });
    expect(stored.seen.map((request) => request.token)).toEqual([TOKEN]);
    expect(other.connections).toBe(0);

    const fresh = await newStore();
    expectRefused(
      await call("PUT", fresh, { platform: "prestashop", url: "https://boutique.example" }),
      [["/webserviceKey", "webserviceKey is required"]],
    );
  });

  it("stored credentials that no longer read: no settings shown, and a complete save mends them", async () => {
    const storeId = await newStore();
    const shop = await shopify();
    await save(storeId, { platform: "shopify", url: shop.url, accessToken: TOKEN });
    // Sealed under another key, or before a rule was tightened: they no longer read.
    await app.context.pool.query(`UPDATE stores SET platform_credentials = $2 WHERE id = $1`, [
      storeId,
      Buffer.from("not what the service sealed"),
    ]);
    expect(await read(storeId)).toEqual({
      platform: "shopify",
      url: shop.url,
      hasCredentials: true,
      settings: null,
    });
    expect(app.logs.join("")).toContain("stored platform credentials could not be read");

    // Nothing to keep: the secret is asked for, as for a store without one.
    expectRefused(await call("PUT", storeId, { platform: "shopify", url: shop.url }), [
      ["/accessToken", "accessToken is required"],
    ]);
    // Typed again, it replaces what was stored, which is not even read.
    await save(storeId, { platform: "shopify", url: shop.url, accessToken: TOKEN });
    expect((await read(storeId)).settings).toEqual({ platform: "shopify", apiVersion: "2026-10" });
    expect(await testConnection(storeId)).toMatchObject({ ok: true });
  });

  it("never answers with a secret", () => {
    expect(responses.length).toBeGreaterThan(10);
    for (const text of responses) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
    const logs = app.logs.join("");
    for (const secret of SECRETS) expect(logs).not.toContain(secret);
  });
});
