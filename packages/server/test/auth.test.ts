import { execFileSync } from "node:child_process";
import { Router, type Request, type RequestHandler, type Response } from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { basicAuth } from "../src/auth/basic.middleware.js";
import {
  hmacAuth,
  MAX_REMEMBERED_HASHES,
  rememberedHashCount,
} from "../src/auth/hmac.middleware.js";
import { customerHash } from "../src/crypto/secrets.js";
import type { AppContext } from "../src/runtime.js";
import { basic, startTestApp, type TestApp } from "./support/app.js";

/**
 * The business operations arrive in later issues; these probes put the real authentication
 * middlewares in the real pipeline (revision, body, error rendering) to test them end to end.
 */
function probes({ services }: AppContext): Router[] {
  const router = Router();
  const whoami: RequestHandler = (req, res) => {
    res.json({ store: req.store?.domain, customer: req.customerExternalId ?? null });
  };
  const { apiKeys, rateLimits } = services;
  router.post("/probe/basic", rateLimits.guard(basicAuth(apiKeys)), whoami);
  router.get("/probe/customer/:externalId", rateLimits.guard(hmacAuth(apiKeys, "path")), whoami);
  router.post("/probe/referral", rateLimits.guard(hmacAuth(apiKeys, "query")), whoami);
  return [router];
}

/** The hash as a store's developer would compute it, without our code. */
function opensslHash(externalId: string, reference: string, key: string): string {
  const out = execFileSync("openssl", ["dgst", "-sha512", "-hmac", `${reference}:${key}`], {
    input: externalId,
  }).toString();
  return out.trim().split(" ").pop() as string;
}

let app: TestApp;
let shop: { reference: string; domain: string };
let keyA: string;
let keyB: string;
let otherShopKey: string;
let revokedKey: string;

beforeAll(async () => {
  app = await startTestApp({ routers: probes });
  const { stores, apiKeys } = app.context.services;
  shop = await stores.create({ domain: "https://shop.example", reference: "shop-ref-1" });
  const other = await stores.create({ domain: "https://other.example" });
  keyA = (await apiKeys.create(shop.reference)).key;
  keyB = (await apiKeys.create(shop.reference)).key;
  revokedKey = (await apiKeys.create(shop.reference)).key;
  await apiKeys.revoke(revokedKey);
  otherShopKey = (await apiKeys.create(other.reference)).key;
});
afterAll(() => app.close());

const post = (path: string, headers: Record<string, string>, body: unknown = {}) =>
  fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("Basic authentication (order operations)", () => {
  it("accepts each active key of the store as the user name with an empty password", async () => {
    for (const key of [keyA, keyB]) {
      const response = await post("/probe/basic", { authorization: basic(key) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ store: "https://shop.example", customer: null });
    }
  });

  it.each([
    ["no header", undefined],
    ["a wrong key", () => basic(`${keyA.slice(0, -4)}AAAA`)],
    ["a revoked key", () => basic(revokedKey)],
    ["a key with a password", () => basic(keyA, "secret")],
    ["the key as the password", () => basic("", keyA)],
    ["a Bearer token", () => `Bearer ${keyA}`],
    ["garbage", () => "Basic !!!"],
  ])("refuses %s with 401 unauthorized in the legacy format", async (_name, header) => {
    const response = await post("/probe/basic", header ? { authorization: header() } : {});
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      'Basic realm="Loyalty API", charset="UTF-8"',
    );
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.stringContaining("API key"),
    });
  });

  it("authenticates another store's key as that store, never as this one", async () => {
    const response = await post("/probe/basic", { authorization: basic(otherShopKey) });
    expect(await response.json()).toMatchObject({ store: "https://other.example" });
  });

  it("refuses with a problem object from revision 2026-08-26", async () => {
    const response = await post("/probe/basic", {
      authorization: basic("lk_nope"),
      revision: "2026-08-26",
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({
      type: "https://loyalty.dev/problems/unauthorized",
      status: 401,
      title: "Unauthorized",
    });
  });
});

const history = (externalId: string, query: Record<string, string>, headers = {}) =>
  fetch(`${app.baseUrl}/probe/customer/${externalId}?${new URLSearchParams(query).toString()}`, {
    headers,
  });

describe("HMAC customer hash", () => {
  it("accepts a hash computed with openssl for each of the store's active keys", async () => {
    for (const key of [keyA, keyB]) {
      const hash = opensslHash("42", shop.reference, key);
      const response = await history("42", { hash, domain: shop.domain });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ store: shop.domain, customer: 42 });
    }
  });

  it("normalises the domain's case and trailing slash", async () => {
    const hash = opensslHash("42", shop.reference, keyA);
    const response = await history("42", { hash, domain: "HTTPS://Shop.Example/" });
    expect(response.status).toBe(200);
  });

  it("accepts the externalId repeated in the query when it is the same", async () => {
    const hash = opensslHash("42", shop.reference, keyA);
    expect((await history("42", { hash, domain: shop.domain, externalId: "42" })).status).toBe(200);
    expect((await history("42", { hash, domain: shop.domain, externalId: "43" })).status).toBe(401);
  });

  it("takes the externalId from the query for the referral operation", async () => {
    const hash = opensslHash("7", shop.reference, keyB);
    const query = new URLSearchParams({ externalId: "7", hash, domain: shop.domain });
    const response = await post(`/probe/referral?${query.toString()}`, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ store: shop.domain, customer: 7 });
  });

  const good = () => opensslHash("42", shop.reference, keyA);
  it.each([
    [
      "a revoked key's hash",
      () => ({ hash: opensslHash("42", shop.reference, revokedKey), domain: shop.domain }),
    ],
    [
      "another store's key",
      () => ({ hash: opensslHash("42", shop.reference, otherShopKey), domain: shop.domain }),
    ],
    ["another store's domain", () => ({ hash: good(), domain: "https://other.example" })],
    ["an unknown domain", () => ({ hash: good(), domain: "https://unknown.example" })],
    ["an upper-cased hash", () => ({ hash: good().toUpperCase(), domain: shop.domain })],
    ["a truncated hash", () => ({ hash: good().slice(0, 127), domain: shop.domain })],
    [
      "another customer's hash",
      () => ({ hash: opensslHash("43", shop.reference, keyA), domain: shop.domain }),
    ],
    ["no hash", () => ({ domain: shop.domain })],
    ["no domain", () => ({ hash: good() })],
    ["the key as the hash", () => ({ hash: keyA, domain: shop.domain })],
    [
      "a domain with a NUL character",
      () => ({ hash: good(), domain: "https://sh\u0000op.example" }),
    ],
  ])("refuses %s with 401", async (_name, query) => {
    const response = await history("42", query());
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ statusCode: 401, error: "Unauthorized" });
  });

  it("refuses a non-numeric externalId with 401, in the problem format from 2026-08-26", async () => {
    const hash = opensslHash("abc", shop.reference, keyA);
    const response = await history(
      "abc",
      { hash, domain: shop.domain },
      { revision: "2026-08-26" },
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      type: "https://loyalty.dev/problems/unauthorized",
    });
  });

  it("takes a hash found right again for its customer only, in its very form", async () => {
    const hash = opensslHash("42", shop.reference, keyA);
    for (let time = 0; time < 2; time++) {
      expect((await history("42", { hash, domain: shop.domain })).status).toBe(200);
    }
    expect((await history("43", { hash, domain: shop.domain })).status).toBe(401);
    expect((await history("042", { hash, domain: shop.domain })).status).toBe(401);
    expect((await history("42", { hash, domain: "https://other.example" })).status).toBe(401);
  });

  it("remembers at most MAX_REMEMBERED_HASHES hashes found right, however many customers ask", async () => {
    const authenticate = hmacAuth(app.context.services.apiKeys, "query");
    const reference = shop.reference;
    for (let id = 1; id <= MAX_REMEMBERED_HASHES + 50; id++) {
      const externalId = String(1_000_000 + id);
      const hash = customerHash(reference, keyA, externalId);
      const req = { query: { externalId, hash, domain: shop.domain }, params: {} } as unknown;
      await authenticate(req as Request, {} as Response, { lookups: true });
    }
    expect(rememberedHashCount()).toBe(MAX_REMEMBERED_HASHES);
  });

  it("stops accepting a key's hashes as soon as the key is revoked", async () => {
    const { key } = await app.context.services.apiKeys.create(shop.reference);
    const hash = opensslHash("42", shop.reference, key);
    expect((await history("42", { hash, domain: shop.domain })).status).toBe(200);
    await app.context.services.apiKeys.revoke(key);
    expect((await history("42", { hash, domain: shop.domain })).status).toBe(401);
  });
});

describe("secrets at rest and in logs", () => {
  it("stores API keys encrypted: the plain key is nowhere in the table", async () => {
    const { rows } = await app.context.pool.query<{ dump: string }>(
      `SELECT string_agg(t::text, ' ') AS dump FROM api_keys t`,
    );
    const dump = rows[0]?.dump ?? "";
    const secretPart = keyA.slice(14);
    expect(dump).not.toContain(secretPart);
    expect(dump).not.toContain(Buffer.from(secretPart).toString("hex"));
  });

  it("never writes a key or a customer hash in the logs", async () => {
    const hash = opensslHash("42", shop.reference, keyA);
    await post("/probe/basic", { authorization: basic(keyA) });
    await history("42", { hash, domain: shop.domain });
    const logs = app.logs.join("");
    expect(logs).toContain("/probe/customer/42");
    expect(logs).not.toContain(keyA.slice(14));
    expect(logs).not.toContain(hash);
    expect(logs).not.toContain(Buffer.from(`${keyA}:`).toString("base64"));
  });
});

describe("credentials kept in memory", () => {
  it("stop working in every process as soon as a key is revoked", async () => {
    const other = await startTestApp({ database: app.database, routers: probes });
    try {
      const { key } = await app.context.services.apiKeys.create(shop.reference);
      const hash = opensslHash("42", shop.reference, key);
      const historyOn = (base: string) =>
        fetch(
          `${base}/probe/customer/42?${new URLSearchParams({ hash, domain: shop.domain }).toString()}`,
        );
      const basicOn = (base: string) =>
        fetch(`${base}/probe/basic`, { method: "POST", headers: { authorization: basic(key) } });
      // The other process reads the key once, then holds it in memory.
      expect((await historyOn(other.baseUrl)).status).toBe(200);
      expect((await basicOn(other.baseUrl)).status).toBe(200);
      await app.context.services.apiKeys.revoke(key);
      await vi.waitFor(
        async () => {
          expect((await historyOn(other.baseUrl)).status).toBe(401);
          expect((await basicOn(other.baseUrl)).status).toBe(401);
        },
        { timeout: 2_000, interval: 20 },
      );
    } finally {
      await other.close();
    }
  });
});
