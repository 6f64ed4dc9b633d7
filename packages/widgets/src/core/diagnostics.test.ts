import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { API, HttpResponse, http, serve, useApiMock } from "../../test/support/api-mock.js";
import { CUSTOMER, DOMAIN, cartResponse, rewards } from "../../test/support/fixtures.js";
import { mount, textOf } from "../../test/support/dom.js";
import "../index.js";

useApiMock();

let warn: MockInstance<typeof console.warn>;
beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

const warnings = () => warn.mock.calls.map(([message]) => String(message));

describe("console diagnostics for the merchant, once per page", () => {
  it("names an undeclared domain, however many widgets met it", async () => {
    const unknown = "https://undeclared.example";
    serve(
      http.get(`${API}/store/widget/:kind`, () =>
        HttpResponse.json({ statusCode: 404, error: "Not Found", message: "x" }, { status: 404 }),
      ),
      http.get(`${API}/point/product-points/calculate-many`, () =>
        HttpResponse.json({ statusCode: 404, error: "Not Found", message: "x" }, { status: 404 }),
      ),
    );
    const tag = (price: number) =>
      `<loyalty-product-points api-base="${API}" domain="${unknown}" price="${price}"></loyalty-product-points>`;
    const widgets = await Promise.all([mount(tag(1)), mount(tag(2)), mount(tag(3))]);
    expect(widgets.map((widget) => textOf(widget))).toEqual(["", "", ""]);
    await expect.poll(warnings).toHaveLength(1);
    expect(warnings()[0]).toBe(
      `Loyalty widgets: the loyalty server at ${API} has no store with the domain "${unknown}". Declare it in the back-office, or correct data-domain (the store's origin, as https://shop.example).`,
    );
  });

  it("says that customer operations answer the store's own pages only, on another origin", async () => {
    // This test page is on localhost, not the store's domain.
    expect(location.origin).not.toBe(DOMAIN);
    await mount(
      `<loyalty-cart-widget api-base="${API}" domain="${DOMAIN}" customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}" items="[]"></loyalty-cart-widget>`,
    );
    await mount(
      `<loyalty-program-presentation api-base="${API}" domain="${DOMAIN}" customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}"></loyalty-program-presentation>`,
    );
    expect(warnings()).toEqual([
      `Loyalty widgets: this page's origin (${location.origin}) is not the store's domain (${DOMAIN}): the loyalty server answers a customer's points, claims and referrals to the store's own pages only.`,
    ]);
  });

  it("says that a customer hash does not match, and how to compute it", async () => {
    const store = location.origin;
    serve(
      http.get(`${API}/store/widget/cart`, () => HttpResponse.json(cartResponse())),
      http.get(`${API}/reward/list`, () => HttpResponse.json(rewards)),
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(
          { statusCode: 401, error: "Unauthorized", message: "Invalid hash" },
          { status: 401 },
        ),
      ),
    );
    // The store's own page (no origin warning); the history refuses the hash (the mock's 401).
    const element = await mount(
      `<loyalty-cart-widget api-base="${API}" domain="${store}" customer-id="7" customer-hash="${"ef".repeat(64)}" items="[]"></loyalty-cart-widget>`,
    );
    expect(element).toBeTruthy();
    await expect
      .poll(() => warnings().filter((message) => message.includes("customer hash")))
      .toEqual([
        `Loyalty widgets: the customer hash of customer 7 does not match. Compute it on the store's server as the hex HMAC-SHA512 of the customer id, keyed with "<store reference>:<API key>" (the Node SDK's customerHash), for the customer signed in.`,
      ]);
    // Neither the origin nor the domain is wrong here.
    expect(warnings()).toHaveLength(1);
  });
});
