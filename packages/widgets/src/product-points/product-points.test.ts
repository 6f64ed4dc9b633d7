import { describe, expect, it } from "vitest";
import { delay } from "msw";
import { BATCH_LIMIT, calculatePoints, clearCache } from "../core/api.js";
import { MAX_BATCH_PRODUCTS } from "@loyalty/shared-types";
import {
  API,
  HttpResponse,
  batchItems,
  calculated,
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

/** A listing page: the tags appended at once, as a theme renders them; its product cards. */
function listing(tags: string[]): LoyaltyProductPoints[] {
  const container = document.createElement("div");
  container.innerHTML = tags.join("");
  document.body.append(container);
  return [...container.children] as LoyaltyProductPoints[];
}

/** Waits until every card shows its points. */
const allShown = (cards: LoyaltyProductPoints[]) =>
  expect.poll(() => cards.every((card) => textOf(card).startsWith("Earn"))).toBe(true);

const tag = (attributes = 'product="1001" categories="10,12" price="25.9"') =>
  `<loyalty-product-points api-base="${API}" domain="${DOMAIN}" ${attributes}></loyalty-product-points>`;

describe("<loyalty-product-points>", () => {
  it("shows the points the product earns, from the configuration's template", async () => {
    const element = await mount<LoyaltyProductPoints>(tag());

    expect(textOf(element)).toBe("Earn 25 points with this product");
    const [request] = requestsTo("/point/product-points/calculate-many");
    expect(new URL(request!.url).searchParams.get("items")).toBe("1001:25.9:10|12");
    expect(calculated()).toEqual([
      { domain: DOMAIN, product: "1001", categories: "10,12", price: "25.9" },
    ]);
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
    expect(calculated().map((query) => query["price"])).toEqual(["25.9", "55.5"]);
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
    expect(calculated().map((query) => query["price"])).toEqual(["25.9", "32"]);
  });

  it("follows a price attribute set by the theme's script", async () => {
    const element = await mount<LoyaltyProductPoints>(tag());
    element.setAttribute("price", "120");
    await expect.poll(() => textOf(element)).toBe("Earn 120 points with this product");
  });

  it("keeps one line reserved while loading, loaded and failed, so the page never moves", async () => {
    serve(
      http.get(`${API}/point/product-points/calculate-many`, async () => {
        await delay(300);
        return HttpResponse.json({
          items: [
            { product: 1001, price: 25.9, categories: [10, 12], points: 7, type: "default", id: 1 },
          ],
        });
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

    serve(http.get(`${API}/point/product-points/calculate-many`, () => HttpResponse.error()));
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
    expect(calculated().map((query) => query["product"])).not.toContain("1");
  });

  it("hides a product that earns nothing when the configuration says so", async () => {
    serve(
      http.get(`${API}/point/product-points/calculate-many`, ({ request }) =>
        HttpResponse.json({
          items: batchItems(request).map(() => ({
            product: 1001,
            price: 25.9,
            categories: [10, 12],
            points: 0,
            type: null,
            id: null,
          })),
        }),
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

  it("writes numbers in the language of its texts: the store's, or a translation's", async () => {
    serve(
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(
          productPointsResponse(
            {
              template: "Gagnez {points} points",
              translations: { en: { template: "Earn {points} points" } },
            },
            { language: "fr" },
          ),
        ),
      ),
    );
    const french = await mount<LoyaltyProductPoints>(tag('price="12345" lang="fr"'));
    // French groups digits with a narrow no-break space (textOf writes every space as " ").
    expect(french.shadowRoot!.querySelector("strong")!.textContent).toBe("12\u202f345");
    expect(textOf(french)).toBe("Gagnez 12 345 points");
    const english = await mount<LoyaltyProductPoints>(tag('price="12345" lang="en"'));
    expect(textOf(english)).toBe("Earn 12,345 points");
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
    expect(requestsTo("/point/product-points/calculate-many")).toHaveLength(1);
    expect(calculated()).toHaveLength(1);
  });

  it("asks the points of a collection page's 60 products in one request", async () => {
    const cards = listing(
      Array.from({ length: 60 }, (_, index) =>
        tag(`product="${2000 + index}" categories="${index % 3}" price="${index + 1}"`),
      ),
    );
    await allShown(cards);
    expect(textOf(cards[41]!)).toBe("Earn 42 points with this product");
    expect(requestsTo("/point/product-points/calculate-many")).toHaveLength(1);
    expect(requestsTo("/point/product-points/calculate")).toHaveLength(0);
    expect(calculated()).toHaveLength(60);
    expect(requestsTo("/store/widget/product-points")).toHaveLength(1);
  });

  it("splits a page of more products than a request takes, the server's limit", async () => {
    expect(BATCH_LIMIT).toBe(MAX_BATCH_PRODUCTS);
    await allShown(
      listing(
        Array.from({ length: BATCH_LIMIT + 5 }, (_, index) =>
          tag(`product="${index}" price="${index + 1}"`),
        ),
      ),
    );
    expect(
      requestsTo("/point/product-points/calculate-many").map(
        (request) => batchItems(request).length,
      ),
    ).toEqual([BATCH_LIMIT, 5]);
  });

  it("keeps a page's requests short enough for every proxy, whatever its ids", async () => {
    // Shopify-sized ids: 13-digit products in five 12-digit categories.
    const categories = Array.from({ length: 5 }, (_, index) => 100000000000 + index).join(",");
    await allShown(
      listing(
        Array.from({ length: 60 }, (_, index) =>
          tag(`product="${7000000000000 + index}" categories="${categories}" price="1234.56"`),
        ),
      ),
    );
    const sent = requestsTo("/point/product-points/calculate-many");
    expect(sent.length).toBeGreaterThan(1);
    for (const request of sent) expect(request.url.length).toBeLessThan(4_000);
    expect(calculated()).toHaveLength(60);
  });

  it("settles every product of an answer it cannot read, showing nothing rather than loading", async () => {
    serve(http.get(`${API}/point/product-points/calculate-many`, () => HttpResponse.json({})));
    const element = await mount<LoyaltyProductPoints>(tag());
    expect(textOf(element)).toBe("");
    expect(part(element, '[part="base"]').getAttribute("aria-busy")).toBe("false");
  });

  it("answers a product asked again after the cache was cleared, while the first ask waits", async () => {
    const endpoint = { apiBase: API, domain: DOMAIN };
    const first = calculatePoints(endpoint, { product: "5", price: 12 });
    clearCache();
    const second = calculatePoints(endpoint, { product: "5", price: 12 });
    const answers = await Promise.all([first, second]);
    expect(answers.map((answer) => answer.points)).toEqual([12, 12]);
    expect(calculated()).toHaveLength(1);
  });

  it("leaves a product it cannot ask about out of its page's request, the others shown", async () => {
    const cards = listing([
      tag('product="1" price="10"'),
      tag('product="abc" price="10"'),
      tag('product="2" categories="1,x" price="10"'),
      tag('product="3" price="0.5"'),
      // Sixteen digits, past the safe integers the server takes.
      tag('product="9007199254740993" price="10"'),
      tag('product="4" price="20"'),
    ]);
    await expect.poll(() => textOf(cards[5]!)).toBe("Earn 20 points with this product");
    expect(cards.map((card) => textOf(card))).toEqual([
      "Earn 10 points with this product",
      "",
      "",
      "",
      "",
      "Earn 20 points with this product",
    ]);
    expect(calculated().map((query) => query["product"])).toEqual(["1", "4"]);
  });
});
