/**
 * What a store does before its pages show the widgets, run in Node against the end-to-end
 * server (see commands.ts): the operator loads the demo store for the page's origin with the
 * CLI and creates the merchant's back-office login; the merchant adds French texts to the
 * widget configurations through the admin API; the store's server, with the SDK, registers a
 * paid order for each customer, waits for their points, and renders the widget attributes.
 * Prints them as JSON.
 */
import { API_REVISION, LoyaltyClient } from "@loyalty/node-sdk";
import { runSourceToEnd } from "./global-setup.js";

const origin = process.argv[2] as string;
const apiBase = process.env["LOYALTY_API_BASE"] as string;
const cli = async <T>(...args: string[]) =>
  JSON.parse(await runSourceToEnd("packages/server/src/cli.ts", [...args, "--json"], {})) as T;

const demo = await cli<{ store: { reference: string; domain: string }; key: { key: string } }>(
  "demo",
  "--domain",
  origin,
);

/** Each case spends its own customer's points: a claim in one leaves the others' balances. */
const ORDERS = [
  // The cart's customer.
  { customer: 42, order: 9001, paid: 640 },
  // The launcher's.
  { customer: 43, order: 9002, paid: 700 },
  // The French page's: a balance with a thousands separator.
  { customer: 44, order: 9003, paid: 1_500 },
];

/** The store is in English; the merchant writes the widgets' texts in French as well. */
const FRENCH = {
  "product-points": { template: "Gagnez {points} points avec ce produit" },
  cart: {
    title: "Vos points fidélité",
    earnTemplate: "Ce panier vous rapporte {points} points",
    signedOutText: "Connectez-vous pour utiliser vos points",
  },
  "program-presentation": { sections: { history: { title: "Vos points" } } },
  launcher: { label: "Récompenses", title: "Le Club du café" },
};

/** A back-office request: JSON in and out, with the admin's token once they have one. */
async function admin<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const response = await fetch(`${apiBase}${path}`, {
    method,
    headers: {
      revision: API_REVISION,
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The merchant, in the back-office: each configuration read, then saved with its French texts. */
async function translateWidgets(): Promise<void> {
  const email = "merchant@example.com";
  const { password } = await cli<{ password: string }>(
    "admin",
    "create",
    "--email",
    email,
    "--store",
    demo.store.reference,
  );
  const { accessToken, storeId } = await admin<{ accessToken: string; storeId: number }>(
    "POST",
    "/admin/token",
    { email, password },
  );
  await Promise.all(
    Object.entries(FRENCH).map(async ([kind, fr]) => {
      const path = `/admin/stores/${storeId}/widgets/${kind}`;
      const { config } = await admin<{ config: object }>("GET", path, undefined, accessToken);
      await admin("PUT", path, { ...config, translations: { fr } }, accessToken);
    }),
  );
}

const loyalty = new LoyaltyClient({
  apiKey: demo.key.key,
  storeReference: demo.store.reference,
  domain: demo.store.domain,
  baseUrl: apiBase,
});

async function payOrder({ customer, order, paid }: (typeof ORDERS)[number]) {
  await loyalty.orders.register({
    externalId: order,
    externalReference: `#${order}`,
    customer: { externalId: customer, email: `customer-${customer}@example.com` },
    currency: "EUR",
    orderedAt: new Date().toISOString(),
    lines: [
      {
        lineId: "1",
        productId: 2001,
        categoryIds: [],
        quantity: 1,
        unitPrice: paid,
        totalPaid: paid,
      },
    ],
  });
  for (let attempt = 0; ; attempt++) {
    const { balance } = await loyalty.customers.history(customer);
    if (balance > 0) return [customer, { attributes: loyalty.widgetAttributes(customer), balance }];
    if (attempt > 200) throw new Error(`the points of order ${order} were never credited`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const [customers] = await Promise.all([
  Promise.all(ORDERS.map(payOrder)).then(Object.fromEntries),
  translateWidgets(),
]);
process.stdout.write(JSON.stringify({ visitor: loyalty.widgetAttributes(), customers }));
