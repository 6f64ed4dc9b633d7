// Type-checked against the published declarations (CommonJS: a .cts file's imports are
// require calls, resolved with the "require" condition).
import * as sdk from "@loyalty/node-sdk";

const client = new sdk.LoyaltyClient({
  apiKey: "lk_test_key",
  storeReference: "st_test",
  domain: "https://shop.example",
  baseUrl: "https://loyalty.example.com",
  revision: "2026-06-18",
});
export const revision: "2026-06-18" = client.revision;
export const hash: string = sdk.customerHash(1001, { storeReference: "st_test", apiKey: "k" });
export const attributes: string = sdk.formatAttributes(client.widgetAttributes(1001));
export function reason(error: unknown): string | undefined {
  return error instanceof sdk.LoyaltyError ? error.reason : undefined;
}
// @ts-expect-error: unknown options are refused by the types too
new sdk.LoyaltyClient({ apiKey: "k", storeReference: "s", domain: "d", baseUrl: "b", retries: 1 });
