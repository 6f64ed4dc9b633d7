import { problemSchema } from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config.js";
import { adminSession } from "./support/admin.js";
import { basic, startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, hashFor, oneLineOrder, storeWithKey } from "./support/fixtures.js";

const DOMAIN = "https://limited.example";
let app: TestApp;
let history: (id: number) => string;
let authorization: string;

beforeAll(async () => {
  app = await startTestApp({
    env: {
      RATE_LIMIT_WINDOW_SECONDS: "60",
      RATE_LIMIT_STOREFRONT: "5",
      RATE_LIMIT_CUSTOMER: "3",
      RATE_LIMIT_API_KEY: "4",
      RATE_LIMIT_ADMIN_LOGIN: "2",
      RATE_LIMIT_ADMIN: "0",
    },
  });
  const { store, key, authorization: basic } = await storeWithKey(app, DOMAIN);
  authorization = basic;
  for (const id of [1, 2]) await customerWithPoints(app.context.pool, store.id, id, 10);
  history = (id) =>
    `${app.baseUrl}/point/user-history/${id}?hash=${hashFor(store.reference, key, id)}&domain=${encodeURIComponent(DOMAIN)}`;
});

afterAll(() => app.close());

const widgetUrl = () => `${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(DOMAIN)}`;

describe("rate limits", () => {
  it("counts the storefront reads per address, with the IETF headers, and refuses with a 429 problem", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push(await fetch(widgetUrl(), { headers: { revision: "2026-08-26" } }));
    expect(answers.slice(0, 5).map((response) => response.status)).toEqual([
      200, 200, 200, 200, 200,
    ]);
    // draft-ietf-httpapi-ratelimit-headers-07: the quota per window, and what is left.
    expect(answers[0]!.headers.get("ratelimit-policy")).toBe("5;w=60");
    expect(answers[0]!.headers.get("ratelimit")).toMatch(/^limit=5, remaining=4, reset=\d+$/);
    expect(answers[4]!.headers.get("ratelimit")).toMatch(/^limit=5, remaining=0, reset=\d+$/);

    const refused = answers[5]!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    // The widgets can read it: the CORS header is on the refusal too.
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const problem = problemSchema.parse(await refused.json());
    expect(problem.type).toBe("https://loyalty.dev/problems/rate-limited");
    expect(problem.status).toBe(429);
    expect(problem.detail).toBe(
      "Too many requests for this address: at most 5 every 60 seconds. Retry after the seconds Retry-After gives.",
    );
  });

  it("answers the legacy format to a request without a revision", async () => {
    const refused = await fetch(widgetUrl());
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      statusCode: 429,
      error: "Too Many Requests",
      message:
        "Too many requests for this address: at most 5 every 60 seconds. Retry after the seconds Retry-After gives.",
    });
  });

  it("counts the customer-hash operations per customer, so one customer's limit spares another", async () => {
    const first = [];
    for (let i = 0; i < 4; i++) first.push((await fetch(history(1))).status);
    expect(first).toEqual([200, 200, 200, 429]);
    expect((await fetch(history(2))).status).toBe(200);
  });

  it("counts orders per API key, and a refused registration stores nothing", async () => {
    const register = (id: number) =>
      fetch(`${app.baseUrl}/api/order/register`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json", revision: "2026-08-26" },
        body: oneLineOrder(id),
      });
    const statuses = [];
    for (let id = 100; id < 105; id++) statuses.push((await register(id)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429]);
    const { rows } = await app.context.pool.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM orders WHERE external_id = '104'",
    );
    expect(rows[0]!.count).toBe(0);
  });

  it("slows password guessing on the back-office sign-in", async () => {
    const attempt = () =>
      fetch(`${app.baseUrl}/admin/token`, {
        method: "POST",
        headers: { "content-type": "application/json", revision: "2026-08-26" },
        body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
      });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  it("leaves the health probes and the preflights alone", async () => {
    for (let i = 0; i < 10; i++) {
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
    }
    const preflight = await fetch(widgetUrl(), {
      method: "OPTIONS",
      headers: { origin: "https://limited.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
  });
});

describe("rate limit windows", () => {
  it("counts a customer's requests per address: wrong hashes from one never lock the customer out", async () => {
    const proxied = await startTestApp({
      env: { RATE_LIMIT_CUSTOMER: "2", TRUST_PROXY: "loopback" },
    });
    try {
      const { store, key } = await storeWithKey(proxied, DOMAIN);
      await customerWithPoints(proxied.context.pool, store.id, 7, 10);
      const url = (hash: string) =>
        `${proxied.baseUrl}/point/user-history/7?hash=${hash}&domain=${encodeURIComponent(DOMAIN)}`;
      const from = (address: string, hash: string) =>
        fetch(url(hash), { headers: { "x-forwarded-for": address } });
      const wrong = "0".repeat(128);
      const attacker = [];
      for (let i = 0; i < 3; i++) attacker.push((await from("203.0.113.9", wrong)).status);
      expect(attacker).toEqual([401, 401, 429]);
      // The customer's own page, from their address, still reads the history.
      expect((await from("198.51.100.4", hashFor(store.reference, key, 7))).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it("counts an IPv6 network as one address, and an IPv4-mapped address as its IPv4 one", async () => {
    const proxied = await startTestApp({
      env: { RATE_LIMIT_STOREFRONT: "2", TRUST_PROXY: "loopback" },
    });
    try {
      await storeWithKey(proxied, DOMAIN);
      const from = async (address: string) =>
        (
          await fetch(`${proxied.baseUrl}/store/widget/cart?domain=${encodeURIComponent(DOMAIN)}`, {
            headers: { "x-forwarded-for": address },
          })
        ).status;
      // One /56: a household's or an office's devices each have an address of their own.
      const network = ["2001:db8:1:100::1", "2001:db8:1:1ff::2", "2001:db8:1:180::3"];
      const statuses = [];
      for (const address of network) statuses.push(await from(address));
      expect(statuses).toEqual([200, 200, 429]);
      expect(await from("2001:db8:2::1")).toBe(200);
      // A server listening on every interface sees IPv4 clients as IPv4-mapped IPv6.
      expect([await from("::ffff:203.0.113.9"), await from("203.0.113.9")]).toEqual([200, 200]);
      expect(await from("::ffff:203.0.113.9")).toBe(429);
      // Asked again, the remembered keys answer the same.
      expect([await from("2001:db8:1:1ff::9"), await from("203.0.113.9")]).toEqual([429, 429]);
    } finally {
      await proxied.close();
    }
  });

  it("counts a path however it is spelled: letter case, a trailing slash, HEAD for GET", async () => {
    const strict = await startTestApp({
      env: { RATE_LIMIT_STOREFRONT: "2", RATE_LIMIT_ADMIN_LOGIN: "1" },
    });
    try {
      await storeWithKey(strict, DOMAIN);
      const query = `?domain=${encodeURIComponent(DOMAIN)}`;
      const statuses = [
        (await fetch(`${strict.baseUrl}/store/widget/cart${query}`)).status,
        (await fetch(`${strict.baseUrl}/Store/Widget/Cart/${query}`, { method: "HEAD" })).status,
        (await fetch(`${strict.baseUrl}/store/widget/cart/${query}`)).status,
      ];
      expect(statuses).toEqual([200, 200, 429]);

      const signIn = (path: string) =>
        fetch(`${strict.baseUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
        });
      expect((await signIn("/admin/token")).status).toBe(401);
      expect((await signIn("/Admin/Token/")).status).toBe(429);
    } finally {
      await strict.close();
    }
  });

  it("lets a client in again once its window is over, and says when", async () => {
    const short = await startTestApp({
      env: { RATE_LIMIT_WINDOW_SECONDS: "1", RATE_LIMIT_STOREFRONT: "2" },
    });
    try {
      await storeWithKey(short, DOMAIN);
      const read = () =>
        fetch(`${short.baseUrl}/store/widget/cart?domain=${encodeURIComponent(DOMAIN)}`);
      const statuses = [(await read()).status, (await read()).status];
      const refused = await read();
      expect([...statuses, refused.status]).toEqual([200, 200, 429]);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.headers.get("ratelimit")).toBe("limit=2, remaining=0, reset=1");
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const again = await read();
      expect(again.status).toBe(200);
      expect(again.headers.get("ratelimit")).toBe("limit=2, remaining=1, reset=1");
    } finally {
      await short.close();
    }
  });
});

describe("limits on who is asking, not how the header is written", () => {
  const order = oneLineOrder;

  it("counts an API key once however its Authorization header is spelled", async () => {
    const keyed = await startTestApp({ env: { RATE_LIMIT_API_KEY: "5" } });
    try {
      const { key } = await storeWithKey(keyed, DOMAIN);
      const encoded = Buffer.from(`${key}:`).toString("base64");
      const register = (authorization: string, id: number) =>
        fetch(`${keyed.baseUrl}/api/order/register`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json", revision: "2026-08-26" },
          body: order(id),
        });
      const allowed = [];
      for (let id = 1; id <= 5; id++) allowed.push((await register(`Basic ${encoded}`, id)).status);
      expect(allowed).toEqual([201, 201, 201, 201, 201]);
      const spellings = [
        `basic ${encoded}`,
        `BASIC ${encoded}`,
        `Basic  ${encoded}`,
        `Basic\t${encoded} `,
      ];
      const refused = [];
      for (const [index, spelling] of spellings.entries()) {
        refused.push((await register(spelling, 10 + index)).status);
      }
      expect(refused).toEqual([429, 429, 429, 429]);
    } finally {
      await keyed.close();
    }
  });

  it("counts an admin once however the bearer token is spelled", async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_ADMIN: "3" } });
    try {
      const { token } = await adminSession(limited);
      const list = (authorization: string) =>
        fetch(`${limited.baseUrl}/admin/stores`, { headers: { authorization } });
      const statuses = [];
      for (const spelling of [
        `Bearer ${token}`,
        `Bearer ${token}`,
        `Bearer ${token}`,
        `bearer ${token}`,
        `BEARER ${token}`,
        `Bearer   ${token}`,
      ]) {
        statuses.push((await list(spelling)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    } finally {
      await limited.close();
    }
  });

  it("limits an address's failed authentications, lets right credentials through, and keeps no counter per wrong key", async () => {
    const guarded = await startTestApp({
      env: { RATE_LIMIT_FAILED_AUTH: "3", RATE_LIMIT_API_KEY: "100", RATE_LIMIT_ADMIN: "100" },
    });
    try {
      const { store, key, authorization: right } = await storeWithKey(guarded, DOMAIN);
      const register = (authorization: string, id: number) =>
        fetch(`${guarded.baseUrl}/api/order/register`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json", revision: "2026-08-26" },
          body: order(id),
        });
      const wrong = (n: number) => basic(`lk_${String(n).padStart(10, "0")}_${"x".repeat(43)}`);
      const history = `${guarded.baseUrl}/point/user-history/1?hash=${"0".repeat(128)}&domain=${encodeURIComponent(DOMAIN)}`;
      const rightHistory = history.replace("0".repeat(128), hashFor(store.reference, key, 1));
      // The shop's server and a shopper were there before anyone guessed.
      expect((await register(right, 499)).status).toBe(201);
      expect((await fetch(rightHistory)).status).toBe(200);
      const statuses = [];
      for (let n = 0; n < 5; n++) statuses.push((await register(wrong(n), n)).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const refused = await register(wrong(99), 99);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("www-authenticate")).toBeNull();
      expect(await refused.json()).toMatchObject({
        detail:
          "Too many failed authentications from this address: at most 3 every 60 seconds. Retry after the seconds Retry-After gives.",
      });
      // A wrong customer hash or bearer token from that address is refused the same way.
      expect((await fetch(history)).status).toBe(429);
      expect(
        (
          await fetch(`${guarded.baseUrl}/admin/stores`, {
            headers: { authorization: "Bearer x.y.z" },
          })
        ).status,
      ).toBe(429);
      // The shop's own server, behind the same address, still registers its orders.
      expect((await register(right, 500)).status).toBe(201);
      expect((await fetch(rightHistory)).status).toBe(200);
      // Even once a change of the store (the merchant edits a rule) made the server forget its
      // credentials.
      await guarded.context.pool.query("UPDATE stores SET language = language WHERE id = $1", [
        store.id,
      ]);
      await guarded.context.services.changes.barrier();
      expect((await register(right, 501)).status).toBe(201);
      expect((await fetch(rightHistory)).status).toBe(200);

      // Invented keys and domains from that address cost no database query any more.
      const query = vi.spyOn(guarded.context.pool, "query");
      for (let n = 100; n < 120; n++) {
        expect((await register(wrong(n), n)).status).toBe(429);
        const elsewhere = history.replace(
          encodeURIComponent(DOMAIN),
          `https%3A%2F%2Fshop${n}.example`,
        );
        expect((await fetch(elsewhere)).status).toBe(429);
      }
      expect(query).not.toHaveBeenCalled();
      query.mockRestore();

      // Thousands of invented keys cost no counter each.
      for (let n = 1_000; n < 3_000; n += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, offset) => register(wrong(n + offset), n + offset)),
        );
      }
      expect(guarded.context.services.rateLimits.countedKeys).toBeLessThanOrEqual(3);
    } finally {
      await guarded.close();
    }
  });
});

describe("the storefront limit by default", () => {
  it("serves ten page views a second from one address (an office, a carrier's NAT) for a whole window", async () => {
    const defaults = loadConfig({}).rateLimits;
    const shop = await startTestApp({
      env: {
        RATE_LIMIT_STOREFRONT: String(defaults.storefront),
        RATE_LIMIT_WINDOW_SECONDS: String(defaults.windowSeconds),
      },
    });
    try {
      const domain = encodeURIComponent("https://office.example");
      await shop.context.services.stores.create({
        domain: "https://office.example",
        reference: "office-ref-1",
      });
      // A page view of a collection page with a mini-cart: the product points' configuration,
      // every product's points in one request, the cart's configuration.
      const pageView = [
        `/store/widget/product-points?domain=${domain}`,
        `/point/product-points/calculate-many?domain=${domain}&items=1:10,2:20,3:30`,
        `/store/widget/cart?domain=${domain}`,
      ];
      const views = 10 * defaults.windowSeconds;
      const paths = Array.from({ length: views }, () => pageView).flat();
      const statuses: number[] = [];
      // Twenty at a time, as fast as they are answered: the window's whole count at once.
      for (let start = 0; start < paths.length; start += 20) {
        const batch = paths.slice(start, start + 20);
        const answers = await Promise.all(batch.map((path) => fetch(`${shop.baseUrl}${path}`)));
        for (const answer of answers) {
          statuses.push(answer.status);
          await answer.arrayBuffer();
        }
      }
      expect(statuses).toHaveLength(views * pageView.length);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      await shop.close();
    }
  });
});
