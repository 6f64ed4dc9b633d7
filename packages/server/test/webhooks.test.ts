import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  webhookEventSchema,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
} from "@loyalty/shared-types";
import { run, type JobHelpers, type Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SecretBox } from "../src/crypto/secrets.js";
import { Outbound } from "../src/net/outbound.js";
import { withTransaction } from "../src/db/pool.js";
import { workerLogger } from "../src/jobs/queue.js";
import { recordEvents, type OutboxEvent } from "../src/modules/events/events.repository.js";
import { retryDelayMs, WebhooksService } from "../src/modules/webhooks/webhooks.service.js";
import { signWebhook, verifyWebhookSignature } from "../src/modules/webhooks/webhooks.signature.js";
import { tasksOf } from "../src/jobs/task.js";
import { webhooksTaskDefinitions } from "../src/modules/webhooks/webhooks.tasks.js";
import { startTestApp, TEST_MASTER_KEY, type TestApp } from "./support/app.js";
import { orderRegistered, pointsEarned } from "./support/fixtures.js";
import { loopbackListener, streamFiller } from "./support/loopback.js";

const WEBHOOK_ENV = {
  WEBHOOK_RETRY_BASE_MS: "50",
  WEBHOOK_MAX_ATTEMPTS: "3",
  WEBHOOK_TIMEOUT_MS: "300",
};

// The receiving endpoint: a real HTTP server answering each path as the test says.
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
type Answer = number | "hang";
const received: Received[] = [];
const answers = new Map<string, (attempt: number) => Answer>();
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const attempt = received.filter((request) => request.path === path).length + 1;
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      const answer = answers.get(path)?.(attempt) ?? 404;
      if (answer === "hang") return;
      if (answer >= 300 && answer < 400) res.setHeader("location", "/redirect-target");
      res.writeHead(answer).end("receiver says hello");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const requestsTo = (path: string) => received.filter((request) => request.path === path);

let storeCount = 0;
const secrets: string[] = [];

/** A store of its own (so no other test's endpoint receives its events) with one endpoint. */
async function endpointFor(
  app: TestApp,
  webhooks: WebhooksService,
  path: string,
  answer: (attempt: number) => Answer,
  events?: OutboxEvent["type"][],
) {
  storeCount += 1;
  const store = await app.context.services.stores.create({
    domain: `https://shop${storeCount}.example`,
  });
  answers.set(path, answer);
  // The receiver listens on loopback, which only the operator's own tools may name.
  const { secret, endpoint } = await webhooks.create(
    store.id,
    { url: `${receiverUrl}${path}`, events },
    { allowPrivateUrls: true },
  );
  secrets.push(secret);
  return { store, secret, endpoint };
}

/** Records events as the order code does, in a transaction; returns the new deliveries' ids. */
async function emit(app: TestApp, storeId: number, events: OutboxEvent[]): Promise<number[]> {
  await withTransaction(app.context.pool, (client) => recordEvents(client, storeId, events));
  const { rows } = await app.context.pool.query<{ id: number }>(
    `SELECT d.id FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
     WHERE e.store_id = $1 ORDER BY d.id`,
    [storeId],
  );
  return rows.map((row) => row.id);
}

interface DeliveryRow {
  id: number;
  eventId: number;
  endpointId: number;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

async function delivery(app: TestApp, id: number): Promise<DeliveryRow> {
  const { rows } = await app.context.pool.query<DeliveryRow>(
    `SELECT id, event_id AS "eventId", endpoint_id AS "endpointId", status, attempts,
       last_status_code AS "lastStatusCode", last_error AS "lastError",
       next_attempt_at AS "nextAttemptAt", delivered_at AS "deliveredAt"
     FROM webhook_deliveries WHERE id = $1`,
    [id],
  );
  return rows[0] as DeliveryRow;
}

async function retryJobs(app: TestApp, deliveryId: number) {
  const { rows } = await app.context.pool.query<{ runAt: Date }>(
    `SELECT run_at AS "runAt" FROM graphile_worker.jobs WHERE key = $1`,
    [`webhook-delivery:${deliveryId}`],
  );
  return rows;
}

/**
 * A webhooks service that may deliver to the receiver, on loopback: as in a process run with
 * ALLOW_PRIVATE_URLS=true.
 */
function webhooksOf(app: TestApp): WebhooksService {
  return new WebhooksService(
    app.context.pool,
    SecretBox.fromText(TEST_MASTER_KEY),
    app.context.config.webhooks,
    app.context.logger,
    new Outbound({ allowPrivateUrls: true }),
  );
}

describe("signatures", () => {
  const secret = "whsec_test";
  const body = '{"id":"evt_1"}';
  const now = 1_790_000_000_000;
  const t = now / 1000;

  it("verify over the exact body, secret and timestamp they were made with", () => {
    const header = signWebhook(secret, body, t);
    expect(header).toMatch(/^t=1790000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(secret, body, header, { now })).toBe(true);
    expect(verifyWebhookSignature(secret, '{"id":"evt_2"}', header, { now })).toBe(false);
    expect(verifyWebhookSignature(secret, `${body} `, header, { now })).toBe(false);
    expect(verifyWebhookSignature("whsec_other", body, header, { now })).toBe(false);
    const forgedTime = header.replace("t=1790000000", "t=1790000001");
    expect(verifyWebhookSignature(secret, body, forgedTime, { now })).toBe(false);
  });

  it("fail outside the tolerance, in either direction", () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhookSignature(secret, body, header, { now: now + 300_000 })).toBe(true);
    expect(verifyWebhookSignature(secret, body, header, { now: now + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(secret, body, header, { now: now - 301_000 })).toBe(false);
    expect(
      verifyWebhookSignature(secret, body, header, {
        now: now + 3_600_000,
        toleranceSeconds: 4000,
      }),
    ).toBe(true);
  });

  it("accept any of several v1 entries and refuse malformed headers", () => {
    const good = signWebhook(secret, body, t);
    const rotated = `${good},v1=${"0".repeat(64)}`;
    expect(verifyWebhookSignature(secret, body, rotated, { now })).toBe(true);
    for (const header of ["", "t=1790000000", `v1=${good.slice(-64)}`, "garbage", "t=x,v1=y"]) {
      expect(verifyWebhookSignature(secret, body, header, { now })).toBe(false);
    }
  });
});

describe("retry delays", () => {
  it("double from the base with ±20 % jitter, capped at six hours", () => {
    expect(retryDelayMs(1, 30_000, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(2, 30_000, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(4, 30_000, () => 0)).toBe(192_000);
    expect(retryDelayMs(4, 30_000, () => 1)).toBe(288_000);
    expect(retryDelayMs(20, 30_000, () => 1)).toBe(6 * 3600 * 1000);
  });
});

describe("webhook endpoints and single attempts", () => {
  let app: TestApp;
  let webhooks: WebhooksService;

  beforeAll(async () => {
    app = await startTestApp({ env: WEBHOOK_ENV });
    webhooks = webhooksOf(app);
  });
  afterAll(() => app.close());

  it("queues the deliveries of a batch job's events behind the other jobs", async () => {
    const { store } = await endpointFor(app, webhooks, "/background", () => 200);
    const customer = { externalId: 7 };
    await withTransaction(app.context.pool, async (client) => {
      // As the expiry job writes its events, then as a claim writes its own.
      await recordEvents(
        client,
        store.id,
        [{ type: "POINTS_EXPIRED", data: { customer, points: 5, balance: 0 } }],
        { background: true },
      );
      await recordEvents(client, store.id, [
        { type: "REWARD_OBTAINED", data: { customer, rewardId: 1, points: 5, balance: 0 } },
      ]);
    });
    const { rows } = await app.context.pool.query<{ type: string; priority: number }>(
      `SELECT e.type, j.priority
       FROM webhook_deliveries d
       JOIN outbox_events e ON e.id = d.event_id
       -- The jobs view has no payload: the table under it has.
       JOIN graphile_worker._private_jobs j ON (j.payload ->> 'deliveryId')::bigint = d.id
       JOIN graphile_worker._private_tasks t
         ON t.id = j.task_id AND t.identifier = 'deliver-webhook'
       WHERE e.store_id = $1 ORDER BY e.id`,
      [store.id],
    );
    // graphile-worker runs lower numbers first: the claim's delivery goes before.
    expect(rows).toEqual([
      { type: "POINTS_EXPIRED", priority: 10 },
      { type: "REWARD_OBTAINED", priority: 0 },
    ]);
  });

  it("creates an endpoint whose secret is shown once and stored encrypted", async () => {
    const { store, secret, endpoint } = await endpointFor(app, webhooks, "/created", () => 200);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(endpoint).toMatchObject({ storeId: store.id, events: [], active: true });
    expect(endpoint).not.toHaveProperty("secret");

    const listed = await webhooks.list(store.id);
    expect(listed).toEqual([endpoint]);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));

    const { rows } = await app.context.pool.query<{ secret: Buffer }>(
      "SELECT secret FROM webhook_endpoints WHERE id = $1",
      [endpoint.id],
    );
    const stored = rows[0]?.secret as Buffer;
    expect(stored.includes(Buffer.from(secret.slice(6)))).toBe(false);
    expect(stored.includes(Buffer.from(Buffer.from(secret.slice(6), "base64url")))).toBe(false);
    expect(stored.toString("latin1")).not.toContain("whsec_");
  });

  it("validates what an endpoint is created with", async () => {
    const store = await app.context.services.stores.create({ domain: "https://valid.example" });
    for (const input of [
      { url: "ftp://hooks.example/x" },
      { url: "not a url" },
      { url: "https://hooks.example/x", events: ["ORDER_SHIPPED"] },
    ]) {
      await expect(
        webhooks.create(store.id, input as Parameters<WebhooksService["create"]>[1]),
      ).rejects.toMatchObject({ reason: "validation-failed" });
    }
    const { endpoint } = await webhooks.create(store.id, {
      url: "HTTPS://Hooks.Example/in",
      events: ["POINTS_EARNED", "POINTS_EARNED", "REWARD_OBTAINED"],
    });
    expect(endpoint.url).toBe("https://hooks.example/in");
    expect(endpoint.events).toEqual(["POINTS_EARNED", "REWARD_OBTAINED"]);
  });

  it("signs the delivery so that the receiver verifies it over the raw body", async () => {
    const { store, secret } = await endpointFor(app, webhooks, "/signed", () => 204);
    const [id] = await emit(app, store.id, [pointsEarned]);
    expect(await webhooks.deliver(id as number)).toBe("delivered");

    const [request] = requestsTo("/signed");
    expect(requestsTo("/signed")).toHaveLength(1);
    const row = await delivery(app, id as number);
    const { headers, body } = request as Received;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toMatch(/^Loyalty-Webhooks\//);
    expect(headers[WEBHOOK_EVENT_ID_HEADER]).toBe(`evt_${row.eventId}`);
    const event = webhookEventSchema.parse(JSON.parse(body));
    expect(event).toEqual({
      id: `evt_${row.eventId}`,
      type: "POINTS_EARNED",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: pointsEarned.data,
    });

    const signature = headers[WEBHOOK_SIGNATURE_HEADER] as string;
    expect(verifyWebhookSignature(secret, body, signature)).toBe(true);
    expect(verifyWebhookSignature(secret, body.replace("340", "9340"), signature)).toBe(false);
    expect(verifyWebhookSignature(secret, body, signature, { now: Date.now() + 600_000 })).toBe(
      false,
    );

    expect(row).toMatchObject({
      status: "delivered",
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(row.deliveredAt).toBeInstanceOf(Date);

    expect(await webhooks.deliver(id as number)).toBe("skipped");
    expect(requestsTo("/signed")).toHaveLength(1);
  });

  it("schedules the retry of a failed attempt on the job queue, backing off, once per delivery", async () => {
    const { store } = await endpointFor(app, webhooks, "/failing", () => 500);
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];

    for (const [attempt, base] of [
      [1, 50],
      [2, 100],
    ] as const) {
      const before = Date.now();
      expect(await webhooks.deliver(id)).toBe("retry-scheduled");
      const after = Date.now();
      const row = await delivery(app, id);
      expect(row).toMatchObject({ status: "pending", attempts: attempt, lastStatusCode: 500 });
      expect(row.lastError).toBe("HTTP 500");
      const next = (row.nextAttemptAt as Date).getTime();
      expect(next - before).toBeGreaterThanOrEqual(base * 0.8 - 1);
      expect(next - after).toBeLessThanOrEqual(base * 1.2 + 1);
      const jobs = await retryJobs(app, id);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]?.runAt.getTime()).toBe(next);
    }

    const [pendingJob] = await retryJobs(app, id);
    expect(await webhooks.deliver(id)).toBe("failed");
    expect(await delivery(app, id)).toMatchObject({
      status: "failed",
      attempts: 3,
      nextAttemptAt: null,
    });
    expect(await retryJobs(app, id)).toEqual([pendingJob]);
    expect(await webhooks.deliver(id)).toBe("skipped");
    expect(requestsTo("/failing")).toHaveLength(3);
  });

  it("counts a redirect as a failure and does not follow it", async () => {
    const { store } = await endpointFor(app, webhooks, "/moved", () => 302);
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];
    expect(await webhooks.deliver(id)).toBe("retry-scheduled");
    expect(await delivery(app, id)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatusCode: 302,
      lastError: "HTTP 302 (redirects are not followed)",
    });
    expect(requestsTo("/redirect-target")).toHaveLength(0);
  });

  it("counts an endpoint that does not answer in time as a failed attempt", async () => {
    const { store } = await endpointFor(app, webhooks, "/slow", () => "hang");
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];
    const started = Date.now();
    expect(await webhooks.deliver(id)).toBe("retry-scheduled");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(requestsTo("/slow")).toHaveLength(1);
    expect(await delivery(app, id)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatusCode: null,
      lastError: "no response within 300 ms",
    });
    expect(await retryJobs(app, id)).toHaveLength(1);
  });

  it("counts a refused connection as a failed attempt", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const store = await app.context.services.stores.create({ domain: "https://refused.example" });
    const { secret } = await webhooks.create(
      store.id,
      { url: `http://127.0.0.1:${port}/` },
      { allowPrivateUrls: true },
    );
    secrets.push(secret);
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];
    expect(await webhooks.deliver(id)).toBe("retry-scheduled");
    const row = await delivery(app, id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null });
    expect(row.lastError).toMatch(/ECONNREFUSED/);
  });

  it("does not deliver to a name that resolves to the service's own network, nor connect to it", async () => {
    const internal = await loopbackListener((_req, res) => res.writeHead(200).end());
    try {
      // The app runs with ALLOW_PRIVATE_URLS off, as by default. The URL names a host, which
      // saving accepts: only connecting tells what it resolves to (here 127.0.0.1).
      const webhooks = app.context.services.webhooks;
      const store = await app.context.services.stores.create({ domain: "https://named.example" });
      const { secret } = await webhooks.create(store.id, { url: `${internal.namedUrl}/hooks` });
      secrets.push(secret);
      const [id] = (await emit(app, store.id, [pointsEarned])) as [number];

      expect(await webhooks.deliver(id)).toBe("retry-scheduled");
      const row = await delivery(app, id);
      expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null });
      expect(row.lastError).toContain("own network");
      expect(await retryJobs(app, id)).toHaveLength(1);
      // The retry resolves the name again, and is refused again.
      expect(await webhooks.deliver(id)).toBe("retry-scheduled");
      expect(internal.connections).toBe(0);
    } finally {
      await internal.close();
    }
  });

  it("reads nothing of what a receiver answers, however much it sends", async () => {
    const chatty = await loopbackListener((_req, res) =>
      streamFiller(res, 300 * 1024 * 1024, { announce: false }),
    );
    try {
      const store = await app.context.services.stores.create({ domain: "https://chatty.example" });
      const { secret } = await webhooks.create(
        store.id,
        { url: `${chatty.url}/hooks` },
        { allowPrivateUrls: true },
      );
      secrets.push(secret);
      const [id] = (await emit(app, store.id, [pointsEarned])) as [number];
      expect(await webhooks.deliver(id)).toBe("delivered");
      await chatty.requestsClosed();
      expect(chatty.bytesWritten()).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await chatty.close();
    }
  });

  it("sends an endpoint only the event types it subscribed to", async () => {
    const { store } = await endpointFor(app, webhooks, "/rewards-only", () => 200, [
      "REWARD_OBTAINED",
    ]);
    const { secret: pointsSecret } = await webhooks.create(
      store.id,
      { url: `${receiverUrl}/points-only`, events: ["POINTS_EARNED"] },
      { allowPrivateUrls: true },
    );
    const { secret: allSecret } = await webhooks.create(
      store.id,
      { url: `${receiverUrl}/everything` },
      { allowPrivateUrls: true },
    );
    secrets.push(pointsSecret, allSecret);
    answers.set("/points-only", () => 200);
    answers.set("/everything", () => 200);

    const ids = await emit(app, store.id, [orderRegistered, pointsEarned]);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(await webhooks.deliver(id)).toBe("delivered");

    expect(requestsTo("/rewards-only")).toHaveLength(0);
    expect(requestsTo("/points-only").map((r) => JSON.parse(r.body).type)).toEqual([
      "POINTS_EARNED",
    ]);
    expect(
      requestsTo("/everything")
        .map((r) => JSON.parse(r.body).type)
        .sort(),
    ).toEqual(["ORDER_REGISTERED", "POINTS_EARNED"]);
  });

  it("gives up the deliveries of a deactivated endpoint without calling it", async () => {
    const { store, endpoint } = await endpointFor(app, webhooks, "/deactivated", () => 200);
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];
    const other = await app.context.services.stores.create({ domain: "https://other.example" });
    await expect(webhooks.deactivate(other.id, endpoint.id)).rejects.toMatchObject({
      reason: "not-found",
    });
    expect(await webhooks.deactivate(store.id, endpoint.id)).toMatchObject({
      id: endpoint.id,
      active: false,
    });

    expect(await webhooks.deliver(id)).toBe("failed");
    expect(await delivery(app, id)).toMatchObject({
      status: "failed",
      attempts: 0,
      lastError: "endpoint deactivated",
    });
    expect(await emit(app, store.id, [pointsEarned])).toEqual([id]);
    expect(requestsTo("/deactivated")).toHaveLength(0);
  });

  it("does not use a secret whose row was moved to another store", async () => {
    const { store, endpoint } = await endpointFor(app, webhooks, "/moved-row", () => 200);
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];
    const thief = await app.context.services.stores.create({ domain: "https://thief.example" });
    await app.context.pool.query("UPDATE webhook_endpoints SET store_id = $1 WHERE id = $2", [
      thief.id,
      endpoint.id,
    ]);
    await expect(webhooks.deliver(id)).rejects.toThrow();
    expect(await delivery(app, id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(requestsTo("/moved-row")).toHaveLength(0);
  });

  it("refuses a job whose payload is not a delivery", async () => {
    const task = tasksOf(webhooksTaskDefinitions, { webhooks })["deliver-webhook"];
    const helpers = { job: { id: "1" } } as JobHelpers;
    await expect(task({ deliveryId: "1" }, helpers)).rejects.toThrow(/invalid payload/);
    await expect(task({}, helpers)).rejects.toThrow(/invalid payload/);
  });

  it("never writes a secret to the logs", () => {
    const logs = app.logs.join("");
    expect(logs).toContain("webhook");
    for (const secret of secrets) expect(logs).not.toContain(secret.slice(6));
  });
});

describe("deliveries through the job queue", () => {
  let app: TestApp;
  let webhooks: WebhooksService;
  let runner: Runner;

  beforeAll(async () => {
    app = await startTestApp({ env: WEBHOOK_ENV });
    webhooks = webhooksOf(app);
    runner = await run({
      connectionString: app.database.url,
      taskList: tasksOf(webhooksTaskDefinitions, { webhooks }),
      concurrency: 1,
      noHandleSignals: true,
      pollInterval: 100,
      logger: workerLogger(app.context.logger),
    });
  });
  afterAll(async () => {
    await runner.stop();
    await app.close();
  });

  it("delivers on the second attempt an event the endpoint first refused with a 500", async () => {
    const { store, secret } = await endpointFor(app, webhooks, "/flaky", (attempt) =>
      attempt === 1 ? 500 : 200,
    );
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];

    await vi.waitFor(async () => expect((await delivery(app, id)).status).toBe("delivered"), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await delivery(app, id)).toMatchObject({
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    const [first, second] = requestsTo("/flaky") as [Received, Received];
    expect(requestsTo("/flaky")).toHaveLength(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(40);
    expect(second.body).toBe(first.body);
    for (const request of [first, second]) {
      const signature = request.headers[WEBHOOK_SIGNATURE_HEADER] as string;
      expect(verifyWebhookSignature(secret, request.body, signature)).toBe(true);
    }
    // The job queue removes a job once its task returned, just after the delivery was recorded.
    await vi.waitFor(async () => expect(await retryJobs(app, id)).toEqual([]), {
      timeout: 2_000,
      interval: 25,
    });
  });

  it("gives up after the maximum number of attempts and leaves no job behind", async () => {
    const { store } = await endpointFor(app, webhooks, "/down", () => 503);
    const [id] = (await emit(app, store.id, [pointsEarned])) as [number];

    await vi.waitFor(async () => expect((await delivery(app, id)).status).toBe("failed"), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await delivery(app, id)).toMatchObject({
      attempts: 3,
      lastStatusCode: 503,
      lastError: "HTTP 503",
      nextAttemptAt: null,
      deliveredAt: null,
    });
    await vi.waitFor(
      async () => {
        const { rows } = await app.context.pool.query(
          "SELECT id FROM graphile_worker.jobs WHERE task_identifier = 'deliver-webhook'",
        );
        expect(rows).toEqual([]);
      },
      { timeout: 2_000, interval: 25 },
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(requestsTo("/down")).toHaveLength(3);
    expect(app.logs.join("")).toContain("webhook delivery given up after 3 attempts");
  });

  it("never writes a secret to the logs", () => {
    const logs = app.logs.join("");
    for (const secret of secrets) expect(logs).not.toContain(secret.slice(6));
  });
});
