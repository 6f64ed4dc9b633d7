/**
 * What a store does before its pages show the widgets, run in Node against the end-to-end
 * server (see commands.ts): the operator loads the demo store for the page's origin with the
 * CLI, then the store's server, with the SDK, registers a paid order for customer 42, waits for
 * its points, and renders the widget attributes. Prints them as JSON.
 */
import { LoyaltyClient } from "@loyalty/node-sdk";
import { runSourceToEnd } from "./global-setup.js";

const origin = process.argv[2] as string;
const apiBase = process.env["LOYALTY_API_BASE"] as string;
const demo = JSON.parse(
  await runSourceToEnd("packages/server/src/cli.ts", ["demo", "--domain", origin, "--json"], {}),
) as { store: { reference: string; domain: string }; key: { key: string } };

const loyalty = new LoyaltyClient({
  apiKey: demo.key.key,
  storeReference: demo.store.reference,
  domain: demo.store.domain,
  baseUrl: apiBase,
});
await loyalty.orders.register({
  externalId: 9001,
  externalReference: "#9001",
  customer: { externalId: 42, email: "camille@example.com" },
  currency: "EUR",
  orderedAt: new Date().toISOString(),
  lines: [
    { lineId: "1", productId: 2001, categoryIds: [], quantity: 1, unitPrice: 640, totalPaid: 640 },
  ],
});
for (let attempt = 0; ; attempt++) {
  const { balance } = await loyalty.customers.history(42);
  if (balance > 0) {
    process.stdout.write(JSON.stringify({ attributes: loyalty.widgetAttributes(42), balance }));
    break;
  }
  if (attempt > 200) throw new Error("the order's points were never credited");
  await new Promise((resolve) => setTimeout(resolve, 50));
}
