import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ADMIN_OPERATIONS,
  claimRewardResponseSchema,
  WEBHOOK_SIGNATURE_HEADER,
  type CartConfig,
  type LauncherConfig,
  type ProductPointsConfig,
  type ProgramPresentationConfig,
  type ReferralProgramInput,
  type WidgetKind,
} from "@loyalty/shared-types";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../src/db/pool.js";
import { recordEvents, type OutboxEvent } from "../src/modules/events/events.repository.js";
import { verifyWebhookSignature } from "../src/modules/webhooks/webhooks.signature.js";
import { defaultWidgetConfig } from "../src/modules/widgets/widgets.defaults.js";
import { adminSession, type AdminSession } from "./support/admin.js";
import { basic, startTestApp, type TestApp } from "./support/app.js";
import { addReward, customerWithPoints, hashFor } from "./support/fixtures.js";

/**
 * The back-office's store settings: widget configurations, the platform connection, webhook
 * endpoints and the referral programme. Two server processes share the database, each with its
 * own storefront cache and LISTEN connection: A refuses platforms on private addresses (the
 * default), B is allowed them.
 */

interface Problem {
  type: string;
  errors?: { location: string; pointer: string; message: string; code: string }[];
}
interface Answer {
  status: number;
  text: string;
  body: unknown;
}

const PLATFORM_ENV = { PLATFORM_TIMEOUT_MS: "500", CLAIM_RECONCILE_AFTER_MS: "1000" };
const BRANDING = "#abcdef";

let a: TestApp;
let b: TestApp;
/** A service admin, on each process. */
let adminA: AdminSession;
let adminB: AdminSession;

beforeAll(async () => {
  a = await startTestApp({ env: PLATFORM_ENV });
  b = await startTestApp({
    database: a.database,
    env: { ...PLATFORM_ENV, ALLOW_PRIVATE_URLS: "true" },
  });
  adminA = await adminSession(a);
  adminB = await adminSession(b);
});
afterAll(async () => {
  await b.close();
  await a.close();
});

/**
 * Delays what each process hears on its LISTEN connection, in order, as a busy database or
 * network would: a write that answered before every process processed its change is then
 * caught by the read that follows it.
 */
async function withNotificationLatency(run: () => Promise<void>): Promise<void> {
  const delays: [TestApp, number][] = [
    [a, 150],
    [b, 200],
  ];
  const listeners = delays.map(([app, ms]) => {
    const listener = app.storeChanges as unknown as Record<string, (...args: unknown[]) => void>;
    for (const method of ["notified", "barrierMessage"]) {
      const heard = (listener[method] as (...args: unknown[]) => void).bind(listener);
      listener[method] = (...args) => void setTimeout(() => heard(...args), ms);
    }
    return listener;
  });
  try {
    await run();
  } finally {
    for (const listener of listeners) {
      delete listener["notified"];
      delete listener["barrierMessage"];
    }
  }
}

let storeCount = 0;
/** A store of its own for each test, with an API key. */
async function newStore(language = "en") {
  storeCount += 1;
  const { stores, apiKeys } = a.context.services;
  const store = await stores.create({
    domain: `https://settings-${storeCount}.example`,
    language,
    brandingColor: BRANDING,
  });
  const { key } = await apiKeys.create(store.reference);
  return { store, key };
}

async function call(
  session: AdminSession,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await session.request(method, path, body);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as unknown };
}

/** A 400 whose issues point at exactly these fields of the body. */
function expectRefused(answer: Answer, pointers: string[]) {
  expect(answer.status).toBe(400);
  const problem = answer.body as Problem;
  expect(problem.type).toMatch(/\/validation-failed$/);
  expect(problem.errors?.every((issue) => issue.location === "body")).toBe(true);
  expect([...new Set(problem.errors?.map((issue) => issue.pointer))].sort()).toEqual(
    [...pointers].sort(),
  );
}

function expectReason(answer: Answer, status: number, reason: string) {
  expect(answer.status).toBe(status);
  expect((answer.body as Problem).type).toMatch(new RegExp(`/${reason}$`));
}

/* ---------- Widget configurations ---------- */

const CART: CartConfig = {
  enabled: true,
  title: "Your points",
  earnTemplate: "This cart earns {points} points",
  showBalance: false,
  balanceTemplate: "Balance: {points}",
  showRewards: true,
  claimButtonText: "Redeem",
  confirmClaims: true,
  signedOutText: "Log in to redeem",
  loginUrl: "https://settings.example/login",
  accentColor: "#112233",
};
const PRODUCT_POINTS: ProductPointsConfig = {
  enabled: true,
  template: "+{points} points",
  hideWhenZero: false,
  showIcon: false,
  textColor: "#000000",
  accentColor: "rgb(10 20 30)",
};
/** Leaves two fallbacks to the storefront (mobile image, background) and writes raw HTML. */
const PRESENTATION: ProgramPresentationConfig = {
  header: {
    backgroundImageUrl: "https://cdn.settings.example/banner.jpg",
    mobileBackgroundImageUrl: "",
    imageFit: "ratio",
    mobileLayout: "overlay",
    contentPosition: "left",
    contentCard: true,
    backgroundColor: "",
    textColor: "#ffffff",
    primaryButtonText: "Our rewards",
    primaryButtonAction: "scroll-redeem",
    primaryButtonUrl: "",
    text: '<p onclick="steal()">Welcome <strong>back</strong></p><script>steal()</script>',
    isRawHtml: true,
  },
  sections: {
    howToEarn: { enabled: false, title: "Earn", items: [] },
    rewards: { enabled: true, title: "Rewards", confirmClaims: false },
    history: { enabled: true, title: "History" },
    faq: { enabled: true, title: "FAQ", items: [{ question: "Do points expire?", answer: "No." }] },
  },
};
/** The presentation as storefronts paint it: fallbacks resolved, the HTML sanitised. */
const PRESENTATION_PAINTED: ProgramPresentationConfig = {
  ...PRESENTATION,
  header: {
    ...PRESENTATION.header,
    mobileBackgroundImageUrl: "https://cdn.settings.example/banner.jpg",
    backgroundColor: BRANDING,
    text: "<p>Welcome <strong>back</strong></p>",
  },
};
const LAUNCHER: LauncherConfig = {
  enabled: true,
  label: "My points",
  position: "bottom-left",
  title: "Settings club",
  visitorText: "Join us",
  loginUrl: "https://settings.example/login",
  waysToEarn: [],
  showRewards: true,
  confirmClaims: true,
  showReferral: false,
  accentColor: "",
};
const SAVED = {
  cart: CART,
  "product-points": PRODUCT_POINTS,
  "program-presentation": PRESENTATION,
  launcher: LAUNCHER,
};
const PAINTED = { ...SAVED, "program-presentation": PRESENTATION_PAINTED };

/** A configuration the schema refuses, and the fields its refusal names. */
const INVALID: Record<WidgetKind, { config: unknown; pointers: string[] }> = {
  cart: {
    config: { ...CART, earnTemplate: "", accentColor: "red", loginUrl: "javascript:alert(1)" },
    pointers: ["/earnTemplate", "/accentColor", "/loginUrl"],
  },
  "product-points": {
    config: { ...PRODUCT_POINTS, template: "", hideWhenZero: "yes" },
    pointers: ["/template", "/hideWhenZero"],
  },
  "program-presentation": {
    config: {
      ...PRESENTATION,
      header: { ...PRESENTATION.header, imageFit: "stretch" },
      sections: { ...PRESENTATION.sections, faq: { enabled: true, title: "FAQ" } },
    },
    pointers: ["/header/imageFit", "/sections/faq/items"],
  },
  launcher: {
    config: { ...LAUNCHER, waysToEarn: [{ icon: "order" }], signUpUrl: "ftp://x" },
    pointers: ["/waysToEarn/0/title", "/waysToEarn/0/text", "/signUpUrl"],
  },
};

const WIDGET_OPERATIONS = {
  cart: ADMIN_OPERATIONS.getCartWidgetConfiguration,
  "product-points": ADMIN_OPERATIONS.getProductPointsWidgetConfiguration,
  "program-presentation": ADMIN_OPERATIONS.getProgramPresentationWidgetConfiguration,
  launcher: ADMIN_OPERATIONS.getLauncherWidgetConfiguration,
} as const;

describe.each(["cart", "product-points", "program-presentation", "launcher"] as const)(
  "the %s widget configuration",
  (kind) => {
    const path = (storeId: number) => `/admin/stores/${storeId}/widgets/${kind}`;
    const schema = WIDGET_OPERATIONS[kind].response;

    /** What the storefront widget serves on this process. */
    async function painted(app: TestApp, domain: string): Promise<unknown> {
      const query = new URLSearchParams({ domain });
      const response = await fetch(`${app.baseUrl}/store/widget/${kind}?${query.toString()}`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { config: unknown }).config;
    }

    it("reads the default, in the store's language, until one is saved", async () => {
      const { store } = await newStore("fr");
      const read = await call(adminA, "GET", path(store.id));
      expect(read.status).toBe(200);
      expect(schema.parse(read.body)).toEqual({
        kind,
        isDefault: true,
        updatedAt: null,
        config: defaultWidgetConfig(kind, "fr"),
      });
    });

    it("reads the default, as storefronts serve it, when the saved one is invalid", async () => {
      const { store } = await newStore();
      // Written around the back-office, as an operator's SQL or an older version could.
      await a.context.pool.query(
        `INSERT INTO widget_configurations (store_id, kind, config) VALUES ($1, $2, '{"enabled": 1}')`,
        [store.id, kind],
      );
      expect((await call(adminA, "GET", path(store.id))).body).toEqual({
        kind,
        isDefault: true,
        updatedAt: null,
        config: defaultWidgetConfig(kind, "en"),
      });
    });

    it("reads back exactly what was saved, so that saving it again changes nothing", async () => {
      const { store } = await newStore();
      const saved = await call(adminA, "PUT", path(store.id), SAVED[kind]);
      expect(saved.status).toBe(200);
      const body = schema.parse(saved.body);
      expect(body).toMatchObject({ kind, isDefault: false, config: SAVED[kind] });
      expect(Date.now() - Date.parse(body.updatedAt as string)).toBeLessThan(60_000);
      expect((await call(adminA, "GET", path(store.id))).body).toEqual(saved.body);

      const again = await call(adminA, "PUT", path(store.id), body.config);
      expect(again.status).toBe(200);
      expect((again.body as { config: unknown }).config).toEqual(SAVED[kind]);
      // The storefront paints it (for the presentation: with its fallbacks, sanitised).
      expect(await painted(a, store.domain)).toEqual(PAINTED[kind]);
    });

    it("refuses an invalid configuration, naming its fields, and keeps what was there", async () => {
      const { store } = await newStore();
      expectRefused(
        await call(adminA, "PUT", path(store.id), INVALID[kind].config),
        INVALID[kind].pointers,
      );
      expect((await call(adminA, "GET", path(store.id))).body).toMatchObject({
        isDefault: true,
        updatedAt: null,
      });

      await call(adminA, "PUT", path(store.id), SAVED[kind]);
      const before = await call(adminA, "GET", path(store.id));
      expectRefused(
        await call(adminA, "PUT", path(store.id), INVALID[kind].config),
        INVALID[kind].pointers,
      );
      expect(await call(adminA, "GET", path(store.id))).toEqual(before);
      expect(await painted(b, store.domain)).toEqual(PAINTED[kind]);
    });

    it("is served by every process as soon as the save answered", async () => {
      const { store } = await newStore();
      // Process B holds the default in memory...
      const before = await painted(b, store.domain);
      expect(before).not.toEqual(PAINTED[kind]);
      expect(await painted(b, store.domain)).toEqual(before);
      // ...and serves the new configuration the moment a save on A answered: no polling.
      await withNotificationLatency(async () => {
        expect((await call(adminA, "PUT", path(store.id), SAVED[kind])).status).toBe(200);
        expect(await painted(b, store.domain)).toEqual(PAINTED[kind]);
      });
    });

    /** The storefront widget's ETag and configuration, on this process. */
    async function served(app: TestApp, domain: string) {
      const query = new URLSearchParams({ domain });
      const response = await fetch(`${app.baseUrl}/store/widget/${kind}?${query.toString()}`);
      expect(response.status).toBe(200);
      const { config } = (await response.json()) as { config: unknown };
      return { etag: response.headers.get("etag"), config };
    }

    it("restores the default, in the store's language, on every process as soon as the reset answered", async () => {
      const { store } = await newStore("fr");
      const byDefault = await served(b, store.domain);
      expect((await call(adminA, "PUT", path(store.id), SAVED[kind])).status).toBe(200);
      // Process B holds the saved configuration in memory...
      const saved = await served(b, store.domain);
      expect(saved.config).toEqual(PAINTED[kind]);

      // ...and serves the default the moment a reset on A answered, under another ETag.
      await withNotificationLatency(async () => {
        const reset = await call(adminA, "DELETE", path(store.id));
        expect(reset.status).toBe(200);
        expect(schema.parse(reset.body)).toEqual({
          kind,
          isDefault: true,
          updatedAt: null,
          config: defaultWidgetConfig(kind, "fr"),
        });
        const now = await served(b, store.domain);
        expect(now.config).toEqual(byDefault.config);
        expect(now.etag).not.toBe(saved.etag);
      });
      expect((await call(adminB, "GET", path(store.id))).body).toMatchObject({
        isDefault: true,
        updatedAt: null,
      });
      // The default follows the store's language, which a saved copy of it would not.
      await call(adminA, "PATCH", `/admin/stores/${store.id}`, { language: "en" });
      expect((await call(adminA, "GET", path(store.id))).body).toMatchObject({
        config: defaultWidgetConfig(kind, "en"),
      });
    });

    it("answers the default when none is saved, and touches no other widget", async () => {
      const { store } = await newStore();
      const other = kind === "cart" ? "product-points" : "cart";
      await call(adminA, "PUT", `/admin/stores/${store.id}/widgets/${other}`, SAVED[other]);
      const read = await call(adminA, "GET", path(store.id));
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const reset = await call(adminA, "DELETE", path(store.id));
        expect(reset.status).toBe(200);
        expect(reset.body).toEqual(read.body);
      }
      expect(
        (await call(adminA, "GET", `/admin/stores/${store.id}/widgets/${other}`)).body,
      ).toMatchObject({ isDefault: false, config: SAVED[other] });
    });

    it("is refused without a token, or for a store that does not exist, and keeps what was saved", async () => {
      const { store } = await newStore();
      await call(adminA, "PUT", path(store.id), SAVED[kind]);
      const anonymous = await fetch(`${a.baseUrl}${path(store.id)}`, { method: "DELETE" });
      expect(anonymous.status).toBe(401);
      expectReason(await call(adminA, "DELETE", path(999_999_999)), 404, "not-found");
      expect((await call(adminA, "GET", path(store.id))).body).toMatchObject({
        isDefault: false,
        config: SAVED[kind],
      });
    });
  },
);

/* ---------- Platform connection ---------- */

const WOO = {
  platform: "woocommerce",
  url: "https://woo-settings.test/",
  consumerKey: "ck_settings_5f4e3d2c1b0a998877665544",
  consumerSecret: "cs_settings_0a1b2c3d4e5f6071829304a5",
} as const;
const WOO_SECRETS = [WOO.consumerKey, WOO.consumerSecret];

describe("the platform connection", () => {
  const path = (storeId: number) => `/admin/stores/${storeId}/platform`;
  // The platforms' APIs, played in this process, which both servers run in.
  const mock = setupServer();
  beforeAll(() => mock.listen({ onUnhandledRequest: "bypass" }));
  afterEach(() => mock.resetHandlers());
  afterAll(() => mock.close());

  async function sealed(storeId: number): Promise<Buffer | null> {
    const { rows } = await a.context.pool.query<{ credentials: Buffer | null }>(
      "SELECT platform_credentials AS credentials FROM stores WHERE id = $1",
      [storeId],
    );
    return rows[0]?.credentials ?? null;
  }

  it("reads the sandbox, without credentials, until the store is connected", async () => {
    const { store } = await newStore();
    const read = await call(adminA, "GET", path(store.id));
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      platform: "sandbox",
      url: null,
      hasCredentials: false,
      settings: null,
    });
  });

  it("takes credentials and never gives them back", async () => {
    const { store } = await newStore();
    const saved = await call(adminA, "PUT", path(store.id), WOO);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      platform: "woocommerce",
      url: "https://woo-settings.test",
      hasCredentials: true,
      settings: { platform: "woocommerce" },
    });
    const read = await call(adminB, "GET", path(store.id));
    expect(read.body).toEqual(saved.body);
    const stored = (await sealed(store.id)) as Buffer;
    for (const secret of WOO_SECRETS) {
      expect(saved.text).not.toContain(secret);
      expect(read.text).not.toContain(secret);
      expect(stored.toString("latin1")).not.toContain(secret);
    }
  });

  it("refuses an invalid connection, naming its fields, and keeps the one stored", async () => {
    const { store } = await newStore();
    await call(adminA, "PUT", path(store.id), WOO);
    const before = {
      read: await call(adminA, "GET", path(store.id)),
      sealed: await sealed(store.id),
    };
    expectRefused(
      await call(adminA, "PUT", path(store.id), {
        platform: "shopify",
        url: "ftp://loyal-shop.myshopify.com",
        accessToken: "   ",
        apiVersion: "2024-01",
      }),
      ["/url", "/accessToken", "/apiVersion"],
    );
    expectRefused(await call(adminA, "PUT", path(store.id), { platform: "magento" }), [
      "/platform",
    ]);
    expectRefused(
      await call(adminA, "PUT", path(store.id), {
        ...WOO,
        url: "https://admin:hunter2@woo-settings.test",
        consumerSecret: "",
      }),
      ["/url", "/consumerSecret"],
    );
    expect(await call(adminA, "GET", path(store.id))).toEqual(before.read);
    expect(await sealed(store.id)).toEqual(before.sealed);
  });

  it("refuses a platform on the service's own network, unless the operator allows it", async () => {
    const { store } = await newStore();
    for (const url of [
      "http://127.0.0.1:8080",
      "http://localhost:3000/shop",
      "http://shop.localhost.",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://2130706433/",
      "http://169.254.169.254/latest",
      "http://10.1.2.3",
      "http://172.20.0.5",
      "http://192.168.1.20",
      "http://[fd00:ec2::254]/",
    ]) {
      const refused = await call(adminA, "PUT", path(store.id), { ...WOO, url });
      expectRefused(refused, ["/url"]);
      expect((refused.body as Problem).errors?.[0]?.code).toBe("private_host");
    }
    expect((await call(adminA, "GET", path(store.id))).body).toEqual({
      platform: "sandbox",
      url: null,
      hasCredentials: false,
      settings: null,
    });
    // Public addresses and names are not the service's network.
    for (const url of ["http://93.184.216.34", "https://10.example"]) {
      expect((await call(adminA, "PUT", path(store.id), { ...WOO, url })).status).toBe(200);
    }
    // Process B runs with ALLOW_PRIVATE_URLS=true.
    const allowed = await call(adminB, "PUT", path(store.id), {
      ...WOO,
      url: "http://10.1.2.3:8080",
    });
    expect(allowed.status).toBe(200);
    expect((await call(adminA, "GET", path(store.id))).body).toMatchObject({
      platform: "woocommerce",
      url: "http://10.1.2.3:8080",
    });
  });

  it("sends the next claim to the platform the store was switched to, on every process", async () => {
    const { store, key } = await newStore();
    const { rewardId } = await addReward(a.context.pool, store.id, {
      triggerValue: 100,
      kind: "percentage",
      value: 10,
    });
    let customer = 0;
    async function claim(app: TestApp) {
      customer += 1;
      const externalId = customer;
      await customerWithPoints(
        a.context.pool,
        store.id,
        externalId,
        500,
        `c${externalId}@example.com`,
      );
      const query = new URLSearchParams({
        domain: store.domain,
        hash: hashFor(store.reference, key, externalId),
      });
      const response = await fetch(
        `${app.baseUrl}/reward/claim/${externalId}?${query.toString()}`,
        {
          method: "POST",
          headers: { "content-type": "application/json", revision: "2026-08-26" },
          body: JSON.stringify({ rewardId }),
        },
      );
      expect(response.status).toBe(201);
      return claimRewardResponseSchema.parse(await response.json()).code;
    }
    async function inSandbox(code: string): Promise<boolean> {
      const { rowCount } = await a.context.pool.query(
        "SELECT 1 FROM sandbox_discount_codes WHERE store_id = $1 AND code = $2",
        [store.id, code],
      );
      return rowCount === 1;
    }

    // Both processes hold the sandbox adapter.
    const woo: { code: string; authorization: string | null }[] = [];
    mock.use(
      http.post("https://woo-settings.test/wp-json/wc/v3/coupons", async ({ request }) => {
        const coupon = (await request.json()) as { code: string };
        woo.push({ code: coupon.code, authorization: request.headers.get("authorization") });
        return HttpResponse.json({ id: 91, code: coupon.code.toLowerCase() }, { status: 201 });
      }),
    );
    for (const app of [a, b]) expect(await inSandbox(await claim(app))).toBe(true);
    expect(woo).toEqual([]);

    let onA = "";
    let onB = "";
    await withNotificationLatency(async () => {
      expect((await call(adminA, "PUT", path(store.id), WOO)).status).toBe(200);
      onB = await claim(b);
      onA = await claim(a);
    });
    expect(woo.map((coupon) => coupon.code)).toEqual([onB, onA]);
    expect(woo[0]?.authorization).toBe(basic(WOO.consumerKey, WOO.consumerSecret));
    expect(await inSandbox(onB)).toBe(false);
    expect(await inSandbox(onA)).toBe(false);
  });

  it("keeps the credentials out of every log line", () => {
    const logs = a.logs.join("") + b.logs.join("");
    expect(logs).toContain("/platform");
    for (const secret of WOO_SECRETS) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(basic(WOO.consumerKey, WOO.consumerSecret).slice(6));
    }
  });
});

/* ---------- Webhook endpoints ---------- */

describe("webhook endpoints", () => {
  const path = (storeId: number) => `/admin/stores/${storeId}/webhooks`;
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let receiver: Server;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({
          path: req.url ?? "/",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const pointsEarned: OutboxEvent = {
    type: "POINTS_EARNED",
    data: {
      order: { externalId: "1001", externalReference: "#1001" },
      customer: { externalId: 42 },
      points: 120,
      balance: 340,
    },
  };

  /** Records an event as orders do; returns the ids of the deliveries it made, by endpoint. */
  async function emit(storeId: number): Promise<Map<number, number>> {
    const { rows } = await withTransaction(a.context.pool, async (client) => {
      await recordEvents(client, storeId, [pointsEarned]);
      return client.query<{ id: number; endpointId: number }>(
        `SELECT d.id, d.endpoint_id AS "endpointId" FROM webhook_deliveries d
         JOIN outbox_events e ON e.id = d.event_id
         WHERE e.id = (SELECT max(id) FROM outbox_events WHERE store_id = $1)`,
        [storeId],
      );
    });
    return new Map(rows.map((row) => [Number(row.endpointId), Number(row.id)]));
  }

  const createdSchema = ADMIN_OPERATIONS.createWebhookEndpoint.response;

  it("creates an endpoint whose signing secret is shown once, and signs with it", async () => {
    const { store } = await newStore();
    expect((await call(adminA, "GET", path(store.id))).body).toEqual([]);
    const url = `${receiverUrl}/hooks/created`;
    // The receiver listens on loopback: process B runs with ALLOW_PRIVATE_URLS=true.
    const created = await call(adminB, "POST", path(store.id), { url, events: ["POINTS_EARNED"] });
    expect(created.status).toBe(201);
    const { secret, ...endpoint } = createdSchema.parse(created.body);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(endpoint).toMatchObject({ url, events: ["POINTS_EARNED"], active: true });

    const listed = await call(adminB, "GET", path(store.id));
    expect(listed.body).toEqual([endpoint]);
    expect(listed.text).not.toContain(secret.slice(6));

    const deliveryId = (await emit(store.id)).get(endpoint.id) as number;
    // Delivered by B too: only a process with ALLOW_PRIVATE_URLS connects to loopback.
    expect(await b.context.services.webhooks.deliver(deliveryId)).toBe("delivered");
    const request = received.find((r) => r.path === "/hooks/created");
    const signature = request?.headers[WEBHOOK_SIGNATURE_HEADER] as string;
    expect(verifyWebhookSignature(secret, request?.body ?? "", signature)).toBe(true);
  });

  it("refuses an invalid endpoint, naming its fields, and creates nothing", async () => {
    const { store } = await newStore();
    expectRefused(
      await call(adminA, "POST", path(store.id), {
        url: "ftp://hooks.example/in",
        events: ["POINTS_EARNED", "ORDER_SHIPPED"],
      }),
      ["/url", "/events/1"],
    );
    expectRefused(await call(adminA, "POST", path(store.id), {}), ["/url"]);
    expect((await call(adminA, "GET", path(store.id))).body).toEqual([]);
  });

  it("refuses an endpoint on the service's own network, unless the operator allows it", async () => {
    const { store } = await newStore();
    for (const url of [`${receiverUrl}/hooks/internal`, "http://169.254.169.254/latest"]) {
      const refused = await call(adminA, "POST", path(store.id), { url });
      expectRefused(refused, ["/url"]);
      expect((refused.body as Problem).errors?.[0]?.code).toBe("private_host");
    }
    expect((await call(adminA, "GET", path(store.id))).body).toEqual([]);
  });

  it("deactivates an endpoint: nothing more is delivered to it", async () => {
    const { store } = await newStore();
    const created = await call(adminB, "POST", path(store.id), {
      url: `${receiverUrl}/hooks/deleted`,
    });
    const { secret, ...endpoint } = createdSchema.parse(created.body);
    const pending = (await emit(store.id)).get(endpoint.id) as number;
    expect(pending).toBeDefined();

    const deleted = await call(adminA, "DELETE", `${path(store.id)}/${endpoint.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({
      ...endpoint,
      active: false,
      updatedAt: expect.any(String),
    });
    expect(deleted.text).not.toContain(secret.slice(6));
    expect((await call(adminA, "GET", path(store.id))).body).toEqual([deleted.body]);

    expect(await a.context.services.webhooks.deliver(pending)).toBe("failed");
    expect((await emit(store.id)).has(endpoint.id)).toBe(false);
    expect(received.filter((r) => r.path === "/hooks/deleted")).toEqual([]);
  });

  it("answers not-found for an endpoint of another store, and leaves it alone", async () => {
    const owner = await newStore();
    const other = await newStore();
    const created = await call(adminA, "POST", path(owner.store.id), {
      url: "https://hooks.example/owner",
    });
    const { secret: _secret, ...endpoint } = createdSchema.parse(created.body);
    for (const id of [String(endpoint.id), "999999999", "abc"]) {
      expectReason(await call(adminA, "DELETE", `${path(other.store.id)}/${id}`), 404, "not-found");
    }
    expect((await call(adminA, "GET", path(owner.store.id))).body).toEqual([endpoint]);
  });
});

/* ---------- Referral programme ---------- */

const PROGRAM: ReferralProgramInput = {
  referrerBonus: 250,
  refereeVoucher: {
    kind: "fixed_amount",
    value: 7.5,
    currency: "EUR",
    minimumOrderAmount: 30,
    validityDays: 60,
  },
  landingUrl: "https://settings.example/join",
};

describe("the referral programme", () => {
  const path = (storeId: number) => `/admin/stores/${storeId}/referral-program`;

  it("reaches every process's launcher as soon as the save answered", async () => {
    const { store } = await newStore();
    const offer = async () => {
      const query = new URLSearchParams({ domain: store.domain });
      const response = await fetch(`${b.baseUrl}/store/widget/launcher?${query.toString()}`);
      return ((await response.json()) as { referral: unknown }).referral;
    };
    // Process B holds "no programme" in memory...
    expect(await offer()).toBeNull();
    // ...and offers the new one the moment the save on A answered, then none once paused.
    await withNotificationLatency(async () => {
      expect((await call(adminA, "PUT", path(store.id), PROGRAM)).status).toBe(200);
      expect(await offer()).toMatchObject({ referrerBonus: PROGRAM.referrerBonus });
      const paused = { ...PROGRAM, active: false };
      expect((await call(adminA, "PUT", path(store.id), paused)).status).toBe(200);
      expect(await offer()).toBeNull();
    });
  });

  it("is not found until one is set", async () => {
    const { store } = await newStore();
    expectReason(await call(adminA, "GET", path(store.id)), 404, "not-found");
  });

  it("sets the programme and answers it as saved", async () => {
    const { store } = await newStore();
    const saved = await call(adminA, "PUT", path(store.id), PROGRAM);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ active: true, ...PROGRAM });
    expect((await call(adminB, "GET", path(store.id))).body).toEqual(saved.body);

    const percentage = (value: number) => ({
      active: false,
      referrerBonus: 0,
      refereeVoucher: {
        kind: "percentage",
        value,
        currency: null,
        minimumOrderAmount: null,
        validityDays: null,
      },
    });
    // Amounts are kept to the cent: a finer one is refused rather than rounded.
    expectRefused(await call(adminA, "PUT", path(store.id), percentage(12.345)), [
      "/refereeVoucher/value",
    ]);
    expect((await call(adminA, "GET", path(store.id))).body).toEqual(saved.body);
    const changed = await call(adminA, "PUT", path(store.id), percentage(12.35));
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...percentage(12.35), landingUrl: null });
    expect((await call(adminA, "GET", path(store.id))).body).toEqual(changed.body);
  });

  it("refuses an invalid programme, naming its fields, and keeps what was there", async () => {
    const { store } = await newStore();
    const invalid = [
      {
        body: { referrerBonus: -5, refereeVoucher: PROGRAM.refereeVoucher, landingUrl: "ftp://x" },
        pointers: ["/referrerBonus", "/landingUrl"],
      },
      {
        body: {
          ...PROGRAM,
          refereeVoucher: { ...PROGRAM.refereeVoucher, kind: "percentage", value: 150 },
        },
        pointers: ["/refereeVoucher/value", "/refereeVoucher/currency"],
      },
      { body: { ...PROGRAM, refereeVoucher: undefined }, pointers: ["/refereeVoucher"] },
    ];
    for (const { body, pointers } of invalid) {
      expectRefused(await call(adminA, "PUT", path(store.id), body), pointers);
    }
    expectReason(await call(adminA, "GET", path(store.id)), 404, "not-found");

    await call(adminA, "PUT", path(store.id), PROGRAM);
    const before = await call(adminA, "GET", path(store.id));
    for (const { body, pointers } of invalid) {
      expectRefused(await call(adminA, "PUT", path(store.id), body), pointers);
    }
    expect(await call(adminA, "GET", path(store.id))).toEqual(before);
  });
});

/* ---------- Scope ---------- */

describe("a store's token", () => {
  it("reads and changes its own store's settings only", async () => {
    const own = await newStore();
    const other = await newStore();
    const session = await adminSession(a, { storeReference: own.store.reference });
    const settings = (storeId: number) => `/admin/stores/${storeId}`;

    // The other store, configured by the service admin.
    await call(adminA, "PUT", `${settings(other.store.id)}/widgets/cart`, CART);
    await call(adminA, "PUT", `${settings(other.store.id)}/platform`, WOO);
    await call(adminA, "PUT", `${settings(other.store.id)}/referral-program`, PROGRAM);
    await call(adminA, "PUT", `${settings(other.store.id)}/program-settings`, { pendingDays: 7 });
    const hook = await call(adminA, "POST", `${settings(other.store.id)}/webhooks`, {
      url: "https://hooks.example/other",
    });
    const hookId = (hook.body as { id: number }).id;
    const reads = [
      ...["cart", "product-points", "program-presentation"].map((kind) => `widgets/${kind}`),
      "platform",
      "webhooks",
      "referral-program",
      "program-settings",
    ];
    const snapshot = () =>
      Promise.all(reads.map((read) => call(adminA, "GET", `${settings(other.store.id)}/${read}`)));
    const before = await snapshot();

    const attempts: [string, string, unknown?][] = [
      ...reads.map((read): [string, string] => ["GET", read]),
      ["PUT", "widgets/cart", { ...CART, title: "Hijacked" }],
      ["PUT", "widgets/product-points", PRODUCT_POINTS],
      ["PUT", "widgets/program-presentation", PRESENTATION],
      ["DELETE", "widgets/cart"],
      ["DELETE", "widgets/product-points"],
      ["DELETE", "widgets/program-presentation"],
      ["PUT", "platform", { platform: "sandbox" }],
      ["POST", "webhooks", { url: "https://attacker.example/in" }],
      ["DELETE", `webhooks/${hookId}`],
      ["PUT", "referral-program", { ...PROGRAM, referrerBonus: 999_999 }],
      ["PUT", "program-settings", { pendingDays: 365 }],
    ];
    for (const [method, read, body] of attempts) {
      const answer = await call(session, method, `${settings(other.store.id)}/${read}`, body);
      expectReason(answer, 403, "forbidden");
    }
    expect(await snapshot()).toEqual(before);

    // The same token does reach its own store.
    expect(
      (await call(session, "PUT", `${settings(own.store.id)}/widgets/cart`, CART)).status,
    ).toBe(200);
    expect((await call(session, "GET", `${settings(own.store.id)}/platform`)).status).toBe(200);
  });

  it("answers not-found for a store that does not exist", async () => {
    for (const read of [
      "widgets/cart",
      "platform",
      "webhooks",
      "referral-program",
      "program-settings",
    ]) {
      expectReason(await call(adminA, "GET", `/admin/stores/999999999/${read}`), 404, "not-found");
    }
  });
});
