import { createHash } from "node:crypto";
import getPort from "get-port";
import {
  createReferralResponseSchema,
  problemSchema,
  refereeCodeResponseSchema,
  type ReferralProgramInput,
} from "@loyalty/shared-types";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { basic, eventually, startTestApp, type TestApp } from "./support/app.js";
import { customerWithPoints, hashFor, pointsOf, storeWithKey } from "./support/fixtures.js";
import { startSmtpServer, type TestSmtpServer } from "./support/smtp.js";

const LATEST = { revision: "2026-08-26" };
/** A day the service's clock is moved to, after revision 2026-08-26's release. */
const BONUS_DAY = new Date("2027-02-01T09:00:00.000Z");

const PROGRAM: ReferralProgramInput = {
  referrerBonus: 150,
  refereeVoucher: {
    kind: "fixed_amount",
    value: 10,
    currency: "EUR",
    minimumOrderAmount: 40,
    validityDays: 30,
  },
  landingUrl: "https://coffee.example/welcome?utm_source=referral",
};

type Store = Awaited<ReturnType<typeof storeWithKey>>;

const mock = setupServer();
let smtp: TestSmtpServer;
let app: TestApp;

beforeAll(async () => {
  mock.listen({ onUnhandledRequest: "bypass" });
  smtp = await startSmtpServer();
  app = await startTestApp({ workers: true, env: { SMTP_URL: smtp.url } });
});
afterEach(() => {
  mock.resetHandlers();
  app.setNow(undefined);
});
afterAll(async () => {
  mock.close();
  await app.close();
  await smtp.close();
});

async function storeWithProgram(domain: string, options: { language?: string } = {}) {
  const { stores, apiKeys, referrals } = app.context.services;
  const store = await stores.create({ domain, name: "The Coffee Shop", ...options });
  const { key } = await apiKeys.create(store.reference);
  await referrals.saveProgram(store.id, PROGRAM);
  return { store, key, authorization: basic(key) };
}

function refer(s: Store, referrer: number, body: unknown, query: Record<string, string> = {}) {
  const params = new URLSearchParams({
    externalId: String(referrer),
    domain: s.store.domain,
    hash: hashFor(s.store.reference, s.key, referrer),
    ...query,
  });
  return fetch(`${app.baseUrl}/point/referral?${params.toString()}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...LATEST },
    body: JSON.stringify(body),
  });
}

function refereeCode(body: unknown) {
  return fetch(`${app.baseUrl}/reward/referral/get-referee-code`, {
    method: "POST",
    headers: { "content-type": "application/json", ...LATEST },
    body: JSON.stringify(body),
  });
}

async function referralRows(storeId: number) {
  const { rows } = await app.context.pool.query(
    `SELECT email, status FROM referrals WHERE store_id = $1 ORDER BY id`,
    [storeId],
  );
  return rows;
}

/**
 * Everything a refused referral must leave as it was. Its invitation job would be inserted by
 * the referral's own statement: no referral, no job.
 */
async function footprint(storeId: number) {
  const { rows } = await app.context.pool.query<{ customers: number; referrals: number }>(
    `SELECT (SELECT count(*)::int FROM customers WHERE store_id = $1) AS customers,
            (SELECT count(*)::int FROM referrals WHERE store_id = $1) AS referrals`,
    [storeId],
  );
  return rows[0];
}

async function expectRefused(response: Response, status: number, reason: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(await response.json());
  expect(problem.type).toMatch(new RegExp(`/${reason}$`));
  return problem;
}

function mailTo(address: string) {
  return eventually(() => smtp.messages.find((mail) => mail.envelopeTo.includes(address)));
}

describe("POST /point/referral", () => {
  let shop: Store;
  beforeAll(async () => {
    shop = await storeWithProgram("https://referrals.example");
    await customerWithPoints(app.context.pool, shop.store.id, 1, 0, "ada@example.com");
    await app.context.pool.query(
      `UPDATE customers SET first_name = 'Ada', last_name = 'Lovelace'
       WHERE store_id = $1 AND external_id = 1`,
      [shop.store.id],
    );
  });

  it("answers 201 with an unguessable hash and mails the invitation over SMTP", async () => {
    const response = await refer(shop, 1, { email: "Grace@Example.com", firstName: "Grace" });
    expect(response.status).toBe(201);
    const referral = createReferralResponseSchema.parse(await response.json());
    expect(referral).toMatchObject({ status: "pending", email: "grace@example.com" });
    // At least 128 random bits: 32 bytes in base64url.
    expect(referral.hash).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const mail = await mailTo("grace@example.com");
    expect(mail.subject).toBe("Ada invites you to The Coffee Shop");
    expect(mail.to?.map((to) => to.address)).toEqual(["grace@example.com"]);
    expect(mail.headers.find((header) => header.key === "content-language")?.value).toBe("en");
    const link = new URL(
      `https://coffee.example/welcome?utm_source=referral&loyalty_referral=${referral.hash}`,
    );
    expect(mail.text).toContain(link.href);
    expect(mail.html).toContain(`href="${link.href.replace(/&/g, "&amp;")}"`);
    expect(mail.text).toContain("Hello Grace,");
    expect(mail.text).toContain("€10.00 off");
    expect(mail.text).toContain("€40.00");
    expect(mail.text).toContain("30 days");
    // The last name stays private.
    expect(mail.text).not.toContain("Lovelace");

    // The database holds a digest and a ciphertext of the hash, never the hash.
    const { rows } = await app.context.pool.query<{ row: string; digest: Buffer }>(
      `SELECT row_to_json(r)::text AS row, hash_digest AS digest FROM referrals r
       WHERE store_id = $1 AND email = 'grace@example.com'`,
      [shop.store.id],
    );
    expect(rows[0]?.row).not.toContain(referral.hash);
    expect(rows[0]?.digest).toEqual(createHash("sha256").update(referral.hash).digest());
    await eventually(async () => {
      const { rows: sent } = await app.context.pool.query(
        `SELECT invitation_sent_at FROM referrals WHERE store_id = $1 AND email = $2`,
        [shop.store.id, "grace@example.com"],
      );
      return sent[0]?.invitation_sent_at ? true : undefined;
    });
  });

  it("writes the invitation in French for a French store or a French referee", async () => {
    const french = await storeWithProgram("https://parrainage.example", { language: "fr" });
    await customerWithPoints(app.context.pool, french.store.id, 5, 0);
    await app.context.pool.query(
      `UPDATE customers SET first_name = 'Zoé' WHERE store_id = $1 AND external_id = 5`,
      [french.store.id],
    );
    expect((await refer(french, 5, { email: "luc@example.fr", firstName: "Luc" })).status).toBe(
      201,
    );
    const mail = await mailTo("luc@example.fr");
    expect(mail.subject).toBe("Zoé vous invite chez The Coffee Shop");
    expect(mail.text).toContain("Bonjour Luc,");
    expect(mail.text).toMatch(/10,00\s€ de réduction/);
    expect(mail.text).toContain("Obtenir mon code");

    // The referee's language wins over the store's.
    expect((await refer(shop, 1, { email: "jeanne@example.fr", language: "fr" })).status).toBe(201);
    expect((await mailTo("jeanne@example.fr")).subject).toBe(
      "Ada vous invite chez The Coffee Shop",
    );
  });

  it("checks, in the spec's order, that the address is no customer, then no pending or completed referral", async () => {
    // An address that is both a customer's and already invited: the customer check comes first.
    await customerWithPoints(app.context.pool, shop.store.id, 2, 0, "bob@example.com");
    await app.context.pool.query(
      `INSERT INTO referrals (store_id, referrer_customer_id, email, hash_digest, status)
       SELECT $1, id, 'bob@example.com', '\\x02', 'pending' FROM customers
       WHERE store_id = $1 AND external_id = 1`,
      [shop.store.id],
    );
    await app.context.pool.query(
      `INSERT INTO referrals (store_id, referrer_customer_id, email, hash_digest, status)
       SELECT $1, id, 'done@example.com', '\\x03', 'completed' FROM customers
       WHERE store_id = $1 AND external_id = 1`,
      [shop.store.id],
    );
    expect((await refer(shop, 1, { email: "carol@example.com" })).status).toBe(201);
    const before = await footprint(shop.store.id);
    await expectRefused(
      await refer(shop, 1, { email: "BOB@example.com" }),
      400,
      "referral-customer-already-exists",
    );
    await expectRefused(
      await refer(shop, 1, { email: "carol@example.com" }),
      400,
      "referral-already-pending",
    );
    await expectRefused(
      await refer(shop, 1, { email: "done@example.com" }),
      400,
      "referral-already-completed",
    );
    // Another referrer cannot invite them again either.
    await expectRefused(
      await refer(shop, 3, { email: "carol@example.com" }),
      400,
      "referral-already-pending",
    );
    expect(await footprint(shop.store.id)).toEqual(before);
    // The legacy format names the same refusal.
    const legacy = await fetch(
      `${app.baseUrl}/point/referral?${new URLSearchParams({
        externalId: "1",
        domain: shop.store.domain,
        hash: hashFor(shop.store.reference, shop.key, 1),
      }).toString()}`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "carol@example.com" }),
      },
    );
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "This address was already invited.",
    });
  });

  it("lets one of ten simultaneous invitations of an address through", async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        refer(shop, 100 + index, { email: "dan@example.com" }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    const refused = await Promise.all(
      responses
        .filter((response) => response.status !== 201)
        .map(async (response) => problemSchema.parse(await response.json())),
    );
    expect(refused).toHaveLength(9);
    for (const problem of refused) expect(problem.type).toMatch(/\/referral-already-pending$/);
  });

  it("refuses a customer referring their own address", async () => {
    const before = await footprint(shop.store.id);
    const problem = await expectRefused(
      await refer(shop, 1, { email: "ADA@example.com" }),
      400,
      "validation-failed",
    );
    expect(problem.errors?.map((issue) => issue.pointer)).toEqual(["/email"]);
    expect(await footprint(shop.store.id)).toEqual(before);
  });

  it("refuses invalid bodies naming the fields, and writes nothing, not even the referrer", async () => {
    const before = await footprint(shop.store.id);
    const cases: [unknown, string[]][] = [
      [{}, ["/email"]],
      [{ email: "not-an-address" }, ["/email"]],
      [{ email: "x@example.com", language: "french" }, ["/language"]],
      [{ email: "x@example.com", firstName: 12 }, ["/firstName"]],
      [{ email: "x@example.com", firstName: "Win at https://spam.example" }, ["/firstName"]],
      [{ email: "x@example.com", lastName: "" }, ["/lastName"]],
      [{ email: 5, language: 5 }, ["/email", "/language"]],
    ];
    for (const [body, pointers] of cases) {
      const problem = await expectRefused(await refer(shop, 77, body), 400, "validation-failed");
      expect(problem.errors?.map((issue) => issue.pointer).sort()).toEqual(pointers);
    }
    expect(await footprint(shop.store.id)).toEqual(before);
  });

  it("answers 401 to a wrong hash, a missing externalId or an unknown domain", async () => {
    const before = await footprint(shop.store.id);
    await expectRefused(
      await refer(shop, 1, { email: "e@example.com" }, { hash: "f".repeat(128) }),
      401,
      "unauthorized",
    );
    await expectRefused(
      await refer(shop, 1, { email: "e@example.com" }, { domain: "https://nowhere.example" }),
      401,
      "unauthorized",
    );
    await expectRefused(
      await refer(shop, 1, { email: "e@example.com" }, { externalId: "abc" }),
      401,
      "unauthorized",
    );
    expect(await footprint(shop.store.id)).toEqual(before);
  });

  it("refuses referrals where the store runs no programme, or stopped it", async () => {
    const none = await storeWithKey(app, "https://no-program.example");
    await expectRefused(await refer(none, 1, { email: "f@example.com" }), 400, "validation-failed");
    await app.context.services.referrals.saveProgram(none.store.id, { ...PROGRAM, active: false });
    await expectRefused(await refer(none, 1, { email: "f@example.com" }), 400, "validation-failed");
    expect(await referralRows(none.store.id)).toEqual([]);
  });
});

describe("referrals on a store whose platform knows other customers", () => {
  let woo: Store;
  beforeAll(async () => {
    woo = await storeWithProgram("https://woo-referrals.example");
    await app.context.services.platforms.connect(
      woo.store.id,
      {
        platform: "woocommerce",
        url: "https://woo-referrals.test",
        consumerKey: "ck_referrals",
        consumerSecret: "cs_referrals",
      },
      { allowPrivateUrls: true },
    );
  });

  function platformCustomers(found: { id: number; email: string }[]) {
    mock.use(
      http.get("https://woo-referrals.test/wp-json/wc/v3/customers", ({ request }) => {
        const email = new URL(request.url).searchParams.get("email");
        return HttpResponse.json(found.filter((customer) => customer.email === email));
      }),
    );
  }

  it("refuses an address the platform has as a customer, or as the referrer's own", async () => {
    platformCustomers([
      { id: 501, email: "shopper@example.com" },
      { id: 9, email: "me@example.com" },
    ]);
    await expectRefused(
      await refer(woo, 8, { email: "shopper@example.com" }),
      400,
      "referral-customer-already-exists",
    );
    await expectRefused(await refer(woo, 9, { email: "me@example.com" }), 400, "validation-failed");
    expect((await refer(woo, 8, { email: "newcomer@example.com" })).status).toBe(201);
  });

  it("falls back on its own customers when the platform fails, and says so in the log", async () => {
    mock.use(
      http.get("https://woo-referrals.test/wp-json/wc/v3/customers", () =>
        // A shop in debug mode echoes what it was sent: the credentials among it.
        HttpResponse.json(
          { message: "down", debug: "consumer_key=ck_referrals consumer_secret=cs_referrals" },
          { status: 503 },
        ),
      ),
    );
    expect((await refer(woo, 8, { email: "while-down@example.com" })).status).toBe(201);
    const logs = app.logs.join("");
    expect(logs).toContain("only the service's customers were checked");
    expect(logs).toContain('"httpStatus":503');
    // Measured, never quoted.
    expect(logs).not.toContain("cs_referrals");
  });

  it("answers the platform's failures when the referee asks for the code, then the code", async () => {
    platformCustomers([]);
    const created = await refer(woo, 8, { email: "later@example.com" });
    const { hash } = createReferralResponseSchema.parse(await created.json());
    mock.use(
      http.post("https://woo-referrals.test/wp-json/wc/v3/coupons", () =>
        HttpResponse.json({ code: "woocommerce_rest_cannot_create" }, { status: 401 }),
      ),
    );
    await expectRefused(
      await refereeCode({ referralHash: hash }),
      422,
      "platform-credentials-rejected",
    );
    mock.use(
      http.post("https://woo-referrals.test/wp-json/wc/v3/coupons", () => HttpResponse.error()),
    );
    await expectRefused(await refereeCode({ referralHash: hash }), 502, "platform-unavailable");
    const coupons: { code: string; email_restrictions: string[] }[] = [];
    mock.use(
      http.post("https://woo-referrals.test/wp-json/wc/v3/coupons", async ({ request }) => {
        const coupon = (await request.json()) as (typeof coupons)[number];
        coupons.push(coupon);
        return HttpResponse.json({ id: 3, code: coupon.code.toLowerCase() }, { status: 201 });
      }),
    );
    const response = await refereeCode({ referralHash: hash });
    expect(response.status).toBe(201);
    const { code } = refereeCodeResponseSchema.parse(await response.json());
    expect(coupons).toEqual([
      expect.objectContaining({ code, email_restrictions: ["later@example.com"] }),
    ]);
  });
});

describe("POST /reward/referral/get-referee-code", () => {
  let shop: Store;
  let hash: string;
  beforeAll(async () => {
    shop = await storeWithProgram("https://referee.example");
    await customerWithPoints(app.context.pool, shop.store.id, 1, 0, "referrer@example.com");
    const response = await refer(shop, 1, { email: "newbie@example.com" });
    hash = createReferralResponseSchema.parse(await response.json()).hash;
  });

  it("turns the hash into the referee's code, once: every request answers the same code", async () => {
    const before = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => refereeCode({ referralHash: hash })),
    );
    const bodies = await Promise.all(
      answers.map(async (response) => {
        expect(response.status).toBe(201);
        return refereeCodeResponseSchema.parse(await response.json());
      }),
    );
    const { code, voucher, expiresAt } = bodies[0] as (typeof bodies)[number];
    expect(new Set(bodies.map((body) => body.code))).toEqual(new Set([code]));
    expect(voucher).toEqual(PROGRAM.refereeVoucher);
    const expiry = Date.parse(expiresAt as string);
    expect(expiry).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000 + 1000);
    const again = refereeCodeResponseSchema.parse(
      await (await refereeCode({ referralHash: hash })).json(),
    );
    expect(again).toEqual(bodies[0]);
    // One code on the platform, for the invited address.
    const { rows } = await app.context.pool.query(
      `SELECT code, customer_email, kind, value FROM sandbox_discount_codes WHERE store_id = $1`,
      [shop.store.id],
    );
    expect(rows).toEqual([
      { code, customer_email: "newbie@example.com", kind: "fixed_amount", value: "10.00" },
    ]);
  });

  it("answers not-found to a hash that names no referral", async () => {
    await expectRefused(await refereeCode({ referralHash: "A".repeat(43) }), 404, "not-found");
  });

  it("refuses a body without a usable hash with validation-failed", async () => {
    for (const body of [{}, { referralHash: "" }, { referralHash: 42 }, { hash }]) {
      const problem = await expectRefused(await refereeCode(body), 400, "validation-failed");
      expect(problem.errors?.map((issue) => issue.pointer)).toEqual(["/referralHash"]);
    }
  });

  it("completes the referral with the referee's first order and credits the referrer's bonus", async () => {
    // The programme changes after the invitation left: the invitation's terms stand.
    await app.context.services.referrals.saveProgram(shop.store.id, {
      ...PROGRAM,
      referrerBonus: 999,
    });
    const order = (externalId: number) => ({
      externalId,
      customer: { externalId: 60, email: "NEWBIE@example.com" },
      currency: "EUR",
      lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 50 }],
    });
    app.setNow(BONUS_DAY);
    for (const id of [9001, 9002]) {
      const response = await fetch(`${app.baseUrl}/api/order/register`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: shop.authorization,
          ...LATEST,
        },
        body: JSON.stringify(order(id)),
      });
      expect(response.status).toBe(201);
    }
    await eventually(async () => {
      const { rows } = await app.context.pool.query(
        `SELECT 1 FROM orders WHERE store_id = $1 AND status = 'pending'`,
        [shop.store.id],
      );
      return rows.length === 0 ? true : undefined;
    });
    expect(await referralRows(shop.store.id)).toEqual([
      { email: "newbie@example.com", status: "completed" },
    ]);
    // The bonus follows in a job of its own, once.
    const rows = await eventually(async () => {
      const { rows: entries } = await app.context.pool.query(
        `SELECT t.kind, t.points, t.created_at FROM ledger_transactions t
         JOIN customers c ON c.id = t.customer_id
         WHERE c.store_id = $1 AND c.external_id = 1`,
        [shop.store.id],
      );
      return entries.length > 0 ? entries : undefined;
    });
    // Dated by the service's clock, as every earning (clubs and expiry count from it).
    expect(rows).toEqual([{ kind: "referral_bonus", points: 150, created_at: BONUS_DAY }]);
    await app.context.services.referrals.creditBonus(
      (
        await app.context.pool.query<{ id: number }>(
          `SELECT id FROM referrals WHERE store_id = $1`,
          [shop.store.id],
        )
      ).rows[0]?.id as number,
    );
    expect(await pointsOf(app.context.pool, shop.store.id, 1)).toEqual({
      balance: 150,
      ledger: 150,
      entries: 1,
    });
  });
});

describe("completion", () => {
  it("is not earned by a customer who had ordered before taking the invited address", async () => {
    const shop = await storeWithProgram("https://not-first.example");
    await customerWithPoints(app.context.pool, shop.store.id, 1, 0, "referrer@example.com");
    const register = (externalId: number, email: string) =>
      fetch(`${app.baseUrl}/api/order/register`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: shop.authorization,
          ...LATEST,
        },
        body: JSON.stringify({
          externalId,
          customer: { externalId: 70, email },
          currency: "EUR",
          lines: [{ lineId: 1, productId: 1, quantity: 1, unitPrice: 20 }],
        }),
      });
    const credited = () =>
      eventually(async () => {
        const { rows } = await app.context.pool.query(
          `SELECT 1 FROM orders WHERE store_id = $1 AND status = 'pending'`,
          [shop.store.id],
        );
        return rows.length === 0 ? true : undefined;
      });
    expect((await register(1, "old@example.com")).status).toBe(201);
    await credited();
    // Invited under another address, then orders under it: not a newcomer.
    expect((await refer(shop, 1, { email: "new-address@example.com" })).status).toBe(201);
    expect((await register(2, "new-address@example.com")).status).toBe(201);
    await credited();
    expect(await referralRows(shop.store.id)).toEqual([
      { email: "new-address@example.com", status: "pending" },
    ]);
  });
});

describe("an SMTP server that is down", () => {
  it("delays the invitation until it is back, through the job queue's retries", async () => {
    const port = await getPort();
    const down = await startTestApp({
      workers: true,
      env: { SMTP_URL: `smtp://127.0.0.1:${port}` },
    });
    try {
      const { stores, apiKeys, referrals } = down.context.services;
      const store = await stores.create({ domain: "https://smtp-down.example", name: "Down" });
      const { key } = await apiKeys.create(store.reference);
      await referrals.saveProgram(store.id, PROGRAM);
      const response = await fetch(
        `${down.baseUrl}/point/referral?${new URLSearchParams({
          externalId: "1",
          domain: store.domain,
          hash: hashFor(store.reference, key, 1),
        }).toString()}`,
        {
          method: "POST",
          headers: { "content-type": "application/json", ...LATEST },
          body: JSON.stringify({ email: "patient@example.com" }),
        },
      );
      // The referral does not wait for the mail.
      expect(response.status).toBe(201);
      await eventually(async () => {
        const { rows } = await down.context.pool.query(
          `SELECT attempts, last_error FROM graphile_worker.jobs
           WHERE task_identifier = 'send-referral-invitation'`,
        );
        return rows[0]?.attempts >= 1 && rows[0]?.last_error ? true : undefined;
      });
      const back = await startSmtpServer(port);
      try {
        const mail = await eventually(
          () => back.messages.find((message) => message.envelopeTo.includes("patient@example.com")),
          20_000,
        );
        expect(mail.subject).toBe("You are invited to Down");
        expect(back.messages).toHaveLength(1);
      } finally {
        await back.close();
      }
    } finally {
      await down.close();
    }
  }, 30_000);
});
