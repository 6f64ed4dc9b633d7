import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { registry } from "../src/metrics/metrics.js";
import type { AddressInfo } from "node:net";
import getPort from "get-port";
import { customerHistoryResponseV2Schema } from "@loyalty/shared-types";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, startTestApp, TEST_MASTER_KEY, type TestApp } from "./support/app.js";
import { addReward, customerWithPoints, hashFor, storeWithKey } from "./support/fixtures.js";
import { environment, exitOf, startServer } from "./support/processes.js";

/**
 * A server process killed (SIGKILL) while the platform is making a claim's code: the points
 * stay held, and the reconciliation job settles each claim by asking the platform whether the
 * code exists: confirmed when it does, the points given back when it does not.
 */

const LATEST = { revision: "2026-08-26" };

/** A WooCommerce shop on a real socket, that never answers a coupon creation. */
interface Shop {
  url: string;
  /** Codes whose creation arrived, and whether the shop made them before the crash. */
  received: Map<string, boolean>;
  /** Decides, per arriving code, whether the shop makes it. */
  makes: (code: string) => boolean;
  held: ServerResponse[];
  server: Server;
}

async function startShop(makes: (code: string) => boolean): Promise<Shop> {
  const shop = { received: new Map<string, boolean>(), makes, held: [] } as unknown as Shop;
  shop.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://shop");
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.method === "POST" && url.pathname === "/wp-json/wc/v3/coupons") {
        const { code } = JSON.parse(body) as { code: string };
        shop.received.set(code.toUpperCase(), shop.makes(code));
        shop.held.push(res); // no answer: the server dies waiting
        return;
      }
      if (req.method === "GET" && url.pathname === "/wp-json/wc/v3/coupons") {
        const code = (url.searchParams.get("code") ?? "").toUpperCase();
        const made = shop.received.get(code) === true;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(made ? [{ id: 7, code: code.toLowerCase() }] : []));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise<void>((resolve) => shop.server.listen(0, "127.0.0.1", resolve));
  shop.url = `http://127.0.0.1:${(shop.server.address() as AddressInfo).port}`;
  return shop;
}

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  // Reconciliation runs here, on the same database; a claim is stale after a second.
  app = await startTestApp({
    env: {
      PLATFORM_TIMEOUT_MS: "500",
      CLAIM_RECONCILE_AFTER_MS: "1000",
      // The shop listens on loopback, which only an operator's choice lets the service reach.
      ALLOW_PRIVATE_URLS: "true",
    },
  });
  // Every other code arriving is made before the crash.
  let arrivals = 0;
  shop = await startShop(() => arrivals++ % 2 === 0);
});
afterAll(async () => {
  for (const response of shop.held) response.destroy();
  shop.server.closeAllConnections();
  await new Promise((resolve) => shop.server.close(resolve));
  await app.close();
});

async function claimState(storeId: number, externalId: number) {
  const { rows } = await app.context.pool.query<{
    status: string;
    code: string;
    balance: number;
    reserved_points: number;
  }>(
    `SELECT cl.status, cl.code, c.balance, c.reserved_points
     FROM reward_claims cl JOIN customers c ON c.id = cl.customer_id
     WHERE c.store_id = $1 AND c.external_id = $2`,
    [storeId, externalId],
  );
  return rows[0];
}

it("settles claims interrupted between reservation and confirmation", async () => {
  const store = await storeWithKey(app, "https://crash.example");
  await app.context.services.platforms.connect(
    store.store.id,
    {
      platform: "woocommerce",
      url: shop.url,
      consumerKey: "ck_crash",
      consumerSecret: "cs_crash",
    },
    { allowPrivateUrls: true },
  );
  const { rewardId } = await addReward(app.context.pool, store.store.id, { triggerValue: 300 });
  const customers = [41, 42];
  for (const id of customers) {
    await customerWithPoints(app.context.pool, store.store.id, id, 1000, `c${id}@example.com`);
  }

  const port = await getPort();
  const server = await startServer(
    environment({
      DATABASE_URL: app.database.url,
      LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
      MIGRATE_ON_START: "false",
      WORKERS: "off",
      PORT: String(port),
      PLATFORM_TIMEOUT_MS: "60000",
      CLAIM_RECONCILE_AFTER_MS: "120000",
      // The shop listens on loopback.
      ALLOW_PRIVATE_URLS: "true",
    }),
  );
  const pending = customers.map((id) =>
    fetch(
      `http://127.0.0.1:${port}/reward/claim/${id}?${new URLSearchParams({
        domain: store.store.domain,
        hash: hashFor(store.store.reference, store.key, id),
      }).toString()}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", ...LATEST },
        body: JSON.stringify({ rewardId }),
      },
    ).catch((error: unknown) => error),
  );
  // Both reservations are committed, both creations are at the shop: now the process dies.
  await eventually(() => (shop.received.size === 2 ? true : undefined));
  server.child.kill("SIGKILL");
  await exitOf(server.child);
  for (const outcome of await Promise.all(pending)) expect(outcome).toBeInstanceOf(Error);

  const held = await Promise.all(customers.map((id) => claimState(store.store.id, id)));
  for (const claim of held) {
    expect(claim).toMatchObject({ status: "reserved", balance: 1000, reserved_points: 300 });
  }
  // Held points cannot be spent twice meanwhile: 700 are left to spend, not 1000.
  const { rows } = await app.context.pool.query<{ available: number }>(
    `SELECT balance - reserved_points AS available FROM customers
     WHERE store_id = $1 AND external_id = 41`,
    [store.store.id],
  );
  expect(rows[0]?.available).toBe(700);

  // The workers' job settles them once they are older than CLAIM_RECONCILE_AFTER_MS.
  const reconciledBefore = await reconcilerCounts();
  await app.startWorkers();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await app.context.pool.query(`SELECT graphile_worker.add_job('reconcile-claims')`);
  const settled = await eventually(async () => {
    const states = await Promise.all(customers.map((id) => claimState(store.store.id, id)));
    return states.every((state) => state?.status !== "reserved") ? states : undefined;
  });

  for (const [index, id] of customers.entries()) {
    const claim = settled[index] as NonNullable<(typeof settled)[number]>;
    const made = shop.received.get(claim.code);
    if (made) {
      // The shop made the code: the customer paid for it and finds it in their history.
      expect(claim).toMatchObject({ status: "confirmed", balance: 700, reserved_points: 0 });
      const history = await fetch(
        `${app.baseUrl}/point/user-history/${id}?${new URLSearchParams({
          domain: store.store.domain,
          hash: hashFor(store.store.reference, store.key, id),
        }).toString()}`,
        { headers: LATEST },
      );
      const [redemption] = customerHistoryResponseV2Schema.parse(await history.json()).transactions;
      expect(redemption).toMatchObject({ kind: "reward_redemption", voucherCode: claim.code });
    } else {
      // No code anywhere: the points come back.
      expect(claim).toMatchObject({ status: "released", balance: 1000, reserved_points: 0 });
    }
  }
  expect(settled.map((claim) => claim?.status).sort()).toEqual(["confirmed", "released"]);
  // What an operator's dashboard shows of it: one of each, settled by the reconciliation, after
  // asking the shop about both codes.
  const reconciledAfter = await reconcilerCounts();
  expect({
    confirmed: reconciledAfter.confirmed - reconciledBefore.confirmed,
    released: reconciledAfter.released - reconciledBefore.released,
    asked: reconciledAfter.asked - reconciledBefore.asked,
  }).toEqual({ confirmed: 1, released: 1, asked: 2 });
  expect(app.logs.join("")).toContain("settled claims interrupted");
});

/** The process's metrics of the reconciliation: claims it settled, codes it asked about. */
async function reconcilerCounts() {
  const claims = await registry.getSingleMetric("loyalty_claims_total")?.get();
  const calls = await registry.getSingleMetric("loyalty_platform_request_duration_seconds")?.get();
  const claimed = (step: string) =>
    claims?.values.find((v) => v.labels["step"] === step && v.labels["source"] === "reconciler")
      ?.value ?? 0;
  const asked =
    calls?.values.find(
      (v) =>
        (v as { metricName?: string }).metricName ===
          "loyalty_platform_request_duration_seconds_count" &&
        v.labels["call"] === "discount-code-exists" &&
        v.labels["platform"] === "woocommerce",
    )?.value ?? 0;
  return { confirmed: claimed("confirmed"), released: claimed("released"), asked };
}
