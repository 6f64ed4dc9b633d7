import getPort from "get-port";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_MASTER_KEY, basic } from "./support/app.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { environment, exitOf, runCli, startServer } from "./support/processes.js";

/**
 * A flood of large bodies against the server run as an operator runs it, in its own process:
 * the service's other clients (here the load balancer's health probe) must not notice, as they
 * did before bodies were read only after authentication.
 */
const FLOOD_MS = 6_000;
/** An array of 480,000 numbers: 0.96 MB of JSON, over every operation's limit. */
const HUGE = `[${Array(480_000).fill("1").join(",")}]`;

let database: TestDatabase;
let server: Awaited<ReturnType<typeof startServer>>;
let baseUrl: string;
let authorization: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const port = await getPort();
  const env = environment({
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
    PORT: String(port),
    HOST: "127.0.0.1",
    WORKERS: "off",
    NODE_ENV: "production",
  });
  const store = await runCli(
    ["store", "create", "--domain", "https://flood.example", "--json"],
    env,
  );
  const { reference } = JSON.parse(store.stdout) as { reference: string };
  const key = await runCli(["key", "create", "--store", reference, "--json"], env);
  authorization = basic((JSON.parse(key.stdout) as { key: string }).key);
  server = await startServer(env);
  baseUrl = `http://127.0.0.1:${port}`;
  // The shop's server has been sending orders (its key is known to the process) before the
  // flood from its address: an address past its failed authentications is then checked
  // against memory only.
  const earlier = await fetch(`${baseUrl}/api/order/register`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization },
    body: "{}",
  });
  expect(earlier.status).toBe(400);
}, 120_000);

afterAll(async () => {
  server?.child.kill("SIGTERM");
  if (server) await exitOf(server.child);
  await database?.drop();
});

/** Posts `body` to the order registration until the deadline; the statuses it got. */
async function flood(body: string, headers: Record<string, string>, until: number) {
  const statuses = new Map<number | string, number>();
  while (Date.now() < until) {
    let status: number | string;
    try {
      const response = await fetch(`${baseUrl}/api/order/register`, {
        method: "POST",
        headers: { "content-type": "application/json", revision: "2026-08-26", ...headers },
        body,
      });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      // The server may close the connection on a body it will not read.
      status = "closed";
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  return statuses;
}

/** GET /healthz every 20 ms until the deadline: each answer's latency in ms. */
async function probe(until: number): Promise<number[]> {
  const latencies: number[] = [];
  while (Date.now() < until) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/healthz`);
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return latencies.sort((a, b) => a - b);
}

const p95 = (sorted: number[]) => sorted[Math.floor(sorted.length * 0.95)] as number;

describe("a flood of large bodies", () => {
  it("without credentials leaves /healthz p95 at or under 100 ms, and every body unread", async () => {
    const until = Date.now() + FLOOD_MS;
    const [statuses, latencies] = await Promise.all([flood(HUGE, {}, until), probe(until)]);
    // Refused before the body is read: 401, then 429 once the address failed too often.
    expect([...statuses.keys()].every((status) => [401, 429, "closed"].includes(status))).toBe(
      true,
    );
    expect(statuses.get(401)).toBeGreaterThan(0);
    expect(latencies.length).toBeGreaterThan(50);
    expect(p95(latencies)).toBeLessThanOrEqual(100);
  }, 30_000);

  it("with a valid key leaves /healthz p95 at or under 100 ms, each body refused at the limit", async () => {
    const until = Date.now() + FLOOD_MS;
    const [statuses, latencies] = await Promise.all([
      flood(HUGE, { authorization }, until),
      probe(until),
    ]);
    expect([...statuses.keys()].every((status) => [400, "closed"].includes(status))).toBe(true);
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(p95(latencies)).toBeLessThanOrEqual(100);

    const refusal = await fetch(`${baseUrl}/api/order/register`, {
      method: "POST",
      headers: { "content-type": "application/json", revision: "2026-08-26", authorization },
      body: HUGE,
    });
    expect(await refusal.json()).toMatchObject({
      type: expect.stringMatching(/\/validation-failed$/),
      detail: "The request body exceeds the limit of 524288 bytes.",
    });
  }, 30_000);
});
