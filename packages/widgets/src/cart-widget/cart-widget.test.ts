import { describe, expect, it } from "vitest";
import { page, userEvent } from "vitest/browser";
import { delay } from "msw";
import {
  claimRefusalSchema,
  claimRewardResponseSchema,
  PROBLEM_CONTENT_TYPE,
  problemSchema,
} from "@loyalty/shared-types";
import {
  API,
  HttpResponse,
  calculated,
  http,
  requestsTo,
  serve,
  useApiMock,
} from "../../test/support/api-mock.js";
import { CUSTOMER, DOMAIN, cartResponse, history, rewards } from "../../test/support/fixtures.js";
import { claimReward, expectAccessible, mount, part, textOf } from "../../test/support/dom.js";
import { clearCache } from "../core/api.js";
import type { RewardClaimedDetail } from "../core/claim-event.js";
import type { LoyaltyCartWidget } from "./cart-widget.js";
import "./cart-widget.js";

useApiMock();

/** 19 points × 2 + 5 × 3 + 40 with the demo rule (one point per unit of price, floored). */
const CART = JSON.stringify([
  { product: "1001", categories: [10, 12], price: 19.9, quantity: 2 },
  { product: 1002, price: 5.5, quantity: 3 },
  { price: 40, quantity: 1 },
]);
const IDENTIFIED = `customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}"`;

const tag = (attributes = "", items = CART) =>
  `<loyalty-cart-widget api-base="${API}" domain="${DOMAIN}" items='${items}' ${attributes}></loyalty-cart-widget>`;

const buttons = (element: Element, name: string) =>
  [...element.shadowRoot!.querySelectorAll(`[part="${name}"]`)].map((button) =>
    button.getAttribute("aria-label"),
  );

/** Answers claims with `answer` and keeps what each one sent (a handler in front of the
 * default ones answers before they record the request). */
function serveClaims(answer: () => Response) {
  const sent: { url: URL; headers: Headers; body: unknown }[] = [];
  serve(
    http.post(`${API}/reward/claim/:id`, async ({ request }) => {
      sent.push({
        url: new URL(request.url),
        headers: request.headers,
        body: await request.json(),
      });
      return answer();
    }),
  );
  return sent;
}

const claimed = claimRewardResponseSchema.parse({
  code: "LOYAL-5OFF",
  rewardId: 2,
  pointsSpent: 500,
  balance: 120,
  expiresAt: "2026-12-31T00:00:00.000Z",
  voucher: rewards[1]!.voucher,
});

/** A container as narrow as a small phone. */
async function mountNarrow(markup: string) {
  const container = document.createElement("div");
  container.style.inlineSize = "320px";
  document.body.append(container);
  container.innerHTML = markup;
  const element = container.firstElementChild as LoyaltyCartWidget;
  await element.updateComplete;
  return element;
}

describe("<loyalty-cart-widget>", () => {
  it("shows a visitor what the cart earns and invites them to sign in", async () => {
    const element = await mount<LoyaltyCartWidget>(tag());

    expect(textOf(element)).toBe(
      "Loyalty points This cart earns you 93 points Sign in to use your points. Sign in",
    );
    expect(part(element, 'h2[part="title"]').textContent).toBe("Loyalty points");
    expect(part(element, '[part="earn"] strong').textContent).toBe("93");
    expect(part(element, '[role="status"] [part="earn"]')).toBeTruthy();
    const signIn = part<HTMLAnchorElement>(element, 'a[part="sign-in"]');
    expect(signIn.textContent).toBe("Sign in");
    expect(signIn.href).toBe("https://shop.example/account");
    expect(calculated()).toEqual([
      { domain: DOMAIN, product: "1001", categories: "10,12", price: "19.9" },
      { domain: DOMAIN, product: "1002", price: "5.5" },
      { domain: DOMAIN, price: "40" },
    ]);
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
    expect(requestsTo("/reward/list")).toEqual([]);
    expect(buttons(element, "claim-button")).toEqual([]);
    await expectAccessible();
  });

  it("asks once per distinct line", async () => {
    const line = { product: "7", price: 12, quantity: 1 };
    const element = await mount<LoyaltyCartWidget>(tag("", JSON.stringify([line, line, line])));
    expect(textOf(element)).toContain("This cart earns you 36 points");
    expect(calculated()).toHaveLength(1);
  });

  it("shows no earn line for an empty cart, and asks nothing", async () => {
    const empty = await mount<LoyaltyCartWidget>(tag("", "[]"));
    const none = await mount<LoyaltyCartWidget>(
      `<loyalty-cart-widget api-base="${API}" domain="${DOMAIN}"></loyalty-cart-widget>`,
    );
    for (const element of [empty, none]) {
      expect(textOf(element)).toBe("Loyalty points Sign in to use your points. Sign in");
    }
    expect(calculated()).toEqual([]);
  });

  it("leaves out the lines it cannot price and reads malformed JSON as an empty cart", async () => {
    const lines = [
      { price: 0.5, quantity: 3 },
      { product: "abc", price: 10, quantity: 1 },
      { categories: "10", price: 10, quantity: 1 },
      null,
      { price: 10, quantity: 0 },
      { price: "twelve", quantity: 1 },
      { price: 12, quantity: 2 },
    ];
    const element = await mount<LoyaltyCartWidget>(tag("", JSON.stringify(lines)));
    expect(textOf(element)).toContain("This cart earns you 24 points");
    expect(calculated()).toEqual([{ domain: DOMAIN, price: "12" }]);

    const malformed = await mount<LoyaltyCartWidget>(tag("", '[{"price": 10,'));
    expect(textOf(malformed)).toBe("Loyalty points Sign in to use your points. Sign in");
    malformed.setAttribute("items", JSON.stringify([{ price: 15, quantity: 1 }]));
    await expect.poll(() => textOf(malformed)).toContain("This cart earns you 15 points");
    malformed.setAttribute("items", "{oops");
    await expect.poll(() => textOf(malformed)).not.toContain("earns");
    malformed.items = "not an array" as never;
    malformed.setAttribute("items", JSON.stringify([{ price: 15, quantity: 1 }]));
    await expect.poll(() => textOf(malformed)).toContain("This cart earns you 15 points");
    malformed.items = { price: 15, quantity: 1 } as never;
    await expect.poll(() => textOf(malformed)).not.toContain("earns");
    expect(textOf(malformed)).toBe("Loyalty points Sign in to use your points. Sign in");
  });

  it("shows an identified customer their balance and the rewards they can afford", async () => {
    const element = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));

    expect(part(element, '[role="status"] [part="balance"]').textContent).toBe(
      "You have 620 points",
    );
    expect(textOf(element)).toContain("This cart earns you 93 points You have 620 points");
    expect(textOf(element)).not.toContain("Sign in");
    // 620 points afford the 300 and 500 rewards, not the 900 one.
    // The accessible name starts with the visible text (WCAG 2.5.3), then says which reward.
    expect(buttons(element, "claim-button")).toEqual([
      "Get my code, Free shipping, 300 points",
      "Get my code, €5 off, 500 points",
    ]);
    expect(textOf(element)).not.toContain("10% off");
    expect(part(element, '[part="claim-button"]').textContent?.trim()).toBe("Get my code");
    const [request] = requestsTo(`/point/user-history/${CUSTOMER.id}`);
    expect(new URL(request!.url).searchParams.get("hash")).toBe(CUSTOMER.hash);
    expect(new URL(request!.url).searchParams.get("domain")).toBe(DOMAIN);
    await expectAccessible();
  });

  it("offers only the rewards the customer can spend on, pending points aside", async () => {
    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(history({ pendingPoints: 200 })),
      ),
    );
    const element = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    await expect.poll(() => buttons(element, "claim-button")).toHaveLength(1);
    // 620 points, 200 of them pending: 420 afford the 300 reward, not yet the 500 one.
    expect(buttons(element, "claim-button")).toEqual(["Get my code, Free shipping, 300 points"]);
  });

  it("asks no history when the configuration shows neither balance nor rewards", async () => {
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ showBalance: false, showRewards: false })),
      ),
    );
    const element = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    expect(textOf(element)).toBe("Loyalty points This cart earns you 93 points");
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
    expect(requestsTo("/reward/list")).toEqual([]);
  });

  it("shows the balance without rewards, or the rewards without balance, as configured", async () => {
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ showRewards: false })),
      ),
    );
    const balanceOnly = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    expect(textOf(balanceOnly)).toBe(
      "Loyalty points This cart earns you 93 points You have 620 points",
    );
    expect(requestsTo("/reward/list")).toEqual([]);

    clearCache();
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ showBalance: false, claimButtonText: "" })),
      ),
    );
    const rewardsOnly = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    expect(rewardsOnly.shadowRoot!.querySelector('[part="balance"]')).toBeNull();
    // Without a text of the merchant's, the button says ours.
    expect(buttons(rewardsOnly, "claim-button")).toEqual([
      "Claim Free shipping for 300 points",
      "Claim €5 off for 500 points",
    ]);
    expect(part(rewardsOnly, '[part="claim-button"]').textContent?.trim()).toBe("Claim");
    await expectAccessible();
  });

  it("claims a reward: shows its code, focuses the copy button and updates the balance", async () => {
    const sent = serveClaims(() => HttpResponse.json(claimed, { status: 201 }));
    const element = await mountNarrow(tag(IDENTIFIED));
    // The store's script listens outside the widget: the event crosses the shadow root.
    const events: RewardClaimedDetail[] = [];
    element.parentElement!.addEventListener("loyalty-reward-claimed", (event) =>
      events.push((event as CustomEvent<RewardClaimedDetail>).detail),
    );

    await userEvent.click(page.getByRole("button", { name: "Get my code, €5 off, 500 points" }));
    // Nothing is spent before the customer says so, with the points and the reward named.
    await expect
      .poll(() => element.shadowRoot!.activeElement?.getAttribute("part"))
      .toBe("confirm-button");
    expect(part(element, '[part="confirm"]').textContent?.replace(/\s+/g, " ").trim()).toBe(
      "Spend 500 points on €5 off? Confirm Cancel",
    );
    expect(sent).toEqual([]);
    await expectAccessible();
    await userEvent.keyboard("{Enter}");

    await expect.poll(() => textOf(element)).toContain("Your code for €5 off LOYAL-5OFF");
    expect(part(element, '[part="balance"]').textContent).toBe("You have 120 points");
    await expect
      .poll(() => element.shadowRoot!.activeElement?.getAttribute("part"))
      .toBe("copy-button");
    expect(element.shadowRoot!.activeElement?.textContent?.trim()).toBe("Copy code");
    // 120 points no longer afford free shipping; the claimed reward keeps showing its code.
    expect(textOf(element)).not.toContain("Free shipping");
    expect(buttons(element, "claim-button")).toEqual([]);
    expect(events).toEqual([
      {
        rewardId: 2,
        code: "LOYAL-5OFF",
        pointsSpent: 500,
        balance: 120,
        expiresAt: claimed.expiresAt,
        // Whose balance it was, for the page's other widgets.
        domain: DOMAIN,
        customerId: CUSTOMER.id,
      },
    ]);

    expect(sent).toHaveLength(1);
    const [claim] = sent;
    expect(claim!.url.pathname).toBe(`/reward/claim/${CUSTOMER.id}`);
    expect(claim!.url.searchParams.get("hash")).toBe(CUSTOMER.hash);
    expect(claim!.headers.get("revision")).toBe("2026-08-26");
    expect(claim!.headers.get("content-type")).toBe("application/json");
    expect(claim!.headers.get("idempotency-key")).toMatch(/^[0-9a-f]{32}$/);
    expect(claim!.body).toEqual({ rewardId: 2 });

    const root = part(element, '[part="base"]');
    expect(root.scrollWidth).toBeLessThanOrEqual(root.clientWidth);
    await expectAccessible();
  });

  it("explains a refusal and leaves the balance as it was", async () => {
    serveClaims(() =>
      HttpResponse.json(claimRefusalSchema.parse({ code: null, reason: "insufficient-balance" }), {
        status: 404,
      }),
    );
    const element = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    const events: Event[] = [];
    element.parentElement!.addEventListener("loyalty-reward-claimed", (event) =>
      events.push(event),
    );

    await claimReward("Get my code, Free shipping, 300 points");

    await expect
      .poll(() => element.shadowRoot!.querySelector('[role="alert"]')?.textContent)
      .toBe("You do not have enough points for this reward.");
    expect(part(element, '[part="balance"]').textContent).toBe("You have 620 points");
    expect(element.shadowRoot!.querySelector("code")).toBeNull();
    expect(events).toEqual([]);
    await expectAccessible();
  });

  it("says the claim failed when the API answers with a problem", async () => {
    const problem = problemSchema.parse({
      type: "https://api.loyalty.test/problems/platform-unavailable",
      title: "The store platform did not answer",
      status: 502,
      detail: "The store platform did not answer in time.",
      instance: `/reward/claim/${CUSTOMER.id}`,
    });
    serveClaims(
      () =>
        new HttpResponse(JSON.stringify(problem), {
          status: 502,
          headers: { "content-type": PROBLEM_CONTENT_TYPE },
        }),
    );
    const element = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));

    await claimReward("Get my code, €5 off, 500 points");

    await expect
      .poll(() => element.shadowRoot!.querySelector('[role="alert"]')?.textContent)
      .toBe("The reward could not be claimed. Please try again.");
    expect(part(element, '[part="balance"]').textContent).toBe("You have 620 points");
    expect(buttons(element, "claim-button")).toHaveLength(2);
  });

  it("recomputes once when the cart changes several times in a row", async () => {
    const element = await mount<LoyaltyCartWidget>(
      tag("", JSON.stringify([{ price: 10, quantity: 1 }])),
    );
    expect(textOf(element)).toContain("This cart earns you 10 points");
    // Each change on its own frame, as a quantity stepper clicked quickly makes them.
    const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    element.items = [{ price: 20, quantity: 1 }];
    await nextFrame();
    element.items = [{ price: 25, quantity: 1 }];
    await nextFrame();
    element.setAttribute(
      "items",
      JSON.stringify([
        { price: 30, quantity: 2 },
        { price: 7, quantity: 1 },
      ]),
    );
    await new Promise((resolve) => requestAnimationFrame(resolve));
    // The previous figure stays until the new one arrives.
    expect(textOf(element)).toContain("This cart earns you 10 points");
    await expect.poll(() => textOf(element)).toContain("This cart earns you 67 points");
    expect(calculated().map((query) => query["price"])).toEqual(["10", "30", "7"]);
    expect(requestsTo("/store/widget/cart")).toHaveLength(1);
  });

  it("asks a customer whose hash is stale to sign in again, and keeps the earn line", async () => {
    const element = await mount<LoyaltyCartWidget>(
      tag(`customer-id="${CUSTOMER.id}" customer-hash="${"cd".repeat(64)}"`),
    );
    expect(textOf(element)).toBe(
      "Loyalty points This cart earns you 93 points Your session has expired: sign in again to see your points. Sign in",
    );
    expect(element.shadowRoot!.querySelector('[part="balance"]')).toBeNull();
    expect(buttons(element, "claim-button")).toEqual([]);
  });

  it("shows nothing when the merchant disabled it", async () => {
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ enabled: false })),
      ),
    );
    const element = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    expect(textOf(element)).toBe("");
    expect(element.getBoundingClientRect().height).toBe(0);
  });

  it("takes the same space loading and failed, so the cart page never moves", async () => {
    serve(
      http.get(`${API}/store/widget/cart`, async () => {
        await delay(300);
        return HttpResponse.json(cartResponse());
      }),
    );
    const container = document.createElement("div");
    container.style.inlineSize = "320px";
    container.innerHTML = tag();
    document.body.append(container);
    const element = container.firstElementChild as LoyaltyCartWidget;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const loading = element.getBoundingClientRect().height;
    expect(loading).toBeGreaterThan(0);
    expect(part(element, '[part="base"]').getAttribute("aria-busy")).toBe("true");
    expect(part(element, ".skeleton")).toBeTruthy();
    await element.updateComplete;
    expect(part(element, '[part="base"]').getAttribute("aria-busy")).toBe("false");
    expect(textOf(element)).toContain("93");

    serve(http.get(`${API}/point/product-points/calculate-many`, () => HttpResponse.error()));
    const failed = await mountNarrow(tag("", JSON.stringify([{ price: 3, quantity: 1 }])));
    expect(textOf(failed)).toBe("The loyalty programme is unavailable right now.");
    expect(failed.getBoundingClientRect().height).toBe(loading);
  });

  it("says the programme is unavailable when the API is unreachable or the store unknown, and never throws", async () => {
    serve(http.get(`${API}/store/widget/cart`, () => HttpResponse.error()));
    const unreachable = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    expect(textOf(unreachable)).toBe("The loyalty programme is unavailable right now.");
    expect(part(unreachable, '[part="base"]').getAttribute("aria-busy")).toBe("false");

    const unknown = await mount<LoyaltyCartWidget>(
      `<loyalty-cart-widget api-base="${API}" domain="https://other.example"></loyalty-cart-widget>`,
    );
    expect(textOf(unknown)).toBe("The loyalty programme is unavailable right now.");
    await expectAccessible();
  });

  it("writes in the store's language, never mixed with the element's", async () => {
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(
          cartResponse(
            {
              title: "Fidélité",
              earnTemplate: "Ce panier vous rapporte {points} points",
              balanceTemplate: "Vous avez {points} points",
              signedOutText: "Connectez-vous pour utiliser vos points.",
              claimButtonText: "Obtenir mon code",
            },
            { language: "fr" },
          ),
        ),
      ),
    );
    const big = JSON.stringify([{ price: 12345, quantity: 1 }]);
    const visitor = await mount<LoyaltyCartWidget>(tag("", big));
    // French groups digits with a narrow no-break space (textOf writes every space as " ").
    expect(part(visitor, "strong").textContent).toBe("12\u202f345");
    expect(textOf(visitor)).toBe(
      "Fidélité Ce panier vous rapporte 12 345 points Connectez-vous pour utiliser vos points. Se connecter",
    );

    const customer = await mount<LoyaltyCartWidget>(tag(IDENTIFIED));
    expect(textOf(customer)).toContain("Récompenses disponibles");
    expect(buttons(customer, "claim-button")).toContain("Obtenir mon code, €5 off, 500 points");

    const stale = await mount<LoyaltyCartWidget>(
      tag(`customer-id="${CUSTOMER.id}" customer-hash="stale"`),
    );
    expect(textOf(stale)).toContain(
      "Votre session a expiré : reconnectez-vous pour voir vos points.",
    );

    // An English page, but the merchant wrote no English: the widget stays in one language.
    const english = await mount<LoyaltyCartWidget>(tag('lang="en"', big));
    expect(textOf(english)).toBe(textOf(visitor));
  });

  it("takes its accent from the configuration, the store's branding, or the merchant's CSS", async () => {
    const branded = await mount<LoyaltyCartWidget>(tag());
    expect(getComputedStyle(part(branded, "strong")).color).toBe("rgb(107, 63, 160)");

    const themed = await mount<LoyaltyCartWidget>(
      tag('style="--loyalty-accent-color: rgb(200, 0, 0)"'),
    );
    expect(getComputedStyle(part(themed, "strong")).color).toBe("rgb(200, 0, 0)");

    clearCache();
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ accentColor: "#0b6e4f" })),
      ),
    );
    const configured = await mount<LoyaltyCartWidget>(tag());
    expect(getComputedStyle(part(configured, "strong")).color).toBe("rgb(11, 110, 79)");
  });

  it("fits a 320 px screen with its rewards", async () => {
    const element = await mountNarrow(tag(IDENTIFIED));
    const root = part(element, '[part="base"]');
    expect(element.getBoundingClientRect().width).toBe(320);
    expect(root.scrollWidth).toBeLessThanOrEqual(root.clientWidth);
    for (const button of element.shadowRoot!.querySelectorAll('[part="claim-button"]')) {
      expect(button.getBoundingClientRect().right).toBeLessThanOrEqual(
        element.getBoundingClientRect().right,
      );
    }
  });
});
