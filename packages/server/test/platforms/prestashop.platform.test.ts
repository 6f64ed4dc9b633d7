import { Outbound } from "../../src/net/outbound.js";
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type DiscountCodeRequest,
  PlatformError,
} from "../../src/modules/platforms/platform.types.js";
import { PrestaShopPlatform } from "../../src/modules/platforms/prestashop.platform.js";

/** As the server builds it: private addresses refused (msw answers before any connection). */
const outbound = new Outbound();

const SHOP = "https://presta.example";
const KEY = "ZR92FNY5UFRERNI3O9Z5QDHWKTP3YIIT";
const BASIC_CREDENTIALS = Buffer.from(`${KEY}:`).toString("base64");

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function prestashop(timeoutMs = 5_000) {
  return new PrestaShopPlatform(
    { platform: "prestashop", url: SHOP, webserviceKey: KEY, languageId: 2, currencyId: 3 },
    { timeoutMs, outbound },
  );
}

interface Received {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  contentType: string | null;
  body: string;
}

async function receive(request: Request): Promise<Received> {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    authorization: request.headers.get("authorization"),
    contentType: request.headers.get("content-type"),
    body: await request.text(),
  };
}

/** A shop holding `codes`; answers lookups the way the webservice does and records requests. */
function shop(codes: string[] = []): Received[] {
  const received: Received[] = [];
  server.use(
    http.get(`${SHOP}/api/cart_rules`, async ({ request }) => {
      const asked = await receive(request);
      received.push(asked);
      const code = /^\[(.*)\]$/.exec(asked.query["filter[code]"] ?? "")?.[1];
      const matches = codes.filter((held) => held === code);
      return HttpResponse.json(
        matches.length === 0 ? [] : { cart_rules: matches.map((held) => ({ id: 7, code: held })) },
      );
    }),
    http.post(`${SHOP}/api/cart_rules`, async ({ request }) => {
      received.push(await receive(request));
      return HttpResponse.json({ cart_rule: { id: 8 } }, { status: 201 });
    }),
  );
  return received;
}

const request = (overrides: Partial<DiscountCodeRequest> = {}): DiscountCodeRequest => ({
  code: "K7QX-M3RT-9WHZ",
  title: "Loyalty reward: 10% off",
  terms: {
    kind: "percentage",
    value: 10,
    currency: null,
    minimumOrderAmount: null,
    validityDays: 30,
  },
  customer: { externalId: 42, email: "ana@example.com" },
  startsAt: new Date("2026-11-22T10:15:00.000Z"),
  expiresAt: new Date("2026-12-22T10:15:00.000Z"),
  ...overrides,
});

/** The cart_rule a POST carried: its fields' text, and the name of each language. */
function cartRuleOf(body: string) {
  const root = parseXml(body);
  expect(root.name).toBe("prestashop");
  expect(root.children.map((child) => child.name)).toEqual(["cart_rule"]);
  const fields: Record<string, string> = {};
  const names: Record<string, string> = {};
  for (const field of root.children[0]!.children) {
    if (field.name === "name") {
      for (const language of field.children) names[language.attributes["id"]!] = language.text;
    } else {
      expect(field.children).toEqual([]);
      fields[field.name] = field.text;
    }
  }
  return { fields, names };
}

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * A strict reader of the XML subset a cart rule needs (elements, attributes, text, the five
 * entities): it throws on what a real parser refuses, such as a bare `&` or `<` in text.
 */
function parseXml(source: string): XmlElement {
  let at = /^<\?xml [^?]*\?>\s*/.exec(source)?.[0].length ?? 0;
  const decode = (text: string) =>
    text.replace(/&([a-z]+);|&/g, (entity, name: string | undefined) => {
      const decoded = name && { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[name];
      if (!decoded) throw new Error(`bad entity at ${at}: ${source.slice(at, at + 20)}`);
      return decoded;
    });
  const element = (): XmlElement => {
    const open = /^<([\w.-]+)((?:\s+[\w.-]+="[^"<&]*")*)\s*(\/?)>/.exec(source.slice(at));
    if (!open) throw new Error(`expected an element at ${at}: ${source.slice(at, at + 20)}`);
    at += open[0].length;
    const node: XmlElement = {
      name: open[1]!,
      attributes: Object.fromEntries(
        [...open[2]!.matchAll(/([\w.-]+)="([^"]*)"/g)].map((match) => [match[1], match[2]]),
      ),
      children: [],
      text: "",
    };
    if (open[3]) return node;
    const close = `</${node.name}>`;
    while (!source.startsWith(close, at)) {
      if (at >= source.length) throw new Error(`${node.name} is never closed`);
      if (source.startsWith("<", at)) {
        node.children.push(element());
      } else {
        const text = /^[^<]+/.exec(source.slice(at))![0];
        at += text.length;
        node.text += decode(text);
      }
    }
    at += close.length;
    if (node.children.length > 0) node.text = node.text.trim();
    return node;
  };
  const root = element();
  if (source.slice(at).trim() !== "") throw new Error("content after the root element");
  return root;
}

/** The PlatformError a call failed with, checked never to reveal the webservice key. */
async function failure(call: Promise<unknown>): Promise<PlatformError> {
  const error = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(PlatformError);
  const message = (error as PlatformError).message;
  expect(message).not.toContain(KEY);
  expect(message).not.toContain(BASIC_CREDENTIALS);
  return error as PlatformError;
}

describe("createDiscountCode", () => {
  it("looks the code up, then posts a percentage cart rule bound to the customer", async () => {
    const received = shop();
    await prestashop().createDiscountCode(request());

    expect(received.map(({ method, path }) => `${method} ${path}`)).toEqual([
      "GET /api/cart_rules",
      "POST /api/cart_rules",
    ]);
    const [lookup, creation] = received as [Received, Received];
    expect(lookup.query).toEqual({
      "filter[code]": "[K7QX-M3RT-9WHZ]",
      display: "[id,code]",
      output_format: "JSON",
    });
    expect(creation.query).toEqual({ output_format: "JSON" });
    for (const asked of received) expect(asked.authorization).toBe(`Basic ${BASIC_CREDENTIALS}`);
    expect(creation.contentType).toMatch(/^application\/xml/);

    const { fields, names } = cartRuleOf(creation.body);
    expect(names).toEqual({ "2": "Loyalty reward: 10% off" });
    expect(fields).toEqual({
      id_customer: "42",
      // A day early: the shop reads the date in its own timezone, wherever that is.
      date_from: "2026-11-21 10:15:00",
      date_to: "2026-12-22 10:15:00",
      description: "Loyalty programme, for ana@example.com",
      quantity: "1",
      quantity_per_user: "1",
      priority: "1",
      partial_use: "0",
      code: "K7QX-M3RT-9WHZ",
      free_shipping: "0",
      reduction_percent: "10",
      highlight: "0",
      active: "1",
    });
  });

  it("posts a fixed amount with a minimum order, for anyone, without expiry", async () => {
    const received = shop();
    await prestashop().createDiscountCode(
      request({
        title: "Referral gift: €5 off",
        terms: {
          kind: "fixed_amount",
          value: 5,
          currency: "EUR",
          minimumOrderAmount: 49.9,
          validityDays: null,
        },
        customer: { externalId: null, email: null },
        expiresAt: null,
      }),
    );

    const { fields, names } = cartRuleOf(received[1]!.body);
    expect(names).toEqual({ "2": "Referral gift: €5 off" });
    expect(fields).toMatchObject({
      id_customer: "0",
      date_to: "2099-12-31 23:59:59",
      description: "Loyalty programme",
      free_shipping: "0",
      reduction_amount: "5",
      reduction_tax: "1",
      reduction_currency: "3",
      minimum_amount: "49.9",
      minimum_amount_tax: "1",
      minimum_amount_shipping: "0",
      minimum_amount_currency: "3",
    });
    expect(fields).not.toHaveProperty("reduction_percent");
  });

  it("posts free shipping without any reduction", async () => {
    const received = shop();
    await prestashop().createDiscountCode(
      request({
        terms: {
          kind: "free_shipping",
          value: null,
          currency: null,
          minimumOrderAmount: null,
          validityDays: 7,
        },
      }),
    );

    const { fields } = cartRuleOf(received[1]!.body);
    expect(fields).toMatchObject({ free_shipping: "1", id_customer: "42" });
    for (const absent of [
      "reduction_percent",
      "reduction_amount",
      "reduction_currency",
      "minimum_amount",
    ]) {
      expect(fields).not.toHaveProperty(absent);
    }
  });

  it("escapes the title as XML text", async () => {
    const received = shop();
    const title = `Tom & Jerry's <b>"€5"</b> off`;
    await prestashop().createDiscountCode(request({ title }));

    expect(received[1]!.body).toContain("Tom &amp; Jerry&apos;s &lt;b&gt;&quot;€5&quot;&lt;/b&gt;");
    expect(cartRuleOf(received[1]!.body).names).toEqual({ "2": title });
  });

  it("sends amounts PHP's isFloat accepts, without binary noise", async () => {
    const received = shop();
    await prestashop().createDiscountCode(
      request({
        terms: {
          kind: "fixed_amount",
          value: 0.1 + 0.2,
          currency: "EUR",
          minimumOrderAmount: null,
          validityDays: null,
        },
      }),
    );

    expect(cartRuleOf(received[1]!.body).fields["reduction_amount"]).toBe("0.3");
  });

  it("does not create a code the shop already has (a retry after a lost answer)", async () => {
    const received = shop(["K7QX-M3RT-9WHZ"]);
    await prestashop().createDiscountCode(request());

    expect(received.map(({ method }) => method)).toEqual(["GET"]);
  });

  it("rejects with the shop's validation error when the creation is refused", async () => {
    server.use(
      http.get(`${SHOP}/api/cart_rules`, () => HttpResponse.json([])),
      http.post(`${SHOP}/api/cart_rules`, () =>
        HttpResponse.json(
          {
            errors: [
              { code: 84, message: 'Validation error: "Property CartRule->name is empty."' },
            ],
          },
          { status: 400 },
        ),
      ),
    );

    const error = await failure(prestashop().createDiscountCode(request()));
    expect(error.reason).toBe("platform-request-rejected");
    expect(error.message).toContain("Property CartRule->name is empty");
  });

  it("does not take a 200 to the POST for a creation", async () => {
    server.use(
      http.get(`${SHOP}/api/cart_rules`, () => HttpResponse.json([])),
      http.post(`${SHOP}/api/cart_rules`, () => HttpResponse.json({ api: {} })),
    );

    const error = await failure(prestashop().createDiscountCode(request()));
    expect(error.reason).toBe("platform-unavailable");
  });
});

describe("discountCodeExists", () => {
  it("is true when the shop lists the code", async () => {
    shop(["K7QX-M3RT-9WHZ"]);
    expect(await prestashop().discountCodeExists("K7QX-M3RT-9WHZ")).toBe(true);
  });

  it("is false on an empty array, PrestaShop's answer when nothing matches", async () => {
    shop(["AAAA-BBBB-CCCC"]);
    expect(await prestashop().discountCodeExists("K7QX-M3RT-9WHZ")).toBe(false);
  });

  it("is false on an empty cart_rules list", async () => {
    server.use(http.get(`${SHOP}/api/cart_rules`, () => HttpResponse.json({ cart_rules: [] })));
    expect(await prestashop().discountCodeExists("K7QX-M3RT-9WHZ")).toBe(false);
  });

  it("does not count another code the filter let through", async () => {
    server.use(
      http.get(`${SHOP}/api/cart_rules`, () =>
        HttpResponse.json({ cart_rules: [{ id: 3, code: "AAAA-BBBB-CCCC" }] }),
      ),
    );
    expect(await prestashop().discountCodeExists("K7QX-M3RT-9WHZ")).toBe(false);
  });
});

describe("findCustomerByEmail", () => {
  it("finds the customer by a URL-encoded email filter", async () => {
    const received: Received[] = [];
    server.use(
      http.get(`${SHOP}/api/customers`, async ({ request }) => {
        received.push(await receive(request));
        return HttpResponse.json({ customers: [{ id: 12, email: "Ana+Loyalty@Example.com" }] });
      }),
    );

    expect(await prestashop().findCustomerByEmail("ana+loyalty@example.com")).toEqual({
      id: "12",
    });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      method: "GET",
      authorization: `Basic ${BASIC_CREDENTIALS}`,
      // A `+` left as is would reach PHP as a space.
      query: {
        "filter[email]": "[ana+loyalty@example.com]",
        display: "[id,email]",
        output_format: "JSON",
      },
    });
  });

  it("is null when no customer has the email", async () => {
    server.use(http.get(`${SHOP}/api/customers`, () => HttpResponse.json([])));
    expect(await prestashop().findCustomerByEmail("nobody@example.com")).toBeNull();
  });
});

describe("failures", () => {
  const xml = (code: number, message: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<prestashop xmlns:xlink="http://www.w3.org/1999/xlink">\n<errors>\n<error>\n<code><![CDATA[${code}]]></code>\n<message><![CDATA[${message}]]></message>\n</error>\n</errors>\n</prestashop>\n`;
  const cases: [string, () => Response, string][] = [
    [
      "401 for a bad key",
      () =>
        HttpResponse.json(
          { errors: [{ code: 20, message: "Authentification key is not active" }] },
          { status: 401 },
        ),
      "platform-credentials-rejected",
    ],
    [
      "401 for a resource the key may not use",
      () =>
        new HttpResponse(xml(26, 'Resource of type "cart_rules" is not allowed'), {
          status: 401,
          headers: { "Content-Type": "text/xml;charset=utf-8" },
        }),
      "platform-credentials-rejected",
    ],
    [
      "405 for a method the key may not use",
      () =>
        HttpResponse.json(
          {
            errors: [
              { code: 25, message: "Method GET is not allowed for the resource cart_rules" },
            ],
          },
          { status: 405 },
        ),
      "platform-credentials-rejected",
    ],
    [
      "404 for a shop without the webservice route",
      () => HttpResponse.html("<h1>Not Found</h1>", { status: 404 }),
      "platform-resource-not-found",
    ],
    [
      "400 with a PrestaShop error body",
      () =>
        HttpResponse.json(
          { errors: [{ code: 32, message: "This filter does not exist" }] },
          { status: 400 },
        ),
      "platform-request-rejected",
    ],
    ["429", () => HttpResponse.text("Too Many Requests", { status: 429 }), "platform-unavailable"],
    [
      "500 with an XML error",
      () =>
        new HttpResponse(xml(46, "Unable to save resource"), {
          status: 500,
          headers: { "Content-Type": "text/xml;charset=utf-8" },
        }),
      "platform-unavailable",
    ],
    [
      "503 while the webservice is disabled",
      () =>
        HttpResponse.json(
          { errors: [{ code: 22, message: "The PrestaShop webservice is disabled." }] },
          { status: 503 },
        ),
      "platform-unavailable",
    ],
    ["a network error", () => HttpResponse.error(), "platform-unavailable"],
    [
      "a 200 that is no webservice list",
      () => HttpResponse.html("<html>Maintenance</html>"),
      "platform-unavailable",
    ],
  ];

  it.each(cases)("maps %s", async (_, answer, reason) => {
    server.use(http.get(`${SHOP}/api/cart_rules`, answer));
    const error = await failure(prestashop().discountCodeExists("K7QX-M3RT-9WHZ"));
    expect(error.reason).toBe(reason);
  });

  it.each(cases)("maps %s on the customer lookup", async (_, answer, reason) => {
    server.use(http.get(`${SHOP}/api/customers`, answer));
    const error = await failure(prestashop().findCustomerByEmail("ana@example.com"));
    expect(error.reason).toBe(reason);
  });

  it("gives up after the timeout, as platform-unavailable", async () => {
    server.use(
      http.get(`${SHOP}/api/cart_rules`, async () => {
        await delay(10_000);
        return HttpResponse.json([]);
      }),
    );

    const started = performance.now();
    const error = await failure(prestashop(150).createDiscountCode(request()));
    const elapsed = performance.now() - started;
    expect(error.reason).toBe("platform-unavailable");
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1_000);
  });

  it("keeps the key out of a message even when the shop prints it back", async () => {
    server.use(
      http.get(`${SHOP}/api/cart_rules`, () =>
        HttpResponse.text(
          `Fatal error: WebserviceRequest->fetch('${KEY}', 'GET', 'cart_rules') Authorization: Basic ${BASIC_CREDENTIALS}`,
          { status: 500 },
        ),
      ),
    );

    const error = await failure(prestashop().discountCodeExists("K7QX-M3RT-9WHZ"));
    expect(error.reason).toBe("platform-unavailable");
    expect(error.message).toContain("WebserviceRequest->fetch('[webservice key]'");
  });
});
