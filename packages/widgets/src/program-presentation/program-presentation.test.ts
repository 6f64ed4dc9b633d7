import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cdp, page, userEvent } from "vitest/browser";
import { delay } from "msw";
import {
  customerHistoryResponseV2Schema,
  type CustomerHistoryResponseV2,
  type ProgramPresentationConfigInput,
  type ProgramPresentationWidgetResponse,
} from "@loyalty/shared-types";
import {
  API,
  HttpResponse,
  http,
  requestsTo,
  serve,
  useApiMock,
} from "../../test/support/api-mock.js";
import { clearCache } from "../core/api.js";
import {
  CUSTOMER,
  DOMAIN,
  history,
  presentationResponse,
  rewards,
} from "../../test/support/fixtures.js";
import { expectAccessible, mount, part, textOf } from "../../test/support/dom.js";
import type { LoyaltyProgramPresentation } from "./program-presentation.js";
import "./program-presentation.js";

useApiMock();

type Header = ProgramPresentationWidgetResponse["config"]["header"];
type Sections = ProgramPresentationConfigInput["sections"];
type Widget = LoyaltyProgramPresentation;

const IDENTIFIED = `customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}"`;
const tag = (attributes = "") =>
  `<loyalty-program-presentation api-base="${API}" domain="${DOMAIN}" ${attributes}></loyalty-program-presentation>`;

/** Serves the programme page's configuration built from the fixture with these changes. */
function configure(
  header: Partial<Header> = {},
  sections: Partial<Sections> = {},
  store: { language?: string; brandingColor?: string } = {},
  edit: (response: ProgramPresentationWidgetResponse) => void = () => undefined,
) {
  const response = presentationResponse(header, sections, store);
  edit(response);
  serve(http.get(`${API}/store/widget/program-presentation`, () => HttpResponse.json(response)));
}

/** The banner images, as SVGs of known sizes: desktop 2:1, mobile 3:4. */
const svg = (width: number, height: number) =>
  new HttpResponse(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#555"/></svg>`,
    { headers: { "content-type": "image/svg+xml" } },
  );
const cdn = http.get("https://cdn.shop.example/:file", ({ params }) =>
  String(params["file"]).includes("mobile") ? svg(600, 800) : svg(1000, 500),
);

const rect = (element: Widget, selector: string) => part(element, selector).getBoundingClientRect();
const all = (element: Widget, selector: string) => [
  ...element.shadowRoot!.querySelectorAll<HTMLElement>(selector),
];
/** What a user reads, as laid out (block elements apart), whitespace collapsed. */
const seen = (found: HTMLElement) => found.innerText.replace(/\s+/g, " ").trim();
const texts = (element: Widget, selector: string) => all(element, selector).map(seen);
/** Removes the widgets and forgets the API's answers, for the next mount to read new ones. */
const unmount = () => {
  document.body.replaceChildren();
  clearCache();
};
const imageLoaded = (element: Widget) =>
  expect.poll(() => part<HTMLImageElement>(element, "img").naturalWidth).toBeGreaterThan(0);
const style = (element: Widget, selector: string) => getComputedStyle(part(element, selector));

let initialViewport: [number, number];
beforeAll(() => {
  initialViewport = [innerWidth, innerHeight];
});
beforeEach(async () => {
  serve(cdn);
  await page.viewport(1024, 768);
});
afterAll(async () => {
  await page.viewport(...initialViewport);
});

describe("<loyalty-program-presentation> banner", () => {
  it("crops the image to a fixed height with imageFit cover, adjustable by the merchant", async () => {
    const element = await mount<Widget>(tag());
    await imageLoaded(element);
    const header = rect(element, '[part="header"]');
    const image = rect(element, '[part="header-image"]');
    expect(header.height).toBe(320);
    expect(image.height).toBe(320);
    expect(image.width).toBe(header.width);
    expect(style(element, '[part="header-image"]').objectFit).toBe("cover");
    expect(part<HTMLImageElement>(element, "img").alt).toBe("");

    const taller = await mount<Widget>(tag('style="--loyalty-header-height: 400px"'));
    expect(rect(taller, '[part="header"]').height).toBe(400);
  });

  it("shows the image at its own ratio with imageFit ratio", async () => {
    configure({ imageFit: "ratio" });
    const element = await mount<Widget>(tag());
    await imageLoaded(element);
    const header = rect(element, '[part="header"]');
    const image = rect(element, '[part="header-image"]');
    // The desktop image is 1000×500.
    expect(image.height).toBeCloseTo(image.width / 2, 0);
    expect(header.height).toBeCloseTo(header.width / 2, 0);
    expect(header.height).toBeGreaterThan(400);
  });

  it("lays the content over the image on desktop, whatever the mobile layout", async () => {
    configure({ mobileLayout: "stacked" });
    const element = await mount<Widget>(tag());
    const image = rect(element, '[part="header-image"]');
    const content = rect(element, '[part="header-content"]');
    expect(content.top).toBeGreaterThanOrEqual(image.top);
    expect(content.bottom).toBeLessThanOrEqual(image.bottom);
  });

  for (const imageFit of ["cover", "ratio"] as const) {
    it(`on a phone, puts the content over the image (overlay) or under it (stacked), imageFit ${imageFit}`, async () => {
      await page.viewport(375, 800);
      configure({ imageFit, mobileLayout: "overlay" });
      const overlay = await mount<Widget>(tag());
      await imageLoaded(overlay);
      await expect
        .poll(() => part<HTMLImageElement>(overlay, "img").currentSrc)
        .toBe("https://cdn.shop.example/banner-mobile.png");
      // The mobile image is 600×800: portrait, taller than wide.
      const expected = imageFit === "cover" ? 240 : (rect(overlay, "img").width * 4) / 3;
      await expect.poll(() => rect(overlay, "img").height).toBeCloseTo(expected, 0);
      let image = rect(overlay, "img");
      let content = rect(overlay, '[part="header-content"]');
      expect(content.top).toBeGreaterThanOrEqual(image.top);
      expect(content.bottom).toBeLessThanOrEqual(image.bottom);
      unmount();

      configure({ imageFit, mobileLayout: "stacked" });
      const stacked = await mount<Widget>(tag());
      await imageLoaded(stacked);
      await expect.poll(() => rect(stacked, "img").height).toBeCloseTo(expected, 0);
      image = rect(stacked, "img");
      content = rect(stacked, '[part="header-content"]');
      expect(content.top).toBeGreaterThanOrEqual(image.bottom);
      expect(rect(stacked, '[part="header"]').bottom).toBeGreaterThanOrEqual(content.bottom);
    });
  }

  it("places the content at the centre, left or right, aligned the same way", async () => {
    const placed: Record<string, unknown> = {};
    for (const contentPosition of ["center", "left", "right"] as const) {
      configure({ contentPosition });
      const element = await mount<Widget>(tag());
      const header = rect(element, '[part="header"]');
      const content = rect(element, '[part="header-content"]');
      const primary = rect(element, '[part="primary-button"]');
      const secondary = rect(element, '[part="secondary-button"]');
      placed[contentPosition] = {
        textAlign: style(element, '[part="header-content"]').textAlign,
        offCentre:
          Math.round((content.left + content.right) / 2 - (header.left + header.right) / 2) || 0,
        fromLeft: Math.round(content.left - header.left),
        fromRight: Math.round(header.right - content.right),
        buttonsFromLeft: Math.round(primary.left - content.left),
        buttonsFromRight: Math.round(content.right - secondary.right),
      };
      unmount();
    }
    expect(placed["center"]).toMatchObject({ textAlign: "center", offCentre: 0 });
    expect(placed["left"]).toMatchObject({ textAlign: "left", fromLeft: 16, buttonsFromLeft: 0 });
    expect(placed["right"]).toMatchObject({
      textAlign: "right",
      fromRight: 16,
      buttonsFromRight: 0,
    });
    expect((placed["center"] as { fromLeft: number }).fromLeft).toBeGreaterThan(100);
  });

  it("puts the content on an opaque card, or directly on the image", async () => {
    configure({ contentCard: true, textColor: "#1f1f1f" });
    const card = await mount<Widget>(tag());
    expect(style(card, '[part="header-content"]').backgroundColor).toBe("rgb(255, 255, 255)");
    expect(style(card, '[part="header-content"]').paddingTop).toBe("16px");
    expect(style(card, '[part="header-content"]').borderRadius).toBe("8px");
    expect(style(card, '[part="header-text"]').color).toBe("rgb(31, 31, 31)");

    const themed = await mount<Widget>(tag('style="--loyalty-surface-color: rgb(250, 240, 200)"'));
    expect(style(themed, '[part="header-content"]').backgroundColor).toBe("rgb(250, 240, 200)");
    unmount();

    configure({ contentCard: false });
    const plain = await mount<Widget>(tag());
    expect(style(plain, '[part="header-content"]').backgroundColor).toBe("rgba(0, 0, 0, 0)");
    expect(style(plain, '[part="header-content"]').paddingTop).toBe("0px");
  });

  it("paints the configured background and text colours, the merchant's CSS winning", async () => {
    const element = await mount<Widget>(tag());
    expect(style(element, '[part="header"]').backgroundColor).toBe("rgb(18, 52, 86)");
    expect(style(element, '[part="header-text"]').color).toBe("rgb(255, 255, 255)");

    const themed = await mount<Widget>(
      tag(
        'style="--loyalty-header-background: rgb(1, 2, 3); --loyalty-header-text-color: rgb(250, 250, 0)"',
      ),
    );
    expect(style(themed, '[part="header"]').backgroundColor).toBe("rgb(1, 2, 3)");
    expect(style(themed, '[part="header-text"]').color).toBe("rgb(250, 250, 0)");
  });

  it("falls back to the store's branding colour without a background colour, and shows colour alone without images", async () => {
    configure({
      backgroundColor: "",
      textColor: "",
      backgroundImageUrl: "",
      mobileBackgroundImageUrl: "",
    });
    const element = await mount<Widget>(tag('style="color: rgb(0, 0, 0)"'));
    expect(style(element, '[part="header"]').backgroundColor).toBe("rgb(107, 63, 160)");
    // No text colour: white reads on the dark branding colour, not the page's black.
    expect(style(element, '[part="header-text"]').color).toBe("oklch(1 0 0)");
    expect(element.shadowRoot!.querySelector("img")).toBeNull();
    expect(rect(element, '[part="header"]').height).toBe(320);
  });

  it("shows a mobile-only image on phones only", async () => {
    configure({
      backgroundImageUrl: "",
      mobileBackgroundImageUrl: "https://cdn.shop.example/banner-mobile.png",
    });
    const desktop = await mount<Widget>(tag());
    expect(part(desktop, "img").checkVisibility()).toBe(false);
    expect(rect(desktop, '[part="header"]').height).toBe(320);
    unmount();

    await page.viewport(375, 800);
    const phone = await mount<Widget>(tag());
    await imageLoaded(phone);
    expect(part(phone, "img").checkVisibility()).toBe(true);
    expect(rect(phone, "img").height).toBe(240);
  });

  for (const [action, section] of [
    ["scroll-points", "howToEarn"],
    ["scroll-redeem", "rewards"],
    ["scroll-history", "history"],
    ["scroll-faq", "faq"],
  ] as const) {
    it(`scrolls to the ${section} section and focuses its heading (${action})`, async () => {
      configure({ primaryButtonText: "Go", primaryButtonAction: action });
      // A tall banner puts every section below the fold.
      const element = await mount<Widget>(tag('style="--loyalty-header-height: 1500px"'));
      const heading = part(element, `#${section} h2`);
      expect(heading.getBoundingClientRect().top).toBeGreaterThan(innerHeight);

      await userEvent.click(part(element, '[part="primary-button"]'));

      expect(element.shadowRoot!.activeElement).toBe(heading);
      expect(document.activeElement).toBe(element);
      await expect
        .poll(() => {
          const { top, bottom } = heading.getBoundingClientRect();
          return top >= 0 && bottom <= innerHeight;
        })
        .toBe(true);
      scrollTo(0, 0);
    });
  }

  it("scrolls at once when the visitor prefers reduced motion", async () => {
    const session = cdp();
    await session.send("Emulation.setEmulatedMedia", {
      features: [{ name: "prefers-reduced-motion", value: "reduce" }],
    });
    try {
      const element = await mount<Widget>(tag('style="--loyalty-header-height: 1500px"'));
      await userEvent.click(part(element, '[part="secondary-button"]'));
      // No polling: the section is there as soon as the click is handled.
      const { top, bottom } = part(element, "#rewards h2").getBoundingClientRect();
      expect(top >= 0 && bottom <= innerHeight).toBe(true);
      scrollTo(0, 0);
    } finally {
      await session.send("Emulation.setEmulatedMedia", { features: [] });
    }
  });

  it("renders a url action as a link, and no link for anything but http(s)", async () => {
    configure({
      primaryButtonText: "See the shop",
      primaryButtonAction: "url",
      primaryButtonUrl: "https://shop.example/rewards",
    });
    const element = await mount<Widget>(tag());
    const link = part<HTMLAnchorElement>(element, '[part="primary-button"]');
    expect(link.localName).toBe("a");
    expect(link.href).toBe("https://shop.example/rewards");
    expect(link.textContent?.trim()).toBe("See the shop");
    expect(link.classList).toContain("button");
    unmount();

    // The API validates URLs; the widget still refuses one that would run script.
    configure(
      { primaryButtonAction: "url", primaryButtonUrl: "https://x.example" },
      {},
      {},
      (r) => {
        r.config.header.primaryButtonUrl = "javascript:alert(1)";
      },
    );
    const refused = await mount<Widget>(tag());
    expect(refused.shadowRoot!.querySelector('[part="primary-button"]')).toBeNull();
    expect(refused.shadowRoot!.querySelector('a[href^="javascript"]')).toBeNull();
  });

  it("shows the secondary button styled as secondary, and none when it is not set", async () => {
    const element = await mount<Widget>(tag());
    const secondary = part(element, '[part="secondary-button"]');
    expect(secondary.localName).toBe("button");
    expect(secondary.classList).toContain("secondary");
    expect(style(element, '[part="secondary-button"]').backgroundColor).toBe("rgba(0, 0, 0, 0)");
    expect(style(element, '[part="primary-button"]').backgroundColor).toBe("rgb(107, 63, 160)");
    unmount();

    configure({ secondaryButtonText: undefined, secondaryButtonAction: undefined });
    const none = await mount<Widget>(tag());
    expect(none.shadowRoot!.querySelector('[part="secondary-button"]')).toBeNull();
    expect(part(none, '[part="primary-button"]').textContent?.trim()).toBe("How to earn");
    unmount();

    configure({ secondaryButtonText: "Rewards", secondaryButtonAction: undefined });
    const noAction = await mount<Widget>(tag());
    expect(noAction.shadowRoot!.querySelector('[part="secondary-button"]')).toBeNull();
  });

  it("shows plain text as written, line breaks kept and markup inert", async () => {
    configure({ text: "Earn <b>points</b>\non every order", isRawHtml: false });
    const element = await mount<Widget>(tag());
    const text = part(element, '[part="header-text"]');
    expect(text.textContent).toBe("Earn <b>points</b>\non every order");
    expect(text.querySelector("b")).toBeNull();
    expect(getComputedStyle(text).whiteSpace).toBe("pre-line");
    expect(text.getClientRects()[0]!.height).toBeGreaterThan(
      parseFloat(getComputedStyle(text).lineHeight),
    );
  });

  it("shows the store's HTML, sanitised again by the browser's HTML Sanitizer", async () => {
    // Chromium 156 ships Element.prototype.setHTML: the defence in depth is what runs here.
    expect(typeof (Element.prototype as { setHTML?: unknown }).setHTML).toBe("function");
    const pwned = window as { __pwned?: number };
    configure({
      isRawHtml: true,
      text: '<p>Hi</p><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><p><a href="https://shop.example/club" target="_blank" rel="noopener noreferrer">The club</a></p>',
    });
    const element = await mount<Widget>(tag());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const text = part(element, '[part="header-text"]');
    expect(pwned.__pwned).toBeUndefined();
    expect(text.querySelector("p")?.textContent).toBe("Hi");
    expect(text.querySelector("img, script")).toBeNull();
    // Links opening a new tab, as the server wrote them, stay so.
    const link = text.querySelector("a")!;
    expect([link.href, link.target, link.rel]).toEqual([
      "https://shop.example/club",
      "_blank",
      "noopener noreferrer",
    ]);
  });

  it("shows the server-sanitised HTML as it is in browsers without setHTML", async () => {
    const descriptor = Object.getOwnPropertyDescriptor(Element.prototype, "setHTML")!;
    Reflect.deleteProperty(Element.prototype, "setHTML");
    try {
      configure({
        isRawHtml: true,
        text: "<p>Join <strong>now</strong></p><ul><li>Gold</li></ul>",
      });
      const element = await mount<Widget>(tag());
      const text = part(element, '[part="header-text"]');
      expect(text.querySelector("strong")?.textContent).toBe("now");
      expect(text.querySelector("ul li")?.textContent).toBe("Gold");
    } finally {
      Object.defineProperty(Element.prototype, "setHTML", descriptor);
    }
  });
});

const disabled = {
  howToEarn: { enabled: false, title: "Earn", items: [] },
  rewards: { enabled: false, title: "Rewards" },
  history: { enabled: false, title: "History" },
  faq: { enabled: false, title: "FAQ", items: [] },
} satisfies Sections;
const linkButtons: Partial<Header> = {
  primaryButtonAction: "url",
  primaryButtonUrl: "https://shop.example/",
  secondaryButtonAction: "url",
  secondaryButtonUrl: "https://shop.example/faq",
};

const claimed = {
  id: 12,
  kind: "reward_redemption",
  points: -500,
  balanceAfter: 120,
  rewardId: 2,
  voucherCode: "LOYAL-5OFF",
  referralId: null,
  activity: null,
  note: null,
  createdAt: "2026-11-05T10:00:00.000Z",
  pendingPoints: 0,
  availableAt: null,
  pending: false,
  order: null,
} as const satisfies CustomerHistoryResponseV2["transactions"][number];

describe("<loyalty-program-presentation> sections", () => {
  it("shows only the enabled sections, and reads nothing for the others", async () => {
    configure(linkButtons, disabled);
    const none = await mount<Widget>(tag(IDENTIFIED));
    expect(all(none, "section")).toEqual([]);
    expect(part(none, '[part="header"]')).toBeTruthy();
    expect(requestsTo("/reward/list")).toEqual([]);
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
    unmount();

    configure(linkButtons, { howToEarn: disabled.howToEarn, faq: disabled.faq });
    const some = await mount<Widget>(tag());
    expect(all(some, "section").map((section) => section.id)).toEqual(["rewards", "history"]);
    expect(texts(some, '[part="section-title"]')).toEqual(["Rewards", "Your points"]);
  });

  it("lists the ways to earn with their icons", async () => {
    const element = await mount<Widget>(tag());
    expect(texts(element, '[part="way"]')).toEqual([
      "Shop 1 point per euro spent.",
      "Refer a friend 200 points per friend.",
    ]);
    expect(all(element, '[part="way"] svg[part="icon"]')).toHaveLength(2);
    expect(part(element, "#howToEarn-title").textContent).toBe("How to earn points");
  });

  it("shows visitors the rewards without claim buttons, and the history's invitation to sign in", async () => {
    const element = await mount<Widget>(tag());
    expect(texts(element, '[part="reward"]')).toEqual([
      "Free shipping 300 points Free delivery on your next order. Valid 30 days once claimed",
      "€5 off 500 points €5 off your next order. Valid 30 days once claimed",
      "10% off 900 points Valid 30 days once claimed",
    ]);
    expect(all(element, '[part="claim-button"]')).toEqual([]);
    const history = part(element, "#history");
    expect(textOf(history).replace(/\s+/g, " ")).toContain("Sign in to see your points.");
    const signIn = part<HTMLAnchorElement>(element, '[part="sign-in"]');
    expect([signIn.textContent, signIn.href]).toEqual(["Sign in", "https://shop.example/account"]);
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
  });

  it("says when there is no reward, in the configuration's words or ours", async () => {
    serve(http.get(`${API}/reward/list`, () => HttpResponse.json([])));
    const element = await mount<Widget>(tag());
    expect(part(element, "#rewards p").textContent).toBe("No reward yet.");
    unmount();

    configure({}, { rewards: { enabled: true, title: "Rewards" } });
    const ours = await mount<Widget>(tag());
    expect(part(ours, "#rewards p").textContent).toBe("No rewards yet.");
  });

  it("shows the rest of the page when the rewards or the history cannot be read", async () => {
    serve(
      http.get(`${API}/reward/list`, () => new HttpResponse(null, { status: 500 })),
      http.get(`${API}/point/user-history/:id`, () => HttpResponse.error()),
    );
    const element = await mount<Widget>(tag(IDENTIFIED));
    expect(part(element, "#rewards p").textContent).toBe(
      "The loyalty programme is unavailable right now.",
    );
    expect(part(element, "#history p").textContent).toBe(
      "The loyalty programme is unavailable right now.",
    );
    expect(texts(element, '[part="way"]')).toHaveLength(2);
    expect(part(element, "details summary").textContent).toBe("Do points expire?");
  });

  it("lets an identified customer claim a reward: code, event, and the new balance", async () => {
    let balance = 620;
    const claims: unknown[] = [];
    const historyReads: string[] = [];
    serve(
      http.post(`${API}/reward/claim/:id`, async ({ request, params }) => {
        claims.push({ id: params["id"], body: await request.json() });
        balance -= 500;
        return HttpResponse.json(
          {
            code: "LOYAL-5OFF",
            rewardId: 2,
            pointsSpent: 500,
            balance,
            expiresAt: "2026-12-05T10:00:00.000Z",
            voucher: rewards[1]!.voucher,
          },
          { status: 201 },
        );
      }),
      http.get(`${API}/point/user-history/:id`, ({ request }) => {
        historyReads.push(request.url);
        const page = history();
        return HttpResponse.json(
          balance === 620
            ? page
            : {
                ...page,
                balance,
                availablePoints: balance,
                transactions: [claimed, ...page.transactions],
              },
        );
      }),
    );
    const element = await mount<Widget>(tag(IDENTIFIED));
    const events: unknown[] = [];
    element.addEventListener("loyalty-reward-claimed", (event) =>
      events.push((event as CustomEvent).detail),
    );
    const buttons = all(element, '[part="claim-button"]') as HTMLButtonElement[];
    expect(buttons.map((button) => button.disabled)).toEqual([false, false, true]);
    expect(texts(element, '[part="reward"]')[2]).toContain("280 points more to unlock");
    expect(part(element, '[part="balance"]').textContent).toBe("620 points");

    await userEvent.click(buttons[1]!);
    await userEvent.click(page.getByRole("button", { name: "Confirm", exact: true }));

    await expect.poll(() => texts(element, '[part="code"]')[0]).toContain("LOYAL-5OFF");
    expect(claims).toEqual([{ id: CUSTOMER.id, body: { rewardId: 2 } }]);
    expect(events).toEqual([
      {
        rewardId: 2,
        code: "LOYAL-5OFF",
        pointsSpent: 500,
        balance: 120,
        expiresAt: "2026-12-05T10:00:00.000Z",
        domain: DOMAIN,
        customerId: CUSTOMER.id,
      },
    ]);
    await expect.poll(() => part(element, '[part="balance"]').textContent).toBe("120 points");
    await expect
      .poll(() => texts(element, '[part="transaction"]')[0])
      .toMatch(/^Reward LOYAL-5OFF Nov 5, 2026 −500 points$/);
    expect(historyReads).toHaveLength(2);
    // What the customer can still afford follows the new balance.
    const after = all(element, '[part="claim-button"]') as HTMLButtonElement[];
    expect(after.map((button) => button.disabled)).toEqual([true, true]);
    expect(texts(element, '[part="reward"]')[0]).toContain("180 points more to unlock");
  });

  it("shows an identified customer's balance, club, progress and transactions", async () => {
    const element = await mount<Widget>(tag(IDENTIFIED));
    expect(part(element, '[part="balance"]').textContent).toBe("620 points");
    expect(seen(part(element, "#history dl"))).toBe("Your balance 620 points Club Silver");
    expect(part(element, "#next-club").textContent?.trim()).toBe("1,180 points to Gold");
    const progress = part<HTMLProgressElement>(element, "progress");
    expect([progress.value, progress.max]).toEqual([820, 2000]);
    expect(texts(element, '[part="transaction"]')).toEqual([
      "Order #1002 Nov 2, 2026 +120 points",
      "Order 1001 Oct 1, 2026 +500 points",
    ]);
    expect(element.shadowRoot!.querySelector('[part="more-button"]')).toBeNull();
    const [request] = requestsTo(`/point/user-history/${CUSTOMER.id}`);
    const query = new URL(request!.url).searchParams;
    expect([query.get("hash"), query.get("domain")]).toEqual([CUSTOMER.hash, DOMAIN]);
    // The revision that gives the store's order reference ("#1002"), not only its id.
    expect(request!.headers.get("revision")).toBe("2026-08-26");
  });

  it("measures club progress on the store's figure: the amount to spend for clubs by spending", async () => {
    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(
          history({
            earnedLast12Months: 82,
            club: null,
            nextClub: { id: 3, name: "Gold", threshold: 500, multiplier: 1.5, pointsToReach: 180 },
            clubQualification: {
              basis: "amount-spent",
              period: "calendar-year",
              downgrade: "end-of-period",
              figure: 320.5,
              periodStart: "2026-01-01T00:00:00.000Z",
              keptUntil: null,
            },
          }),
        ),
      ),
    );
    const element = await mount<Widget>(tag(IDENTIFIED));
    expect(part(element, "#next-club").textContent?.trim()).toBe(
      "Spend €180.00 more to reach Gold",
    );
    const progress = part<HTMLProgressElement>(element, "progress");
    expect([progress.value, progress.max]).toEqual([320.5, 500]);
    await expectAccessible();
  });

  it("shows pending points apart, with when they become spendable, and never offers them", async () => {
    const page = history({ pendingPoints: 200 });
    const [newest, ...older] = page.transactions;
    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json({
          ...page,
          transactions: [
            {
              ...newest!,
              pendingPoints: 120,
              availableAt: "2026-11-16T10:00:00.000Z",
              pending: true,
            },
            ...older,
          ],
        }),
      ),
    );
    const element = await mount<Widget>(tag(IDENTIFIED));
    expect(seen(part(element, "#history dl"))).toBe(
      "Your balance 620 points Pending 200 points Club Silver",
    );
    expect(part(element, '[part="pending-hint"]').textContent).toBe(
      "Points of recent orders, spendable once the return period ends.",
    );
    expect(texts(element, '[part="transaction"]')[0]).toBe(
      "Order #1002 Nov 2, 2026 Spendable from Nov 16, 2026 +120 points",
    );
    // 420 points can be spent: the 300-point reward, not yet the 500-point one.
    const buttons = all(element, '[part="claim-button"]') as HTMLButtonElement[];
    expect(buttons.map((button) => button.disabled)).toEqual([false, true, true]);
    expect(texts(element, '[part="reward"]')[1]).toContain("80 points more to unlock");
    await expectAccessible();
  });

  it("says how many points expire next, and when", async () => {
    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(
          history({ nextExpiry: { points: 120, expiresAt: "2027-03-01T08:00:00.000Z" } }),
        ),
      ),
    );
    const element = await mount<Widget>(tag(IDENTIFIED));
    await expect
      .poll(() => part(element, '[part="next-expiry"]').textContent?.trim())
      .toBe("120 points expire on Mar 1, 2027: spend them before.");
    unmount();
    // A store that added French: a French page reads the programme in French.
    configure({}, {}, {}, (response) => (response.config.translations = { fr: {} }));
    const french = await mount<Widget>(tag(`${IDENTIFIED} lang="fr"`));
    await expect
      .poll(() => part(french, '[part="next-expiry"]').textContent?.trim())
      .toBe("120 points expirent le 1 mars 2027 : utilisez-les avant.");
    await expectAccessible();
  });

  it("says why a balance is negative", async () => {
    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(
          history({
            balance: -80,
            negativeBalance: { points: 80, reason: "refund-after-spending", transactionId: 11 },
          }),
        ),
      ),
    );
    configure({}, {}, {}, (response) => (response.config.translations = { fr: {} }));
    const element = await mount<Widget>(tag(`${IDENTIFIED} lang="fr"`));
    await expect
      .poll(() => part(element, '[part="negative-balance"]').textContent)
      .toBe(
        "Votre solde est négatif : une commande a été remboursée après que ses points ont été dépensés. Les prochains points gagnés comblent d’abord la différence.",
      );
    await expectAccessible();
  });

  it("names orders by the store's reference, else their id, with codes and debits", async () => {
    const newer = customerHistoryResponseV2Schema.parse({
      ...history(),
      club: null,
      nextClub: null,
      transactions: [
        { ...claimed, order: null },
        {
          ...claimed,
          id: 11,
          kind: "earn",
          points: 80,
          voucherCode: null,
          rewardId: null,
          order: { externalId: 1003, externalReference: "SHOP-1003" },
        },
        {
          ...claimed,
          id: 10,
          kind: "refund_deduction",
          points: -30,
          voucherCode: null,
          rewardId: null,
          order: { externalId: "A-77", externalReference: null },
        },
      ],
    });
    serve(http.get(`${API}/point/user-history/:id`, () => HttpResponse.json(newer)));
    const element = await mount<Widget>(tag(IDENTIFIED));
    expect(texts(element, '[part="transaction"]')).toEqual([
      "Reward LOYAL-5OFF Nov 5, 2026 −500 points",
      "Order SHOP-1003 Nov 5, 2026 +80 points",
      "Refund A-77 Nov 5, 2026 −30 points",
    ]);
    expect(seen(part(element, "#history dl"))).toBe("Your balance 620 points");
    expect(element.shadowRoot!.querySelector("progress")).toBeNull();
  });

  it("loads older transactions with the cursor, and says when there are none", async () => {
    const cursors: (string | null)[] = [];
    serve(
      http.get(`${API}/point/user-history/:id`, ({ request }) => {
        const cursor = new URL(request.url).searchParams.get("cursor");
        cursors.push(cursor);
        if (cursor !== "page-2") return HttpResponse.json(history({ nextCursor: "page-2" }));
        return HttpResponse.json(
          history({
            transactions: [
              {
                ...claimed,
                id: 9,
                kind: "expiry",
                points: -40,
                voucherCode: null,
                rewardId: null,
                createdAt: "2026-09-01T10:00:00.000Z",
              },
            ],
          }),
        );
      }),
    );
    const element = await mount<Widget>(tag(IDENTIFIED));
    expect(texts(element, '[part="transaction"]')).toHaveLength(2);

    await userEvent.click(part(element, '[part="more-button"]'));

    await expect.poll(() => texts(element, '[part="transaction"]')).toHaveLength(3);
    expect(texts(element, '[part="transaction"]')[2]).toBe("Expired points Sep 1, 2026 −40 points");
    expect(cursors).toEqual([null, "page-2"]);
    expect(element.shadowRoot!.querySelector('[part="more-button"]')).toBeNull();
    await expect
      .poll(() => element.shadowRoot!.activeElement)
      .toBe(all(element, '[part="transaction"]')[2]);
    unmount();

    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(history({ transactions: [] })),
      ),
    );
    const empty = await mount<Widget>(tag(IDENTIFIED));
    expect(seen(part(empty, "#history"))).toContain("No transactions yet.");
  });

  it("asks a customer whose hash was refused to sign in again, and shows the rest", async () => {
    const element = await mount<Widget>(tag(`customer-id="${CUSTOMER.id}" customer-hash="stale"`));
    expect(part(element, "#history p").textContent).toBe(
      "Your session has expired: sign in again to see your points.",
    );
    expect(part<HTMLAnchorElement>(element, '[part="sign-in"]').href).toBe(
      "https://shop.example/account",
    );
    expect(texts(element, '[part="reward"]')).toHaveLength(3);
    expect(all(element, '[part="claim-button"]')).toEqual([]);
  });

  it("opens a question's answer on click", async () => {
    const element = await mount<Widget>(tag());
    const details = part<HTMLDetailsElement>(element, '[part="faq-item"]');
    const answer = details.querySelector("p")!;
    expect(details.open).toBe(false);
    expect(answer.checkVisibility()).toBe(false);
    await userEvent.click(details.querySelector("summary")!);
    expect(details.open).toBe(true);
    expect(answer.checkVisibility()).toBe(true);
    expect(answer.textContent).toBe("After 12 months without an order.");
  });
});

describe("<loyalty-program-presentation> states", () => {
  it("keeps the banner's height while loading and when the programme is unavailable", async () => {
    serve(
      http.get(`${API}/store/widget/program-presentation`, async () => {
        await delay(300);
        return HttpResponse.json(presentationResponse());
      }),
    );
    const container = document.createElement("div");
    container.innerHTML = tag();
    document.body.append(container);
    const element = container.firstElementChild as Widget;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    expect(part(element, ".root").getAttribute("aria-busy")).toBe("true");
    expect(textOf(element)).toBe("Loading loyalty programme");
    expect(rect(element, '[part="header"]').height).toBe(320);
    await element.updateComplete;
    expect(part(element, ".root").getAttribute("aria-busy")).toBe("false");
    expect(textOf(element)).toContain("Join the club");
    unmount();

    serve(http.get(`${API}/store/widget/program-presentation`, () => HttpResponse.error()));
    const failed = await mount<Widget>(tag());
    expect(textOf(failed)).toBe("The loyalty programme is unavailable right now.");
    expect(rect(failed, '[part="header"]').height).toBe(320);

    const unknown = await mount<Widget>(
      `<loyalty-program-presentation api-base="${API}" domain="https://other.example"></loyalty-program-presentation>`,
    );
    expect(textOf(unknown)).toBe("The loyalty programme is unavailable right now.");
  });

  it("writes in the store's language, or the element's lang when it has texts in it", async () => {
    configure(
      {},
      {},
      { language: "fr" },
      (response) => (response.config.translations = { en: {} }),
    );
    const french = await mount<Widget>(tag(`${IDENTIFIED} lang="fr"`));
    expect(seen(part(french, "#history dl"))).toBe("Votre solde 620 points Club Silver");
    expect(part(french, "#next-club").textContent?.replace(/\s+/g, " ").trim()).toBe(
      "1 180 points avant Gold",
    );
    expect(texts(french, '[part="transaction"]')[0]).toBe("Commande #1002 2 nov. 2026 +120 points");
    expect(texts(french, '[part="claim-button"]')[0]).toBe("Obtenir");
    unmount();

    const english = await mount<Widget>(tag(`${IDENTIFIED} lang="en"`));
    expect(seen(part(english, "#history dl"))).toBe("Your balance 620 points Club Silver");
  });

  it("fits a 320 px wide phone without scrolling sideways", async () => {
    await page.viewport(320, 640);
    configure({ contentCard: true, textColor: "#1f1f1f" });
    const element = await mount<Widget>(tag(IDENTIFIED));
    await imageLoaded(element);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(320);
    for (const selector of ['[part="header"]', "#rewards", "#history", "#howToEarn"]) {
      const found = part(element, selector);
      expect(found.scrollWidth, selector).toBeLessThanOrEqual(found.clientWidth);
    }
  });

  it("has no accessibility violation for visitors, customers, and on a card", async () => {
    const visitor = await mount<Widget>(tag());
    await imageLoaded(visitor);
    await expectAccessible();
    unmount();

    const customer = await mount<Widget>(tag(IDENTIFIED));
    await imageLoaded(customer);
    await expectAccessible();
    unmount();

    configure({ contentCard: true, textColor: "#1f1f1f", contentPosition: "left" });
    const card = await mount<Widget>(tag(IDENTIFIED));
    await imageLoaded(card);
    await expectAccessible();
  });
});
