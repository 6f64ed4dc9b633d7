// Imports the package as published (ESM) and drives it against a local HTTP server.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import {
  API_REVISION,
  LoyaltyClient,
  LoyaltyError,
  LoyaltyValidationError,
  customerHash,
  webhooks,
} from "@loyalty/node-sdk";

const seen = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    if (req.url === "/api/order/register") {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          externalId: 5001,
          externalReference: null,
          status: "pending",
          receivedAt: "2026-09-14T09:30:00.000Z",
        }),
      );
      return;
    }
    res.writeHead(400, { "content-type": "application/problem+json", "x-request-id": "req-1" });
    res.end(
      JSON.stringify({
        type: "https://problems.example/validation-failed",
        title: "Validation failed",
        status: 400,
        detail: "price must be at least 1",
        instance: "/point/product-points/calculate",
        errors: [{ location: "query", pointer: "/price", message: "too small", code: "too_small" }],
      }),
    );
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();

try {
  const client = new LoyaltyClient({
    apiKey: "lk_test_key",
    storeReference: "st_test",
    domain: "https://shop.example",
    baseUrl: `http://127.0.0.1:${port}`,
  });
  assert.equal(API_REVISION, "2026-08-26");
  assert.throws(() => new LoyaltyClient({ apikey: "x" }), /unknown option "apikey"/);

  const registered = await client.orders.register({
    externalId: 5001,
    customer: { externalId: 1001 },
    currency: "EUR",
    lines: [{ lineId: 1, productId: 301, quantity: 1, unitPrice: 10 }],
  });
  assert.equal(registered.status, "pending");
  const [request] = seen;
  assert.equal(request.headers.revision, API_REVISION);
  assert.equal(
    request.headers.authorization,
    `Basic ${Buffer.from("lk_test_key:").toString("base64")}`,
  );
  assert.match(request.headers["idempotency-key"], /^[0-9a-f-]{36}$/);

  const error = await client.products.calculatePoints({ price: 0 }).catch((e) => e);
  assert.ok(error instanceof LoyaltyValidationError && error instanceof LoyaltyError);
  assert.equal(error.reason, "validation-failed");
  assert.equal(error.requestId, "req-1");
  assert.equal(error.issues[0].pointer, "/price");

  const expected = createHmac("sha512", "st_test:lk_test_key").update("1001").digest("hex");
  assert.equal(customerHash(1001, { storeReference: "st_test", apiKey: "lk_test_key" }), expected);
  assert.equal(client.widgetAttributes(1001)["customer-hash"], expected);

  const body = JSON.stringify({
    id: "evt_1",
    type: "POINTS_EARNED",
    createdAt: "2026-09-14T09:30:00.000Z",
    data: {},
  });
  const header = webhooks.sign(body, "whsec_test");
  assert.equal(webhooks.verify(Buffer.from(body), header, "whsec_test").id, "evt_1");

  process.stdout.write(`esm: ok on Node ${process.version}\n`);
} finally {
  server.close();
}
