import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import getPort from "get-port";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestApp, TEST_MASTER_KEY } from "./support/app.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { storeWithKey } from "./support/fixtures.js";
import { environment, exitOf, spawnServer, startServer } from "./support/processes.js";

/** The server process's HTTP listener: its timeouts, the address it prints, its proxies. */

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const serverEnv = (overrides: Record<string, string>) =>
  environment({
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
    WORKERS: "off",
    ...overrides,
  });

async function stopped(child: ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await exitOf(child);
}

/** Resolves with `promise`'s value, or fails once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Client {
  socket: Socket;
  received(): string;
  /** When the server closed the connection (performance.now()). */
  closed: Promise<number>;
}

async function open(port: number): Promise<Client> {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
  // Writing to a connection the server has just closed.
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(performance.now())),
  );
  await once(socket, "connect");
  return { socket, received: () => received, closed };
}

// An answer's body does not end with a line break: the next status line follows it directly.
const responses = (text: string) => text.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;

async function responseCount(client: Client, count: number): Promise<number> {
  while (responses(client.received()) < count) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now();
}

describe("the HTTP server's timeouts", () => {
  const HEADERS_MS = 500;
  const REQUEST_MS = 1_500;
  const KEEP_ALIVE_MS = 1_500;
  let port: number;
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    port = await getPort();
    server = await startServer(
      serverEnv({
        PORT: String(port),
        HOST: "127.0.0.1",
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
        HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      }),
    );
  });
  afterAll(() => stopped(server.child));

  it("prints the address it listens on", () => {
    expect(server.output()).toContain(`Loyalty API listening on http://127.0.0.1:${port}\n`);
  });

  it("cuts off a client whose headers arrive too slowly, after HTTP_HEADERS_TIMEOUT_MS", async () => {
    const client = await open(port);
    const started = performance.now();
    client.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const drip = setInterval(() => client.socket.write("X-Slow: 1\r\n"), 100);
    try {
      const closedAt = await within(client.closed, 5_000, "the connection is still open");
      expect(closedAt - started).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      // Checked every HEADERS_MS (at most every second) rather than Node's default 30 s.
      expect(closedAt - started).toBeLessThan(HEADERS_MS * 2 + 1_000);
      expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      client.socket.destroy();
    }
  });

  it("cuts off a request whose body arrives too slowly, after HTTP_REQUEST_TIMEOUT_MS", async () => {
    const client = await open(port);
    const started = performance.now();
    client.socket.write(
      "POST /admin/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[",
    );
    const drip = setInterval(() => client.socket.write("1,"), 100);
    try {
      const closedAt = await within(client.closed, 8_000, "the connection is still open");
      expect(closedAt - started).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(closedAt - started).toBeLessThan(REQUEST_MS + 2_000);
      expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      client.socket.destroy();
    }
  });

  it("keeps an idle connection open for HTTP_KEEP_ALIVE_TIMEOUT_MS, then closes it", async () => {
    const client = await open(port);
    try {
      client.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      await within(responseCount(client, 1), 5_000, "no answer");
      expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
      expect(client.received()).toContain(
        `Keep-Alive: timeout=${Math.floor(KEEP_ALIVE_MS / 1000)}`,
      );

      // Idle for longer than the headers timeout, and still open: the headers timeout counts
      // from a request's first byte, not from the previous answer.
      await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_MS - 500));
      client.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      const answeredAt = await within(responseCount(client, 2), 5_000, "no second answer");

      // Node keeps the connection a second longer than it advertises (Keep-Alive: timeout=…),
      // so that a client never sends on a connection the server is closing.
      const closedAt = await within(client.closed, 8_000, "the connection is still open");
      expect(closedAt - answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
      expect(closedAt - answeredAt).toBeLessThan(KEEP_ALIVE_MS + 1_500);
    } finally {
      client.socket.destroy();
    }
  });
});

describe("the address the server prints", () => {
  it("is the one HOST names, an IPv6 address in brackets", async () => {
    const port = await getPort();
    const server = await startServer(serverEnv({ PORT: String(port), HOST: "::1" }));
    try {
      const url = `http://[::1]:${port}`;
      expect(server.output()).toContain(`Loyalty API listening on ${url}\n`);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await stopped(server.child);
    }
  });

  it("is localhost when the server listens on every interface", async () => {
    const port = await getPort();
    const server = await startServer(serverEnv({ PORT: String(port), HOST: "0.0.0.0" }));
    try {
      expect(server.output()).toContain(`Loyalty API listening on http://localhost:${port}\n`);
    } finally {
      await stopped(server.child);
    }
  });
});

describe("TRUST_PROXY", () => {
  it("refuses `true` at start-up, saying what to set", async () => {
    const child = spawnServer(serverEnv({ PORT: String(await getPort()), TRUST_PROXY: "true" }));
    let output = "";
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      expect(await within(exitOf(child), 20_000, "the server is still running")).toBe(1);
      expect(output).toContain(
        "TRUST_PROXY: `true` trusts any client's X-Forwarded-For (a client could pick its own address and escape every per-address limit); set the number of proxies in front (1) or their addresses (10.0.0.0/8)",
      );
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);

  it("with a number of proxies, counts the address the last proxy saw, whatever a client writes before it", async () => {
    const app = await startTestApp({
      env: { TRUST_PROXY: "1", RATE_LIMIT_STOREFRONT: "2", RATE_LIMIT_WINDOW_SECONDS: "60" },
    });
    try {
      const domain = "https://proxied.example";
      await storeWithKey(app, domain);
      const read = (forwardedFor: string) =>
        fetch(`${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(domain)}`, {
          headers: { revision: "2026-08-26", "x-forwarded-for": forwardedFor },
        }).then((response) => response.status);
      // The proxy appends the address it saw; what the client sent comes before it.
      const statuses = [];
      for (const spoofed of ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) {
        statuses.push(await read(`${spoofed}, 198.51.100.7`));
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(await read("198.51.100.8")).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe("requests and responses", () => {
  // Express gives each request and response the app's prototypes as it enters; a server whose
  // objects are born with them spares V8 the change (see src/http/server.ts). The change is
  // what slowed every request and made its garbage outlive the young generation.
  it("are born with the app's prototypes: Express changes none of them", async () => {
    const app = await startTestApp();
    const changed: string[] = [];
    const setPrototypeOf = Object.setPrototypeOf;
    const spy = vi.spyOn(Object, "setPrototypeOf").mockImplementation((target, proto) => {
      if (
        (target instanceof IncomingMessage || target instanceof ServerResponse) &&
        Object.getPrototypeOf(target) !== proto
      ) {
        changed.push(target.constructor.name);
      }
      return setPrototypeOf(target, proto) as unknown;
    });
    try {
      const domain = "https://born.example";
      await storeWithKey(app, domain);
      const response = await fetch(
        `${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent(domain)}`,
        { headers: { revision: "2026-08-26" } },
      );
      expect(response.status).toBe(200);
      // Express's own methods still answer: res.json set the type, req.get read the header.
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("revision")).toBe("2026-08-26");
      const unknown = await fetch(`${app.baseUrl}/no/such/path`);
      expect(unknown.status).toBe(404);
      expect(changed).toEqual([]);
    } finally {
      spy.mockRestore();
      await app.close();
    }
  });
});
