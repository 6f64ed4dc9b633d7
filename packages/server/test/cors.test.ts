import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";

const STORE_ORIGIN = "https://cors-shop.example";
const OTHER_ORIGIN = "https://evil.example";

let app: TestApp;
let history: string;
let claim: string;
let authorization: string;

beforeAll(async () => {
  app = await startTestApp();
  const { store, key, authorization: basic } = await storeWithKey(app, STORE_ORIGIN);
  authorization = basic;
  await customerWithPoints(app.context.pool, store.id, 7, 100);
  const query = `hash=${hashFor(store.reference, key, 7)}&domain=${encodeURIComponent(STORE_ORIGIN)}`;
  history = `/point/user-history/7?${query}`;
  claim = `/reward/claim/7?${query}`;
});

afterAll(() => app.close());

const preflight = (path: string, origin: string, method: string, headers = "content-type") =>
  fetch(`${app.baseUrl}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": headers,
    },
  });

describe("CORS for the storefront widgets", () => {
  it("lets any origin read the public storefront operations, errors included", async () => {
    const domain = encodeURIComponent(STORE_ORIGIN);
    for (const path of [
      `/store/widget/cart?domain=${domain}`,
      `/reward/list?domain=${domain}`,
      `/point/product-points/calculate?price=10&domain=${domain}`,
    ]) {
      const response = await fetch(`${app.baseUrl}${path}`, { headers: { origin: OTHER_ORIGIN } });
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-expose-headers")).toContain("revision");
    }
    // A widget must be able to read why it failed.
    const unknown = await fetch(`${app.baseUrl}/reward/list?domain=https://nowhere.example`, {
      headers: { origin: OTHER_ORIGIN, revision: "2026-08-26" },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("access-control-allow-origin")).toBe("*");
    const badRevision = await fetch(`${app.baseUrl}/reward/list?domain=${domain}`, {
      headers: { origin: OTHER_ORIGIN, revision: "yesterday" },
    });
    expect(badRevision.status).toBe(400);
    expect(badRevision.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("sends the public header without an Origin too, so a shared cache cannot strip it", async () => {
    const response = await fetch(
      `${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(STORE_ORIGIN)}`,
    );
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers a preflight for a public operation with the widgets' headers, cached two hours", async () => {
    const response = await preflight(
      "/reward/referral/get-referee-code",
      OTHER_ORIGIN,
      "POST",
      "content-type, revision, idempotency-key",
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("POST");
    const allowed = response.headers.get("access-control-allow-headers")!.split(/,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining(["content-type", "revision", "idempotency-key"]),
    );
    expect(response.headers.get("access-control-max-age")).toBe("7200");
  });

  it("lets only the store's own origin call the operations authenticated by the customer hash", async () => {
    const own = await preflight(claim, STORE_ORIGIN, "POST", "content-type, revision");
    expect(own.status).toBe(204);
    expect(own.headers.get("access-control-allow-origin")).toBe(STORE_ORIGIN);
    expect(own.headers.get("vary")).toContain("Origin");

    const foreign = await preflight(claim, OTHER_ORIGIN, "POST", "content-type, revision");
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    expect(foreign.headers.get("access-control-allow-methods")).toBeNull();

    const read = await fetch(`${app.baseUrl}${history}`, { headers: { origin: STORE_ORIGIN } });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBe(STORE_ORIGIN);
    expect(read.headers.get("vary")).toContain("Origin");

    const stolen = await fetch(`${app.baseUrl}${history}`, { headers: { origin: OTHER_ORIGIN } });
    expect(stolen.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a preflight and a call whose path Express cannot decode as for any other path", async () => {
    const broken = claim.replace("/7?", "/%ZZ?");
    const own = await preflight(broken, STORE_ORIGIN, "POST", "content-type, revision");
    expect(own.status).toBe(204);
    expect(own.headers.get("access-control-allow-origin")).toBe(STORE_ORIGIN);
    const elsewhere = await preflight("/admin/stores/%ZZ", STORE_ORIGIN, "GET");
    expect(elsewhere.status).toBe(204);
    expect(elsewhere.headers.get("access-control-allow-origin")).toBeNull();
    // The widget can read why it was refused.
    const read = await fetch(`${app.baseUrl}${history.replace("/7?", "/%ZZ?")}`, {
      headers: { origin: STORE_ORIGIN },
    });
    expect(read.status).toBe(401);
    expect(read.headers.get("access-control-allow-origin")).toBe(STORE_ORIGIN);
  });

  it("matches the store's domain as look-ups do: case and a trailing slash aside", async () => {
    const path = history.replace(encodeURIComponent(STORE_ORIGIN), "HTTPS://CORS-SHOP.EXAMPLE/");
    const response = await fetch(`${app.baseUrl}${path}`, { headers: { origin: STORE_ORIGIN } });
    expect(response.headers.get("access-control-allow-origin")).toBe(STORE_ORIGIN);
  });

  it("never opens orders, refunds or the back-office to a browser", async () => {
    for (const [path, method] of [
      ["/api/order/register", "POST"],
      ["/api/order/refund", "POST"],
      ["/admin/token", "POST"],
      ["/admin/stores", "GET"],
    ] as const) {
      const response = await preflight(path, STORE_ORIGIN, method, "authorization, content-type");
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
    const register = await fetch(`${app.baseUrl}/api/order/register`, {
      method: "POST",
      headers: { origin: STORE_ORIGIN, authorization, "content-type": "application/json" },
      body: "{}",
    });
    expect(register.status).toBe(400);
    expect(register.headers.get("access-control-allow-origin")).toBeNull();
  });
});
