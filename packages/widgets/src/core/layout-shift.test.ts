import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { page, userEvent } from "vitest/browser";
import { delay } from "msw";
import type { CustomerHistoryResponseV2, Reward } from "@loyalty/shared-types";
import { API, HttpResponse, http, serve, useApiMock } from "../../test/support/api-mock.js";
import {
  CUSTOMER,
  DOMAIN,
  history,
  presentationResponse,
  rewards,
} from "../../test/support/fixtures.js";
import { expectAccessible, part, textOf } from "../../test/support/dom.js";
import "../product-points/product-points.js";
import "../cart-widget/cart-widget.js";
import "../program-presentation/program-presentation.js";
import "../launcher/launcher.js";

/**
 * Cumulative Layout Shift of each widget in a store's page, as a visitor and as a signed-in
 * customer, at a desktop size and on a phone: the whole load, from the first frame until the
 * widget shows its data and every image is loaded, must stay under 0.1 (Core Web Vitals' "good").
 */
useApiMock();

type LayoutShift = PerformanceEntry & { value: number; hadRecentInput: boolean };
type Transaction = CustomerHistoryResponseV2["transactions"][number];
type Widget = HTMLElement & { updateComplete: Promise<boolean> };

const GOOD_CLS = 0.1;
const VIEWPORTS = { desktop: [1280, 800], phone: [375, 667] } as const;
const IDENTIFIED = `customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}"`;
const WIDGETS = "loyalty-product-points, loyalty-cart-widget, loyalty-program-presentation";
const attributes = `api-base="${API}" domain="${DOMAIN}"`;

/** What a storefront's answers take: the configuration is cached, a customer's history is not. */
const LATENCY_MS: [RegExp, number][] = [
  [/\/store\/widget\//, 250],
  [/\/point\/product-points\/calculate-many/, 350],
  [/\/reward\/list/, 400],
  [/\/point\/user-history\//, 600],
  [/\/reward\/codes\//, 600],
];
const latency = http.all(`${API}/*`, async ({ request }) => {
  const path = new URL(request.url).pathname;
  await delay(LATENCY_MS.find(([pattern]) => pattern.test(path))?.[1] ?? 300);
  // Nothing returned: the default handlers answer, late.
});

/** The store's images, as SVGs of their size, the banners slower than the product pictures. */
const cdn = http.get("https://cdn.shop.example/:file", async ({ params }) => {
  const file = String(params["file"]);
  const [width, height] = file.includes("mobile")
    ? [600, 800]
    : file.includes("banner")
      ? [1000, 500]
      : [400, 400];
  await delay(file.includes("banner") ? 900 : 200);
  return new HttpResponse(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#888"/></svg>`,
    { headers: { "content-type": "image/svg+xml" } },
  );
});

/** A theme's usual frame: a header bar, a centred column, a tall footer. */
const THEME = `
  body { margin: 0; font: 16px/1.5 system-ui, sans-serif; }
  .store-header { display: flex; align-items: center; block-size: 72px; padding-inline: 1rem; background: #222; color: #fff; }
  main { max-inline-size: 1200px; margin: 0 auto; padding: 1rem; }
  main img { display: block; max-inline-size: 100%; block-size: auto; }
  .product { display: flex; flex-wrap: wrap; gap: 2rem; }
  .product > * { flex: 1 1 320px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 1rem; }
  .cart { display: flex; flex-wrap: wrap; gap: 2rem; align-items: start; }
  .cart table { flex: 2 1 480px; border-collapse: collapse; }
  .cart td { padding: 1rem 0; border-block-end: 1px solid #ddd; }
  .cart aside { flex: 1 1 300px; display: grid; gap: 1rem; }
  footer { min-block-size: 320px; padding: 2rem 1rem; background: #f2f2f2; }
`;
const storeHeader = `<header class="store-header">Shop · Catalogue · Account</header>`;
const footer = `<footer><p>About us · Delivery · Returns · Contact</p><p>© Shop</p></footer>`;
const text = (n: number) =>
  Array.from(
    { length: n },
    () =>
      "<p>Roasted in small batches every week, packed the day it ships, and sent in a bag that keeps it fresh for a month after opening.</p>",
  ).join("");

const productPage = (customer = "") => `${storeHeader}
  <main class="product">
    <img src="https://cdn.shop.example/product-1.svg" width="400" height="400" alt="A bag of coffee" />
    <div>
      <h1>Ethiopia Guji, 250 g</h1>
      <p>€24.90</p>
      <loyalty-product-points ${attributes} ${customer} product="1001" categories="10" price="24.9"></loyalty-product-points>
      <p><button>Add to cart</button></p>
      ${text(3)}
    </div>
  </main>
  ${footer}`;

const collectionPage = (customer = "") => `${storeHeader}
  <main>
    <h1>Coffee</h1>
    <ul class="grid" role="list">
      ${Array.from(
        { length: 12 },
        (_, index) => `<li>
          <img src="https://cdn.shop.example/product-${index}.svg" width="400" height="400" alt="" />
          <h2>Coffee n°${index + 1}</h2>
          <p>€${(12 + index * 2.5).toFixed(2)}</p>
          <loyalty-product-points ${attributes} ${customer} product="${2000 + index}" price="${12 + index * 2.5}"></loyalty-product-points>
        </li>`,
      ).join("")}
    </ul>
  </main>
  ${footer}`;

const cartLines = [
  { product: "1001", categories: [10], price: 24.9, quantity: 2 },
  { product: "1002", price: 15, quantity: 1 },
  { product: "1003", categories: [12], price: 39.5, quantity: 1 },
];
const cartPage = (customer = "") => `${storeHeader}
  <main>
    <h1>Your cart</h1>
    <div class="cart">
      <table><tbody>
        ${cartLines.map((line) => `<tr><td>Product ${line.product}</td><td>× ${line.quantity}</td><td>€${line.price}</td></tr>`).join("")}
      </tbody></table>
      <aside>
        <p>Total: €104.30</p>
        <loyalty-cart-widget ${attributes} ${customer} items='${JSON.stringify(cartLines)}'></loyalty-cart-widget>
        <button>Checkout</button>
      </aside>
    </div>
    ${text(2)}
  </main>
  ${footer}`;

const programPage = (customer = "") => `${storeHeader}
  <main><loyalty-program-presentation ${attributes} ${customer}></loyalty-program-presentation></main>
  ${footer}`;

/** A real programme: four ways to earn, six rewards, a page of ten transactions, five questions. */
const programme = presentationResponse(
  {},
  {
    howToEarn: {
      enabled: true,
      title: "How to earn points",
      items: [
        { icon: "order", title: "Shop", text: "1 point per euro spent." },
        { icon: "referral", title: "Refer a friend", text: "200 points per friend who orders." },
        { icon: "birthday", title: "Your birthday", text: "100 points on your birthday." },
        { icon: "social", title: "Follow us", text: "50 points per network." },
      ],
    },
    faq: {
      enabled: true,
      title: "Questions",
      items: [
        { question: "Do points expire?", answer: "After 12 months without an order." },
        { question: "When are my points added?", answer: "Once your order has shipped." },
        { question: "Can I combine rewards?", answer: "One reward per order." },
        { question: "What happens when I return an item?", answer: "Its points are taken back." },
        { question: "How do clubs work?", answer: "The more you earn, the more you earn." },
      ],
    },
  },
);
const programmeRewards: Reward[] = [
  ...rewards,
  ...rewards.map((reward, index) => ({
    ...reward,
    id: 10 + index,
    name: `${reward.name}, member price`,
    description: "A members' favourite, once per order.",
    triggerValue: reward.triggerValue * 3,
  })),
];
const [template] = history().transactions as [Transaction];
const transactions = (from: number, count: number): Transaction[] =>
  Array.from({ length: count }, (_, index) => {
    const id = from - index;
    return {
      ...template,
      id,
      points: 20 + id * 3,
      createdAt: new Date(Date.UTC(2026, 10, 1) - index * 9 * 86_400_000).toISOString(),
      order: { externalId: 1000 + id, externalReference: `#${1000 + id}` },
    };
  });
/** The first page (ten transactions, more to read) and the next one. */
const historyPages = http.get(`${API}/point/user-history/:id`, async ({ request }) => {
  const cursor = new URL(request.url).searchParams.get("cursor");
  await delay(600);
  return HttpResponse.json(
    cursor
      ? history({ transactions: transactions(30, 6), nextCursor: null })
      : history({ transactions: transactions(40, 10), nextCursor: "page-2" }),
  );
});
const programmeData = [
  http.get(`${API}/store/widget/program-presentation`, async () => {
    await delay(250);
    return HttpResponse.json(programme);
  }),
  http.get(`${API}/reward/list`, async () => {
    await delay(400);
    return HttpResponse.json(programmeRewards);
  }),
  historyPages,
];

const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));

/** Every image of the page, the widgets' shadow roots included, loaded. */
async function imagesLoaded(root: Element): Promise<void> {
  const widgets = [...root.querySelectorAll<Widget>(WIDGETS)];
  const images = [
    ...root.querySelectorAll("img"),
    ...widgets.flatMap((widget) => [...(widget.shadowRoot?.querySelectorAll("img") ?? [])]),
  ];
  await Promise.all(images.map((image) => image.decode()));
}

/**
 * Writes `markup` into the page as a store's page arrives, and sums the layout shifts without
 * recent input from then until every widget shows its data and every image is loaded.
 */
async function loadPage(markup: string): Promise<{ cls: number; widgets: Widget[] }> {
  const shifts: LayoutShift[] = [];
  const observer = new PerformanceObserver((list) =>
    shifts.push(...(list.getEntries() as LayoutShift[])),
  );
  // Buffered entries of this file's earlier pages are older than `start`.
  observer.observe({ type: "layout-shift", buffered: true });
  await frame();
  const start = performance.now();
  const root = document.createElement("div");
  root.innerHTML = markup;
  document.body.append(root);
  const widgets = [...root.querySelectorAll<Widget>(WIDGETS)];
  await Promise.all(widgets.map((widget) => widget.updateComplete));
  await imagesLoaded(root);
  // Layout shifts are reported after the frame that painted them.
  for (let count = 0; count < 3; count++) await frame();
  await new Promise((resolve) => setTimeout(resolve, 100));
  shifts.push(...(observer.takeRecords() as LayoutShift[]));
  observer.disconnect();
  const cls = shifts
    .filter((shift) => shift.startTime >= start && !shift.hadRecentInput)
    .reduce((sum, shift) => sum + shift.value, 0);
  for (const widget of widgets) {
    expect(part(widget, "[aria-busy]").getAttribute("aria-busy")).toBe("false");
  }
  return { cls, widgets };
}

const STYLE = document.createElement("style");
let initialViewport: [number, number];
beforeAll(() => {
  initialViewport = [innerWidth, innerHeight];
  STYLE.textContent = THEME;
  document.head.append(STYLE);
});
beforeEach(() => {
  serve(latency, cdn);
  scrollTo(0, 0);
});
afterAll(async () => {
  STYLE.remove();
  await page.viewport(...initialViewport);
});

/** The figures of this file's run, for the report of a change. */
const figures: string[] = [];
afterAll(() => {
  // eslint-disable-next-line no-console -- the measured figures are this test's output
  console.info(`CLS per page:\n${figures.join("\n")}`);
});

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  for (const [who, customer] of [
    ["visitor", ""],
    ["signed-in customer", IDENTIFIED],
  ] as const) {
    describe(`layout shift at ${size} size (${viewport.join("×")}), ${who}`, () => {
      beforeEach(async () => {
        await page.viewport(viewport[0], viewport[1]);
      });

      const measure = async (name: string, markup: string) => {
        const result = await loadPage(markup);
        figures.push(`${name}, ${size}, ${who}: ${result.cls.toFixed(4)}`);
        expect(result.cls, name).toBeLessThan(GOOD_CLS);
        return result;
      };

      it("product page: the points line keeps its place", async () => {
        const { widgets } = await measure("product page", productPage(customer));
        expect(textOf(widgets[0]!)).toBe("Earn 24 points with this product");
      });

      it("collection page: twelve products' points", async () => {
        const { widgets } = await measure("collection page", collectionPage(customer));
        expect(widgets.map(textOf)).toContain("Earn 12 points with this product");
      });

      it("cart page: the cart widget's box", async () => {
        const { widgets } = await measure("cart page", cartPage(customer));
        expect(textOf(widgets[0]!)).toContain("This cart earns you 102 points");
      });

      if (customer) {
        it("cart page: a customer who can claim no reward yet", async () => {
          serve(
            http.get(`${API}/point/user-history/:id`, () =>
              HttpResponse.json(history({ balance: 120 })),
            ),
          );
          const { widgets } = await measure("cart page, no reward", cartPage(customer));
          expect(textOf(widgets[0]!)).toContain("You have 120 points");
        });
      }

      it("any page with the launcher: its button, then its panel opened and filled", async () => {
        const launcher = `<loyalty-launcher ${attributes} ${customer}></loyalty-launcher>`;
        const { cls } = await measure("launcher's page", productPage(customer) + launcher);
        const element = document.querySelector<Widget>("loyalty-launcher")!;
        await element.updateComplete;
        const button = part<HTMLButtonElement>(element, '[part="button"]');
        expect(button.getBoundingClientRect().height).toBeGreaterThan(0);

        // The panel opens on a key press; every shift while it fills counts, input or not.
        const shifts: LayoutShift[] = [];
        const observer = new PerformanceObserver((list) =>
          shifts.push(...(list.getEntries() as LayoutShift[])),
        );
        observer.observe({ type: "layout-shift" });
        button.focus();
        await userEvent.keyboard("{Enter}");
        await expect
          .poll(() => element.shadowRoot!.querySelector(".loading"), { timeout: 5_000 })
          .toBeNull();
        for (let count = 0; count < 3; count++) await frame();
        shifts.push(...(observer.takeRecords() as LayoutShift[]));
        observer.disconnect();
        const opened = shifts.reduce((sum, shift) => sum + shift.value, 0);
        figures.push(
          `launcher's panel, ${size}, ${who}: ${opened.toFixed(4)} (page ${cls.toFixed(4)})`,
        );
        expect(opened).toBeLessThan(GOOD_CLS);
        await userEvent.keyboard("{Escape}");
      });

      it("programme page, every section on, with its banner image", async () => {
        serve(...programmeData);
        const { widgets } = await measure("programme page", programPage(customer));
        expect(textOf(widgets[0]!)).toContain(customer ? "Your balance" : "Sign in to see");
      });
    });
  }
}

describe("the loading placeholders", () => {
  const pending = (kind: string) =>
    http.get(`${API}/store/widget/${kind}`, async () => {
      await delay("infinite");
      return HttpResponse.json({});
    });

  for (const [who, customer] of [
    ["a visitor", ""],
    ["a signed-in customer", IDENTIFIED],
  ] as const) {
    it(`have no accessibility violation, for ${who}`, async () => {
      serve(pending("program-presentation"), pending("cart"));
      const root = document.createElement("div");
      root.innerHTML = programPage(customer) + cartPage(customer);
      document.body.append(root);
      await frame();
      await expectAccessible();
    });
  }
});

describe("the programme page's 'Show more' keeps what is above the focus in place", () => {
  beforeEach(async () => {
    await page.viewport(...VIEWPORTS.phone);
    serve(...programmeData);
  });

  /** The viewport positions of the elements before `target`, which must not move. */
  const above = (widget: Widget, target: Element) => {
    const before = [...widget.shadowRoot!.querySelectorAll("h2, [part=reward], [part=transaction]")]
      .filter(
        (element) => element.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING,
      )
      .map((element) => element as HTMLElement);
    return () => before.map((element) => element.getBoundingClientRect().top);
  };

  it("'Show more' appends the older transactions under the ones already read", async () => {
    const { widgets } = await loadPage(programPage(IDENTIFIED));
    const widget = widgets[0]!;
    const more = part(widget, '[part="more-button"]');
    more.scrollIntoView({ block: "center" });
    const positions = above(widget, more);
    const before = positions();
    await userEvent.click(more);
    await expect
      .poll(() => widget.shadowRoot!.querySelectorAll('[part="transaction"]').length)
      .toBe(16);
    await frame();
    expect(positions()).toEqual(before);
    expect(widget.shadowRoot!.activeElement?.textContent).toContain("#1030");
  });
});
