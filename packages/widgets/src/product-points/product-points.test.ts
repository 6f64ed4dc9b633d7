import { describe, expect, it } from "vitest";
import { delay } from "msw";
import {
  API,
  HttpResponse,
  http,
  requestsTo,
  serve,
  useApiMock,
} from "../../test/support/api-mock.js";
import { DOMAIN, productPointsResponse } from "../../test/support/fixtures.js";
import { expectAccessible, mount, part, textOf } from "../../test/support/dom.js";
import type { LoyaltyProductPoints } from "./product-points.js";
import "./product-points.js";

useApiMock();

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

const tag = (attributes = 'product="1001" categories="10,12" price="25.9"') =>
  `<loyalty-product-points api-base="${API}" domain="${DOMAIN}" ${attributes}></loyalty-product-points>`;

describe("<loyalty-product-points>", () => {
  it("shows the points the product earns, from the configuration's template", async () => {
    const element = await mount<LoyaltyProductPoints>(tag());

    expect(textOf(element)).toBe("Earn 25 points with this product");
    const [request] = requestsTo("/point/product-points/calculate");
    const query = new URL(request!.url).searchParams;
    expect(Object.fromEntries(query)).toEqual({
      domain: DOMAIN,
      product: "1001",
      categories: "10,12",
      price: "25.9",
    });
    // A simple CORS request: no custom header, so the browser sends no preflight.
    expect(request!.headers.get("revision")).toBeNull();
    expect(part(element, '[part="icon"]')).toBeTruthy();
    expect(getComputedStyle(part(element, "strong")).color).toBe("rgb(11, 110, 79)");
    await expectAccessible();
  });

  it("asks again once when the price changes several times in a row (a variant picker)", async () => {
    const element = await mount<LoyaltyProductPoints>(tag());
    // Each change renders on its own frame, as a customer clicking through variants makes them.
    for (const price of [30, 40, 55.5]) {
      element.price = price;
      await nextFrame();
    }
    // The previous points stay until the new ones arrive.
    expect(textOf(element)).toBe("Earn 25 points with this product");
    await expect.poll(() => textOf(element)).toBe("Earn 55 points with this product");
    const prices = requestsTo("/point/product-points/calculate").map((request) =>
      new URL(request.url).searchParams.get("price"),
    );
    expect(prices).toEqual(["25.9", "55.5"]);
  });

  it("waits for a price the theme sets while the first points load, asking once more", async () => {
    const container = document.createElement("div");
    container.innerHTML = tag();
    document.body.append(container);
    const element = container.firstElementChild as LoyaltyProductPoints;
    await nextFrame();
    element.price = 31;
    await nextFrame();
    element.price = 32;
    await expect.poll(() => textOf(element)).toBe("Earn 32 points with this product");
    const prices = requestsTo("/point/product-points/calculate").map((request) =>
      new URL(request.url).searchParams.get("price"),
    );
    expect(prices).toEqual(["25.9", "32"]);
  });

  it("follows a price attribute set by the theme's script", async () => {
    const element = await mount<LoyaltyProductPoints>(tag());
    element.setAttribute("price", "120");
    await expect.poll(() => textOf(element)).toBe("Earn 120 points with this product");
  });

  it("keeps one line reserved while loading, loaded and failed, so the page never moves", async () => {
    serve(
      http.get(`${API}/point/product-points/calculate`, async () => {
        await delay(300);
        return HttpResponse.json({ points: 7, type: "default", id: 1 });
      }),
    );
    const container = document.createElement("div");
    container.innerHTML = tag();
    document.body.append(container);
    const element = container.firstElementChild as LoyaltyProductPoints;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const loading = element.getBoundingClientRect().height;
    expect(part(element, '[part="base"]').getAttribute("aria-busy")).toBe("true");
    expect(part(element, ".skeleton")).toBeTruthy();
    await element.updateComplete;
    expect(textOf(element)).toContain("7");
    expect(element.getBoundingClientRect().height).toBe(loading);

    serve(http.get(`${API}/point/product-points/calculate`, () => HttpResponse.error()));
    const failed = await mount<LoyaltyProductPoints>(tag('product="9" price="3"'));
    expect(textOf(failed)).toBe("");
    expect(failed.getBoundingClientRect().height).toBe(loading);
  });

  it("shows nothing when the API is unreachable, an unknown store or a bad price, and never throws", async () => {
    serve(http.get(`${API}/store/widget/product-points`, () => HttpResponse.error()));
    const unreachable = await mount<LoyaltyProductPoints>(tag());
    expect(textOf(unreachable)).toBe("");
    const unknown = await mount<LoyaltyProductPoints>(
      `<loyalty-product-points api-base="${API}" domain="https://other.example" price="10"></loyalty-product-points>`,
    );
    expect(textOf(unknown)).toBe("");
    const noPrice = await mount<LoyaltyProductPoints>(tag('product="1"'));
    expect(textOf(noPrice)).toBe("");
    const asked = requestsTo("/point/product-points/calculate").map((request) =>
      new URL(request.url).searchParams.get("product"),
    );
    expect(asked).not.toContain("1");
  });

  it("hides a product that earns nothing when the configuration says so", async () => {
    serve(
      http.get(`${API}/point/product-points/calculate`, () =>
        HttpResponse.json({ points: 0, type: null, id: null }),
      ),
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(productPointsResponse({ hideWhenZero: true })),
      ),
    );
    const element = await mount<LoyaltyProductPoints>(tag());
    expect(textOf(element)).toBe("");
  });

  it("shows nothing when the merchant disabled it", async () => {
    serve(
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(productPointsResponse({ enabled: false })),
      ),
    );
    expect(textOf(await mount<LoyaltyProductPoints>(tag()))).toBe("");
  });

  it("shows no icon when the configuration says so", async () => {
    serve(
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(productPointsResponse({ showIcon: false })),
      ),
    );
    const plain = await mount<LoyaltyProductPoints>(tag('price="8"'));
    expect(textOf(plain)).toBe("Earn 8 points with this product");
    expect(plain.shadowRoot!.querySelector('[part="icon"]')).toBeNull();
  });

  it("writes numbers in the store's language, or the element's lang", async () => {
    serve(
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(
          productPointsResponse({ template: "Gagnez {points} points" }, { language: "fr" }),
        ),
      ),
    );
    const french = await mount<LoyaltyProductPoints>(tag('price="12345"'));
    // French groups digits with a narrow no-break space (textOf writes every space as " ").
    expect(french.shadowRoot!.querySelector("strong")!.textContent).toBe("12\u202f345");
    expect(textOf(french)).toBe("Gagnez 12 345 points");
    const english = await mount<LoyaltyProductPoints>(tag('price="12345" lang="en"'));
    expect(textOf(english)).toBe("Gagnez 12,345 points");
  });

  it("takes the merchant's CSS custom properties over the configuration's colours", async () => {
    const element = await mount<LoyaltyProductPoints>(
      tag('price="10" style="--loyalty-accent-color: rgb(200, 0, 0)"'),
    );
    expect(getComputedStyle(part(element, "strong")).color).toBe("rgb(200, 0, 0)");
  });

  it("falls back to the store's branding colour when the configuration has none", async () => {
    serve(
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(productPointsResponse({ accentColor: "" })),
      ),
    );
    const element = await mount<LoyaltyProductPoints>(tag('price="10"'));
    expect(getComputedStyle(part(element, "strong")).color).toBe("rgb(107, 63, 160)");
  });

  it("shares one request per resource between the widgets of a page", async () => {
    await Promise.all([
      mount(tag('price="10"')),
      mount(tag('price="10"')),
      mount(tag('price="10"')),
    ]);
    expect(requestsTo("/store/widget/product-points").length).toBeLessThanOrEqual(1);
    expect(requestsTo("/point/product-points/calculate").length).toBeLessThanOrEqual(1);
  });
});
