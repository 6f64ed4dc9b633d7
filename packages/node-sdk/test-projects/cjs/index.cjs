// Imports the package as published (CommonJS).
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS project: require is the point */
const assert = require("node:assert/strict");
const { createHmac } = require("node:crypto");
const sdk = require("@loyalty/node-sdk");

const { API_REVISION, LoyaltyClient, LoyaltyError, LoyaltySignatureError, webhooks } = sdk;

assert.equal(API_REVISION, "2026-08-26");
assert.deepEqual(sdk.API_REVISIONS, ["2026-01-01", "2026-06-18", "2026-08-26"]);
const client = new LoyaltyClient({
  apiKey: "lk_test_key",
  storeReference: "st_test",
  domain: "https://shop.example",
  baseUrl: "https://loyalty.example.com/",
  revision: "2026-01-01",
});
assert.equal(client.revision, "2026-01-01");
assert.equal(client.baseUrl, "https://loyalty.example.com");
assert.equal(
  client.customerHash("1001"),
  createHmac("sha512", "st_test:lk_test_key").update("1001").digest("hex"),
);
assert.throws(() => new LoyaltyClient({ apiKey: "x", timeOut: 1 }), /did you mean "timeout"/);
assert.throws(
  () => webhooks.verify("{}", "t=1,v1=" + "0".repeat(64), "whsec_test"),
  (error) => error instanceof LoyaltySignatureError && error instanceof LoyaltyError,
);

process.stdout.write(`cjs: ok on Node ${process.version}\n`);
