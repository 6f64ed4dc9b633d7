import type { IncomingHttpHeaders } from "node:http";
import {
  problemSchema,
  webhookDeliveriesResponseSchema,
  webhookDeliverySchema,
  webhookEventSchema,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookDelivery,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../src/db/pool.js";
import { recordEvents, type OutboxEvent } from "../src/modules/events/events.repository.js";
import { verifyWebhookSignature } from "../src/modules/webhooks/webhooks.signature.js";
import { adminSession, type AdminSession } from "./support/admin.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";
import { orderRegistered, pointsEarned, storeWithKey } from "./support/fixtures.js";
import { loopbackListener, type LoopbackListener } from "./support/loopback.js";

/**
 * The back-office's delivery log and its "send again" button, with the job workers running
 * in-process and a real receiver on loopback (the app runs with ALLOW_PRIVATE_URLS=true).
 * Retries are a minute apart: a delivery that failed stays pending, its next try in sight,
 * until the test sends it again.
 */
const WEBHOOK_ENV = {
  ALLOW_PRIVATE_URLS: "true",
  WEBHOOK_MAX_ATTEMPTS: "2",
  WEBHOOK_RETRY_BASE_MS: "60000",
  WEBHOOK_TIMEOUT_MS: "2000",
};

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers on each path: a status, or a promise it waits for first. */
const answers = new Map<string, () => number | Promise<number>>();
const received: Received[] = [];
const requestsTo = (path: string) => received.filter((request) => request.path === path);

let app: TestApp;
let admin: AdminSession;
let receiver: LoopbackListener;
let storeCount = 0;

beforeAll(async () => {
  receiver = await loopbackListener((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ path, headers: req.headers, body });
      void Promise.resolve(answers.get(path)?.() ?? 404).then((status) => {
        res.writeHead(status).end();
      });
    });
  });
  app = await startTestApp({ workers: true, env: WEBHOOK_ENV });
  admin = await adminSession(app);
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

type Shop = Awaited<ReturnType<typeof storeWithKey>>;

async function newShop(): Promise<Shop> {
  storeCount += 1;
  return storeWithKey(app, `https://deliveries-${storeCount}.example`);
}

/** An endpoint of the shop, made through the back-office, at `path` of the receiver. */
async function endpointAt(shop: Shop, path: string, url = `${receiver.url}${path}`) {
  const response = await admin.request("POST", `/admin/stores/${shop.store.id}/webhooks`, { url });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: number; secret: string };
}

/** Records events as the order code does, in one transaction. */
async function emit(shop: Shop, events: OutboxEvent[]): Promise<void> {
  await withTransaction(app.context.pool, (client) => recordEvents(client, shop.store.id, events));
}

const deliveriesPath = (shop: Shop, endpointId: number) =>
  `/admin/stores/${shop.store.id}/webhooks/${endpointId}/deliveries`;

async function log(shop: Shop, endpointId: number, query = "") {
  const response = await admin.request("GET", `${deliveriesPath(shop, endpointId)}${query}`);
  const body: unknown = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return webhookDeliveriesResponseSchema.parse(body);
}

/** The endpoint's only delivery, once `ready` says it is in the state awaited. */
async function onlyDelivery(
  shop: Shop,
  endpointId: number,
  ready: (delivery: WebhookDelivery) => boolean,
): Promise<WebhookDelivery> {
  return eventually(async () => {
    const { deliveries } = await log(shop, endpointId);
    expect(deliveries.length).toBeLessThanOrEqual(1);
    return deliveries[0] && ready(deliveries[0]) ? deliveries[0] : undefined;
  });
}

async function redeliver(shop: Shop, endpointId: number, deliveryId: number) {
  const response = await admin.request(
    "POST",
    `${deliveriesPath(shop, endpointId)}/${deliveryId}/redeliver`,
  );
  const body: unknown = await response.json();
  return { status: response.status, body };
}

async function redelivered(shop: Shop, endpointId: number, deliveryId: number) {
  const { status, body } = await redeliver(shop, endpointId, deliveryId);
  expect(status, JSON.stringify(body)).toBe(200);
  return webhookDeliverySchema.parse(body);
}

async function retryJobs(deliveryId: number): Promise<number> {
  const { rows } = await app.context.pool.query(
    `SELECT 1 FROM graphile_worker.jobs WHERE key = $1`,
    [`webhook-delivery:${deliveryId}`],
  );
  return rows.length;
}

/**
 * Waits until no job is left for the delivery. The job queue removes a job just after its task
 * returned, a moment after the delivery row was written; a retry scheduled a minute away would
 * stay, and fail this.
 */
async function noJobLeft(deliveryId: number): Promise<void> {
  await eventually(async () => ((await retryJobs(deliveryId)) === 0 ? true : undefined), 3_000);
}

describe("the delivery log and redelivery", () => {
  it("shows failed attempts and the next try; sending again delivers the same event", async () => {
    const shop = await newShop();
    let status = 500;
    answers.set("/flaky", () => status);
    const { id: endpointId, secret } = await endpointAt(shop, "/flaky");
    await emit(shop, [pointsEarned]);

    // The first attempt fails: pending, with its answer and the next try a minute away.
    const failedOnce = await onlyDelivery(shop, endpointId, (d) => d.attempts === 1);
    const delay = Date.parse(failedOnce.nextAttemptAt as string) - Date.now();
    expect(failedOnce).toMatchObject({
      event: "POINTS_EARNED",
      status: "pending",
      lastStatusCode: 500,
      lastError: "HTTP 500",
      deliveredAt: null,
    });
    expect(delay).toBeGreaterThan(30_000);
    expect(delay).toBeLessThan(73_000);

    // Sent again: the retry is brought forward, and it is the last the policy allows.
    const forward = await redelivered(shop, endpointId, failedOnce.id);
    expect(forward).toMatchObject({ id: failedOnce.id, status: "pending", attempts: 1 });
    expect(Date.parse(forward.nextAttemptAt as string)).toBeLessThanOrEqual(Date.now());
    const givenUp = await onlyDelivery(shop, endpointId, (d) => d.status === "failed");
    expect(givenUp).toMatchObject({ attempts: 2, lastStatusCode: 500, nextAttemptAt: null });

    // A delivery that used its attempts gets one more when sent again, and no retry after it.
    await redelivered(shop, endpointId, givenUp.id);
    const stillFailing = await onlyDelivery(shop, endpointId, (d) => d.attempts === 3);
    expect(stillFailing).toMatchObject({ status: "failed", nextAttemptAt: null });
    await noJobLeft(givenUp.id);

    // The receiver is fixed: sent again, it is delivered.
    status = 204;
    const again = await redelivered(shop, endpointId, givenUp.id);
    expect(again).toMatchObject({ status: "pending", attempts: 3, lastStatusCode: 500 });
    const delivered = await onlyDelivery(shop, endpointId, (d) => d.status === "delivered");
    expect(delivered).toMatchObject({
      eventId: failedOnce.eventId,
      attempts: 4,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(delivered.deliveredAt).not.toBeNull();

    // Delivered too, it may be sent again (a receiver that lost it).
    await redelivered(shop, endpointId, delivered.id);
    await onlyDelivery(shop, endpointId, (d) => d.attempts === 5 && d.status === "delivered");

    const requests = requestsTo("/flaky");
    expect(requests).toHaveLength(5);
    const eventId = `evt_${failedOnce.eventId}`;
    for (const request of requests) {
      expect(request.headers[WEBHOOK_EVENT_ID_HEADER]).toBe(eventId);
      expect(webhookEventSchema.parse(JSON.parse(request.body)).id).toBe(eventId);
      const signature = request.headers[WEBHOOK_SIGNATURE_HEADER] as string;
      expect(verifyWebhookSignature(secret, request.body, signature)).toBe(true);
    }
  });

  it("never runs a second attempt beside one under way, however often it is clicked", async () => {
    const shop = await newShop();
    let release: (status: number) => void = () => {};
    answers.set("/slow", () => 500);
    const { id: endpointId } = await endpointAt(shop, "/slow");
    await emit(shop, [pointsEarned]);
    const failed = await onlyDelivery(shop, endpointId, (d) => d.attempts === 1);
    await redelivered(shop, endpointId, failed.id);
    await onlyDelivery(shop, endpointId, (d) => d.status === "failed");
    expect(requestsTo("/slow")).toHaveLength(2);

    // The receiver now holds the request until the test lets it answer.
    answers.set("/slow", () => new Promise<number>((resolve) => (release = resolve)));
    const clicks = await Promise.all([
      redeliver(shop, endpointId, failed.id),
      redeliver(shop, endpointId, failed.id),
    ]);
    expect(clicks.map(({ status }) => status)).toEqual([200, 200]);
    await eventually(() => (requestsTo("/slow").length === 3 ? true : undefined));
    // Clicked again while the attempt waits for its answer: nothing more is sent.
    const during = await redelivered(shop, endpointId, failed.id);
    expect(during).toMatchObject({ status: "pending", attempts: 2 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsTo("/slow")).toHaveLength(3);

    release(200);
    await onlyDelivery(shop, endpointId, (d) => d.status === "delivered");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsTo("/slow")).toHaveLength(3);
    await noJobLeft(failed.id);
  });

  it("pages newest first and filters by status", async () => {
    const shop = await newShop();
    // Orders registered fail (pending, a retry a minute away); points earned are delivered.
    answers.set("/mixed", () => {
      const last = requestsTo("/mixed").at(-1) as Received;
      return (JSON.parse(last.body) as { type: string }).type === "ORDER_REGISTERED" ? 503 : 200;
    });
    const { id: endpointId } = await endpointAt(shop, "/mixed");
    const other = await endpointAt(shop, "/other");
    answers.set("/other", () => 200);
    await emit(shop, [orderRegistered, pointsEarned, orderRegistered, pointsEarned, pointsEarned]);
    await eventually(async () => {
      const { deliveries } = await log(shop, endpointId);
      return deliveries.every((d) => d.attempts === 1) ? true : undefined;
    });

    const all = await log(shop, endpointId, "?limit=10");
    expect(all.nextCursor).toBeNull();
    expect(all.deliveries.map((d) => d.event)).toEqual([
      "POINTS_EARNED",
      "POINTS_EARNED",
      "ORDER_REGISTERED",
      "POINTS_EARNED",
      "ORDER_REGISTERED",
    ]);
    const ids = all.deliveries.map((d) => d.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const pages: number[][] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof log>> = await log(
        shop,
        endpointId,
        `?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      pages.push(page.deliveries.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);

    const pending = await log(shop, endpointId, "?status=pending");
    expect(pending.deliveries.map((d) => d.id)).toEqual([ids[2], ids[4]]);
    expect(pending.deliveries[0]).toMatchObject({ lastStatusCode: 503, lastError: "HTTP 503" });
    const delivered = await log(shop, endpointId, "?status=delivered&limit=1");
    expect(delivered.deliveries.map((d) => d.id)).toEqual([ids[0]]);
    const next = await log(shop, endpointId, `?status=delivered&cursor=${delivered.nextCursor}`);
    expect(next).toEqual({
      deliveries: [
        expect.objectContaining({ id: ids[1] }),
        expect.objectContaining({ id: ids[3] }),
      ],
      nextCursor: null,
    });
    expect((await log(shop, endpointId, "?status=failed")).deliveries).toEqual([]);

    const others = await log(shop, other.id);
    expect(others.deliveries).toHaveLength(5);
    expect(others.deliveries.some((d) => ids.includes(d.id))).toBe(false);
  });

  it("answers validation-failed for a bad cursor, limit or status", async () => {
    const shop = await newShop();
    const { id: endpointId } = await endpointAt(shop, "/never");
    for (const [query, pointer] of [
      ["?cursor=bm90LWFuLWlk", "/cursor"],
      ["?cursor=MA", "/cursor"],
      ["?cursor=a%2Bb", "/cursor"],
      ["?limit=0", "/limit"],
      ["?limit=101", "/limit"],
      ["?status=lost", "/status"],
    ] as const) {
      const response = await admin.request("GET", `${deliveriesPath(shop, endpointId)}${query}`);
      expect(response.status, query).toBe(400);
      const problem = problemSchema.parse(await response.json());
      expect(problem.type).toMatch(/\/validation-failed$/);
      expect(problem.errors?.map((issue) => issue.pointer)).toEqual([pointer]);
    }
  });

  it("answers not-found for another store's endpoint or delivery, forbidden to another store's token", async () => {
    const shop = await newShop();
    const elsewhere = await newShop();
    answers.set("/theirs", () => 200);
    const theirs = await endpointAt(elsewhere, "/theirs");
    const mine = await endpointAt(shop, "/mine");
    await emit(elsewhere, [pointsEarned]);
    const delivery = await onlyDelivery(elsewhere, theirs.id, (d) => d.status === "delivered");

    for (const [method, path] of [
      ["GET", deliveriesPath(shop, theirs.id)],
      ["GET", deliveriesPath(shop, 999_999_999)],
      ["POST", `${deliveriesPath(shop, theirs.id)}/${delivery.id}/redeliver`],
      // The delivery exists, but not at this endpoint.
      ["POST", `${deliveriesPath(shop, mine.id)}/${delivery.id}/redeliver`],
      ["POST", `${deliveriesPath(shop, mine.id)}/999999999/redeliver`],
    ] as const) {
      const response = await admin.request(method, path);
      expect(response.status, path).toBe(404);
      expect(problemSchema.parse(await response.json()).type).toMatch(/\/not-found$/);
    }

    const storeAdmin = await adminSession(app, { storeReference: shop.store.reference });
    const forbidden = await storeAdmin.request(
      "POST",
      `${deliveriesPath(elsewhere, theirs.id)}/${delivery.id}/redeliver`,
    );
    expect(forbidden.status).toBe(403);
    expect(requestsTo("/theirs")).toHaveLength(1);
  });

  it("keeps a deleted endpoint's log readable, and does not send its deliveries again", async () => {
    const shop = await newShop();
    answers.set("/deleted", () => 200);
    const { id: endpointId } = await endpointAt(shop, "/deleted");
    await emit(shop, [pointsEarned]);
    const delivery = await onlyDelivery(shop, endpointId, (d) => d.status === "delivered");
    const deleted = await admin.request(
      "DELETE",
      `/admin/stores/${shop.store.id}/webhooks/${endpointId}`,
    );
    expect(deleted.status).toBe(200);

    expect((await log(shop, endpointId)).deliveries).toEqual([delivery]);
    const { status, body } = await redeliver(shop, endpointId, delivery.id);
    expect(status).toBe(404);
    expect(problemSchema.parse(body).detail).toMatch(/deleted/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(requestsTo("/deleted")).toHaveLength(1);
  });

  it("never shows credentials written in an endpoint's URL in the last error", async () => {
    const shop = await newShop();
    const port = new URL(receiver.url).port;
    const { id: endpointId } = await endpointAt(
      shop,
      "/userinfo",
      `http://hook-user:hook-password@127.0.0.1:${port}/userinfo?token=hook-token`,
    );
    await emit(shop, [pointsEarned]);
    const failed = await onlyDelivery(shop, endpointId, (d) => d.attempts === 1);
    expect(failed.lastStatusCode).toBeNull();
    expect(failed.lastError).toContain(`http://127.0.0.1:${port}`);
    const everywhere = [
      JSON.stringify(failed),
      app.logs.join(""),
      JSON.stringify(
        (
          await app.context.pool.query("SELECT last_error FROM webhook_deliveries WHERE id = $1", [
            failed.id,
          ])
        ).rows,
      ),
    ];
    for (const text of everywhere) {
      for (const secret of ["hook-password", "hook-user", "hook-token"]) {
        expect(text).not.toContain(secret);
      }
    }
  });
});
