import { randomBytes } from "node:crypto";
import net from "node:net";
import { Writable } from "node:stream";
import getPort from "get-port";
import { Redis } from "ioredis";
import { problemSchema } from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../src/http/logger.js";
import { SharedCounts } from "../src/http/rate-limit.store.js";
import { adminSession } from "./support/admin.js";
import { basic, eventually, startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, hashFor, oneLineOrder, storeWithKey } from "./support/fixtures.js";

/** A real Redis, as for the API processes; each test counts under a prefix of its own. */
const REDIS_URL = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379";
const RUN = `loyalty-test:${randomBytes(6).toString("hex")}`;
const DOMAIN = "https://shared.example";

let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
});
afterAll(async () => {
  const keys = await redis.keys(`${RUN}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

let prefixes = 0;
const newPrefix = () => `${RUN}:${++prefixes}:`;

/** Two API processes on one database and one Redis, each with its own limiter. */
async function twoProcesses(
  env: Record<string, string>,
): Promise<{ prefix: string; a: TestApp; b: TestApp; close: () => Promise<void> }> {
  const prefix = newPrefix();
  const shared = {
    RATE_LIMIT_REDIS_URL: REDIS_URL,
    RATE_LIMIT_REDIS_PREFIX: prefix,
    // Not counted in memory for a test machine's slow moment.
    RATE_LIMIT_REDIS_TIMEOUT_MS: "5000",
    ...env,
  };
  const a = await startTestApp({ env: shared });
  const b = await startTestApp({ env: shared, database: a.database });
  return {
    prefix,
    a,
    b,
    close: async () => {
      await b.close();
      await a.close();
    },
  };
}

/** Alternates between the processes, `a` first. */
const alternately = <T>(count: number, send: (app: TestApp, n: number) => Promise<T>) =>
  async function (a: TestApp, b: TestApp): Promise<T[]> {
    const answers: T[] = [];
    for (let n = 0; n < count; n++) answers.push(await send(n % 2 === 0 ? a : b, n));
    return answers;
  };

const order = oneLineOrder;

const register = (app: TestApp, authorization: string, id: number) =>
  fetch(`${app.baseUrl}/api/order/register`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json", revision: "2026-08-26" },
    body: order(id),
  });

const warnings = (app: TestApp) =>
  app.logs.filter((line) => line.includes("Redis is unavailable")).map((line) => JSON.parse(line));

describe("rate limits counted in Redis, shared by the API processes", () => {
  it("counts a storefront client once across processes, with the same headers and problem", async () => {
    const { prefix, a, b, close } = await twoProcesses({
      RATE_LIMIT_WINDOW_SECONDS: "60",
      RATE_LIMIT_STOREFRONT: "5",
    });
    try {
      await storeWithKey(a, DOMAIN);
      const widget = (app: TestApp, revision = true) =>
        fetch(`${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(DOMAIN)}`, {
          headers: revision ? { revision: "2026-08-26" } : {},
        });
      const answers = await alternately(6, (app) => widget(app))(a, b);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(answers.map((answer) => answer.headers.get("ratelimit-policy"))).toEqual(
        Array(6).fill("5;w=60"),
      );
      expect(
        answers.map((answer) => /remaining=(\d+)/.exec(answer.headers.get("ratelimit")!)?.[1]),
      ).toEqual(["4", "3", "2", "1", "0", "0"]);
      for (const answer of answers) {
        expect(answer.headers.get("ratelimit")).toMatch(/^limit=5, remaining=\d, reset=\d+$/);
      }

      const refused = answers[5]!;
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
      const problem = problemSchema.parse(await refused.json());
      expect(problem.type).toBe("https://loyalty.dev/problems/rate-limited");
      expect(problem.detail).toBe(
        "Too many requests for this address: at most 5 every 60 seconds. Retry after the seconds Retry-After gives.",
      );
      // The other process refuses too, in the legacy format to a request without a revision.
      const legacy = await widget(a, false);
      expect(legacy.status).toBe(429);
      expect(await legacy.json()).toMatchObject({ statusCode: 429, error: "Too Many Requests" });

      // One count per policy and address, under the prefix, for the window.
      const keys = await redis.keys(`${prefix}*`);
      expect(keys).toEqual([`${prefix}storefront:127.0.0.1`]);
      const ttl = await redis.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      // Nothing was counted in memory.
      expect(a.context.services.rateLimits.countedKeys).toBe(0);
    } finally {
      await close();
    }
  });

  it("shares the customer, API key, back-office and sign-in limits", async () => {
    const { prefix, a, b, close } = await twoProcesses({
      RATE_LIMIT_CUSTOMER: "3",
      RATE_LIMIT_API_KEY: "4",
      RATE_LIMIT_ADMIN: "3",
      RATE_LIMIT_ADMIN_LOGIN: "4",
    });
    try {
      const { store, key, authorization } = await storeWithKey(a, DOMAIN);
      await customerWithPoints(a.context.pool, store.id, 1, 10);
      const history = (app: TestApp) =>
        fetch(
          `${app.baseUrl}/point/user-history/1?hash=${hashFor(store.reference, key, 1)}&domain=${encodeURIComponent(DOMAIN)}`,
        );
      const statuses = async (answers: Promise<Response[]>) =>
        (await answers).map((answer) => answer.status);

      expect(await statuses(alternately(4, (app) => history(app))(a, b))).toEqual([
        200, 200, 200, 429,
      ]);
      expect(
        await statuses(alternately(5, (app, n) => register(app, authorization, 200 + n))(a, b)),
      ).toEqual([201, 201, 201, 201, 429]);

      // Signing in takes one of the 4 sign-ins of the address; the session's token, read by
      // either process, 3 back-office requests.
      const { token } = await adminSession(a);
      const list = (app: TestApp) =>
        fetch(`${app.baseUrl}/admin/stores`, { headers: { authorization: `Bearer ${token}` } });
      expect(await statuses(alternately(4, (app) => list(app))(b, a))).toEqual([
        200, 200, 200, 429,
      ]);
      const signIn = (app: TestApp) =>
        fetch(`${app.baseUrl}/admin/token`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
        });
      expect(await statuses(alternately(4, (app) => signIn(app))(b, a))).toEqual([
        401, 401, 401, 429,
      ]);

      const policies = new Set(
        (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length).split(":")[0]),
      );
      expect([...policies].sort()).toEqual(["admin", "admin-login", "api-key", "customer"]);
    } finally {
      await close();
    }
  });

  it("counts a request whose path is badly percent-encoded there too", async () => {
    const { prefix, a, b, close } = await twoProcesses({ RATE_LIMIT_CUSTOMER: "2" });
    try {
      await storeWithKey(a, DOMAIN);
      const broken = (app: TestApp) =>
        fetch(
          `${app.baseUrl}/point/user-history/%E0%A4%A?hash=${"0".repeat(128)}&domain=${encodeURIComponent(DOMAIN)}`,
          { headers: { revision: "2026-08-26" } },
        );
      const answers = await alternately(3, (app) => broken(app))(a, b);
      expect(answers.map((answer) => answer.status)).toEqual([401, 401, 429]);
      expect(answers[2]!.headers.get("ratelimit")).toMatch(/^limit=2, remaining=0, reset=\d+$/);
      expect(await redis.keys(`${prefix}customer:*`)).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it("shares the failed authentications: past the limit, no process looks credentials up", async () => {
    const { a, b, close } = await twoProcesses({
      RATE_LIMIT_FAILED_AUTH: "3",
      RATE_LIMIT_API_KEY: "100",
    });
    try {
      const { authorization: right } = await storeWithKey(a, DOMAIN);
      // Both processes have the right key in memory.
      expect((await register(a, right, 1)).status).toBe(201);
      expect((await register(b, right, 2)).status).toBe(201);
      const wrong = (n: number) => basic(`lk_${String(n).padStart(10, "0")}_${"x".repeat(43)}`);
      const answers = await alternately(5, (app, n) => register(app, wrong(n), 10 + n))(a, b);
      expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 429, 429]);
      const refused = answers[3]!;
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("www-authenticate")).toBeNull();
      expect(await refused.json()).toMatchObject({
        detail:
          "Too many failed authentications from this address: at most 3 every 60 seconds. Retry after the seconds Retry-After gives.",
      });

      // Invented keys cost the other process no query either; right ones still pass.
      const query = vi.spyOn(b.context.pool, "query");
      for (let n = 100; n < 105; n++) expect((await register(b, wrong(n), n)).status).toBe(429);
      expect(query).not.toHaveBeenCalled();
      query.mockRestore();
      expect((await register(b, right, 3)).status).toBe(201);
      expect((await register(a, right, 4)).status).toBe(201);
    } finally {
      await close();
    }
  });
});

/**
 * A TCP relay to the real Redis, on a port of its own: closed (nothing listens), relaying, or
 * frozen (it takes commands and answers none).
 */
class RedisRelay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly clientSockets = new Set<net.Socket>();
  /** What clients sent while the relay was frozen, per client, relayed once it thaws. */
  private held: Map<net.Socket, Buffer[]> | undefined;

  constructor(readonly port: number) {}

  /** Connections from clients still open. */
  get clients(): number {
    return [...this.clientSockets].filter((socket) => !socket.destroyed).length;
  }

  async open(): Promise<void> {
    const target = new URL(REDIS_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      this.sockets.add(client).add(upstream);
      this.clientSockets.add(client);
      client.on("data", (chunk: Buffer) => {
        if (!this.held) upstream.write(chunk);
        else this.held.set(upstream, [...(this.held.get(upstream) ?? []), chunk]);
      });
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.on("error", () => undefined);
      upstream.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
  }

  freeze(): void {
    this.held = new Map();
  }

  /** Chunks (commands) held since the relay froze. */
  get heldChunks(): number {
    let count = 0;
    for (const chunks of this.held?.values() ?? []) count += chunks.length;
    return count;
  }

  thaw(): void {
    const held = this.held ?? new Map<net.Socket, Buffer[]>();
    this.held = undefined;
    for (const [upstream, chunks] of held) for (const chunk of chunks) upstream.write(chunk);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server) await new Promise((resolve) => this.server!.close(resolve));
  }
}

describe("rate limits while Redis is unavailable", () => {
  it("lets requests through, counted in the process's memory, and warns once without the password", async () => {
    const relay = new RedisRelay(await getPort());
    const password = "s3cret-redis-password";
    const prefix = newPrefix();
    const app = await startTestApp({
      env: {
        RATE_LIMIT_STOREFRONT: "3",
        RATE_LIMIT_REDIS_URL: `redis://:${password}@127.0.0.1:${relay.port}/0`,
        RATE_LIMIT_REDIS_PREFIX: prefix,
      },
    });
    let closed = false;
    try {
      await storeWithKey(app, DOMAIN);
      const widget = () =>
        fetch(`${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(DOMAIN)}`);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await widget());
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
      expect(answers[0]!.headers.get("ratelimit")).toMatch(/^limit=3, remaining=2, reset=\d+$/);
      expect(app.context.services.rateLimits.countedKeys).toBe(1);

      // The client retries its connection meanwhile; the warning is not repeated.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(warnings(app)).toHaveLength(1);
      expect(warnings(app)[0]).toMatchObject({
        level: 40,
        redis: `127.0.0.1:${relay.port}`,
        reason: expect.stringContaining("ECONNREFUSED"),
      });
      expect(app.logs.join("\n")).not.toContain(password);

      // Once Redis answers, the counts are shared again.
      await relay.open();
      await eventually(async () => {
        const answer = await fetch(`${app.baseUrl}/point/product-points/calculate?domain=x`);
        await answer.arrayBuffer();
        return (await redis.exists(`${prefix}storefront:127.0.0.1`)) === 1 ? true : undefined;
      });
      expect(app.logs.some((line) => line.includes("Redis answers again"))).toBe(true);

      // Closing the app closes its connection.
      expect(relay.clients).toBe(1);
      closed = true;
      await app.close();
      await eventually(() => (relay.clients === 0 ? true : undefined), 1_000);
    } finally {
      if (!closed) await app.close();
      await relay.close();
    }
  });

  it("waits at most the timeout for a Redis that stops answering, then counts in memory for a while", async () => {
    const relay = new RedisRelay(await getPort());
    await relay.open();
    const prefix = newPrefix();
    const app = await startTestApp({
      env: {
        RATE_LIMIT_STOREFRONT: "100",
        RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${relay.port}`,
        RATE_LIMIT_REDIS_PREFIX: prefix,
        RATE_LIMIT_REDIS_TIMEOUT_MS: "300",
      },
    });
    try {
      await storeWithKey(app, DOMAIN);
      const widget = () =>
        fetch(`${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(DOMAIN)}`);
      const shared = await eventually(async () => {
        const answer = await widget();
        return answer.status === 200 && (await redis.exists(`${prefix}storefront:127.0.0.1`))
          ? answer
          : undefined;
      });
      expect(shared.headers.get("ratelimit")).toMatch(/^limit=100, remaining=\d+, reset=\d+$/);

      relay.freeze();
      const times = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        expect((await widget()).status).toBe(200);
        times.push(performance.now() - started);
      }
      // The first waits for the timeout; the next ones do not ask Redis.
      expect(times[0]).toBeGreaterThanOrEqual(295);
      expect(relay.heldChunks).toBe(1);
      expect(warnings(app)).toEqual([
        expect.objectContaining({ reason: expect.stringMatching(/timed out/i) }),
      ]);
    } finally {
      await app.close();
      await relay.close();
    }
  });
});

describe("the counts in Redis", () => {
  it("reads an unknown key as none, and loads its scripts again after a load that failed", async () => {
    const relay = new RedisRelay(await getPort());
    await relay.open();
    const logs: string[] = [];
    const logger = createLogger(
      "info",
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          logs.push(chunk.toString("utf8"));
          callback();
        },
      }),
    );
    const counts = new SharedCounts(
      {
        url: `redis://127.0.0.1:${relay.port}`,
        prefix: newPrefix(),
        timeoutMs: 1_000,
        retryAfterMs: 200,
      },
      logger,
    );
    try {
      counts.connect();
      await eventually(() => counts.attempt(() => Promise.resolve(true)));
      const counter = counts.counter("storefront", 60_000);

      // Its first count loads the store's scripts: Redis takes them and answers nothing.
      relay.freeze();
      expect(await counter.hit("203.0.113.9")).toBeUndefined();
      expect(logs.join("\n")).toMatch(/"reason":"Command timed out".*Redis is unavailable/);
      relay.thaw();
      await new Promise((resolve) => setTimeout(resolve, 250));

      expect(await counter.peek("198.51.100.4")).toBe(0);
      expect(await counter.hit("203.0.113.9")).toEqual({ used: 1, resetSeconds: 60 });
      expect(await counter.hit("203.0.113.9")).toMatchObject({ used: 2 });
      expect(await counter.peek("203.0.113.9")).toBe(2);
    } finally {
      await counts.close();
      await relay.close();
    }
  });
});
