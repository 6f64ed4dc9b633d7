import { describe, expect, it } from "vitest";
import { userEvent } from "vitest/browser";
import { claimRewardResponseSchema, type CustomerHistoryResponseV2 } from "@loyalty/shared-types";
import {
  API,
  HttpResponse,
  http,
  requests,
  requestsTo,
  serve,
  useApiMock,
} from "../../test/support/api-mock.js";
import {
  CUSTOMER,
  DOMAIN,
  cartResponse,
  history,
  presentationResponse,
  productPointsResponse,
  rewards,
} from "../../test/support/fixtures.js";
import { claimReward, mount, part, textOf } from "../../test/support/dom.js";
import { clearCache } from "./api.js";
import { configure, type LoyaltyElement } from "./element.js";
import "../index.js";
import type {
  LoyaltyCartWidget,
  LoyaltyProductPoints,
  LoyaltyProgramPresentation,
} from "../index.js";

useApiMock();

const OTHER = { id: "43", hash: "cd".repeat(64) };
const identified = (customer = CUSTOMER) =>
  `api-base="${API}" domain="${DOMAIN}" customer-id="${customer.id}" customer-hash="${customer.hash}"`;
const cartTag = (customer = CUSTOMER) =>
  `<loyalty-cart-widget ${identified(customer)} items='[{"price":10,"quantity":1}]'></loyalty-cart-widget>`;

/** Claims succeed with a code per reward, the balance (history included) going down from 620. */
function serveClaims() {
  let balance = 620;
  serve(
    http.get(`${API}/point/user-history/:id`, ({ params }) =>
      params["id"] === CUSTOMER.id
        ? HttpResponse.json(history({ balance }))
        : HttpResponse.json(history({ externalId: Number(params["id"]) })),
    ),
    http.post(`${API}/reward/claim/:id`, async ({ request }) => {
      const { rewardId } = (await request.json()) as { rewardId: number };
      const reward = rewards.find((candidate) => candidate.id === rewardId)!;
      balance -= reward.triggerValue;
      return HttpResponse.json(
        claimRewardResponseSchema.parse({
          code: `CODE-${rewardId}`,
          rewardId,
          pointsSpent: reward.triggerValue,
          balance,
          expiresAt: null,
          voucher: reward.voucher,
        }),
        { status: 201 },
      );
    }),
  );
}

/** A widget given its draft before it first loads, as the back-office's live preview does. */
async function preview<T extends LoyaltyElement>(markup: string, draft: object): Promise<T> {
  const container = document.createElement("div");
  container.innerHTML = markup;
  const element = container.firstElementChild as T;
  element.previewConfig = draft;
  document.body.append(container);
  await element.updateComplete;
  return element;
}

/** From now on, every change of the widget's loading state (`aria-busy`), however brief. */
function loadingChanges(element: Element): () => MutationRecord[] {
  const seen: MutationRecord[] = [];
  const observer = new MutationObserver((records) => seen.push(...records));
  observer.observe(element.shadowRoot!, { subtree: true, attributeFilter: ["aria-busy"] });
  return () => [...seen, ...observer.takeRecords()];
}

describe("what the widgets share", () => {
  it("loads widgets placed before configure() once it is called", async () => {
    const element = await mount<LoyaltyCartWidget>(
      `<loyalty-product-points price="12"></loyalty-product-points>`,
    );
    expect(textOf(element)).toBe("");
    configure({ apiBase: API, domain: DOMAIN });
    await expect.poll(() => textOf(element)).toBe("Earn 12 points with this product");
    configure({ apiBase: undefined, domain: undefined });
  });

  it("shows a draft configuration set in previewConfig, then the saved one when it is cleared", async () => {
    const element = await mount<LoyaltyProductPoints>(
      `<loyalty-product-points api-base="${API}" domain="${DOMAIN}" price="12"></loyalty-product-points>`,
    );
    expect(textOf(element)).toBe("Earn 12 points with this product");

    element.previewConfig = { template: "Gagnez {points} points" };
    await expect.poll(() => textOf(element)).toBe("Gagnez 12 points");
    element.previewConfig = { template: "Gagnez {points} points", enabled: false };
    await expect.poll(() => textOf(element)).toBe("");

    element.previewConfig = undefined;
    await expect.poll(() => textOf(element)).toBe("Earn 12 points with this product");
  });

  it("applies each draft of previewConfig at once, with no request and no loading state, until the product or price changes", async () => {
    const saved = productPointsResponse().config;
    const element = await preview<LoyaltyProductPoints>(
      `<loyalty-product-points api-base="${API}" domain="${DOMAIN}" price="12"></loyalty-product-points>`,
      { ...saved, template: "G {points}" },
    );
    expect(textOf(element)).toBe("G 12");
    // The first load is a storefront's: the points come from the API, once.
    expect(requestsTo("/store/widget/product-points")).toHaveLength(1);
    expect(requestsTo("/point/product-points/calculate-many")).toHaveLength(1);

    const loading = loadingChanges(element);
    for (const template of ["Ga {points}", "Gag {points}", "Gagnez {points} points"]) {
      element.previewConfig = { ...saved, template };
      await element.updateComplete;
      expect(textOf(element)).toBe(template.replace("{points}", "12"));
    }
    element.previewConfig = { ...saved, enabled: false };
    await element.updateComplete;
    expect(textOf(element)).toBe("");
    element.previewConfig = { ...saved, template: "Gagnez {points} points" };
    await element.updateComplete;
    expect(textOf(element)).toBe("Gagnez 12 points");
    expect(loading()).toEqual([]);
    expect(requests).toHaveLength(2);

    // What is fetched still follows the attributes: another price asks for its points.
    element.price = 30;
    await expect.poll(() => textOf(element)).toBe("Gagnez 30 points");
    expect(requestsTo("/point/product-points/calculate-many")).toHaveLength(2);
  });

  it("loads the sections a draft may show, so that a programme page's preview never asks again", async () => {
    // Saved without rewards: a storefront would not read them.
    const saved = presentationResponse(
      { secondaryButtonText: undefined, secondaryButtonAction: undefined },
      { rewards: { enabled: false, title: "Rewards" } },
    ).config;
    serve(
      http.get(`${API}/store/widget/program-presentation`, () =>
        HttpResponse.json({ ...presentationResponse(), config: saved }),
      ),
    );
    const draft = (text: string, rewardsShown: boolean) => ({
      ...saved,
      header: { ...saved.header, text },
      sections: { ...saved.sections, rewards: { enabled: rewardsShown, title: "Rewards" } },
    });
    const element = await preview<LoyaltyProgramPresentation>(
      `<loyalty-program-presentation api-base="${API}" domain="${DOMAIN}"></loyalty-program-presentation>`,
      draft("W", false),
    );
    const headerText = () => part(element, '[part="header-text"]').textContent;
    const sections = () =>
      [...element.shadowRoot!.querySelectorAll("section")].map((section) => section.id);
    expect(headerText()).toBe("W");
    expect(sections()).toEqual(["howToEarn", "history", "faq"]);
    const loaded = requests.length;

    const loading = loadingChanges(element);
    for (const text of ["We", "Wel", "Welcome"]) {
      element.previewConfig = draft(text, false);
      await element.updateComplete;
      expect(headerText()).toBe(text);
    }
    element.previewConfig = draft("Welcome", true);
    await element.updateComplete;
    expect(sections()).toEqual(["howToEarn", "rewards", "history", "faq"]);
    expect(textOf(part(element, "#rewards"))).toContain("Free shipping");
    expect(loading()).toEqual([]);
    expect(requests).toHaveLength(loaded);
    expect(requestsTo("/store/widget/program-presentation")).toHaveLength(1);
    expect(requestsTo("/reward/list")).toHaveLength(1);
  });

  it("loads once more when a preview starts after a storefront's load, then never again", async () => {
    const saved = cartResponse({ showBalance: false, showRewards: false }).config;
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json({ ...cartResponse(), config: saved }),
      ),
    );
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    expect(textOf(cart)).toBe("Loyalty points This cart earns you 10 points");
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);

    // A draft may show the balance: the preview reads it once, the draft applied meanwhile.
    cart.previewConfig = { ...saved, title: "Points" };
    await expect.poll(() => requestsTo(`/point/user-history/${CUSTOMER.id}`)).toHaveLength(1);
    await cart.updateComplete;
    expect(textOf(cart)).toBe("Points This cart earns you 10 points");
    const loaded = requests.length;

    const loading = loadingChanges(cart);
    cart.previewConfig = { ...saved, title: "Points", showBalance: true };
    await cart.updateComplete;
    expect(textOf(cart)).toBe("Points This cart earns you 10 points You have 620 points");
    cart.previewConfig = { ...saved, enabled: false };
    await cart.updateComplete;
    expect(textOf(cart)).toBe("");
    expect(loading()).toEqual([]);
    expect(requests).toHaveLength(loaded);
  });

  it("tells the page's other widgets of the same customer about a claim, and no one else", async () => {
    serveClaims();
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    const programme = await mount<LoyaltyProgramPresentation>(
      `<loyalty-program-presentation ${identified()}></loyalty-program-presentation>`,
    );
    expect(part(programme, '[part="balance"]').textContent).toBe("620 points");

    await claimReward(/^Get my code, €5 off/);
    await expect.poll(() => part(programme, '[part="balance"]').textContent).toBe("120 points");
    expect(textOf(cart)).toContain("You have 120 points");

    // Another customer's claim (another tab's widget, a script) changes nothing here.
    window.dispatchEvent(
      new CustomEvent("loyalty-reward-claimed", {
        detail: {
          rewardId: 1,
          code: "X",
          pointsSpent: 300,
          balance: 5,
          expiresAt: null,
          domain: DOMAIN,
          customerId: OTHER.id,
        },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(part(programme, '[part="balance"]').textContent).toBe("120 points");
    expect(textOf(cart)).toContain("You have 120 points");
  });

  it("never shows one customer's code to the next (a sign-out without a page load)", async () => {
    serveClaims();
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    await claimReward(/^Get my code, Free shipping/);
    await expect.poll(() => cart.shadowRoot!.querySelector("code")?.textContent).toBe("CODE-1");

    cart.setAttribute("customer-id", OTHER.id);
    cart.setAttribute("customer-hash", OTHER.hash);
    await cart.updateComplete;
    await expect.poll(() => textOf(cart)).toContain("You have 620 points");
    expect(cart.shadowRoot!.querySelector("code")).toBeNull();
    expect(textOf(cart)).not.toContain("CODE-1");
  });

  it("keeps the keyboard focus on a claim button the API refused", async () => {
    serve(
      http.post(`${API}/reward/claim/:id`, () =>
        HttpResponse.json({ code: null, reason: "voucher-inactive" }, { status: 404 }),
      ),
    );
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    const button = part<HTMLButtonElement>(cart, '[part="claim-button"]');
    button.focus();
    await userEvent.keyboard("{Enter}");
    await expect
      .poll(() => cart.shadowRoot!.activeElement?.getAttribute("part"))
      .toBe("confirm-button");
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => textOf(cart)).toContain("This reward is no longer available.");
    // The same reward's claim button, drawn again after the confirmation.
    expect(cart.shadowRoot!.activeElement?.id).toBe(button.id);
    expect(cart.shadowRoot!.activeElement?.getAttribute("part")).toBe("claim-button");
  });

  it("copies a code to the clipboard and says so to screen readers", async () => {
    serveClaims();
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    await claimReward(/^Get my code, €5 off/);
    const status = () => part(cart, '.sr-only[role="status"]').textContent;
    await expect.poll(status).toBe("Your code for €5 off: CODE-2");
    const copy = part<HTMLButtonElement>(cart, '[part="copy-button"]');
    expect(cart.shadowRoot!.activeElement).toBe(copy);
    expect(
      cart.shadowRoot!.getElementById(copy.getAttribute("aria-describedby")!)!.textContent,
    ).toBe("CODE-2");
    await userEvent.click(copy);
    await expect.poll(() => copy.textContent?.trim()).toBe("Copied");
    expect(await navigator.clipboard.readText()).toBe("CODE-2");
    expect(status()).toBe("Copied");
  });
});

describe("values a later API may add", () => {
  it("explains a refusal reason it does not know as a failed claim", async () => {
    serve(
      http.post(`${API}/reward/claim/:id`, () =>
        HttpResponse.json({ code: null, reason: "points-frozen" }, { status: 404 }),
      ),
    );
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    await claimReward(/^Get my code, €5 off/);
    await expect
      .poll(() => textOf(cart))
      .toContain("The reward could not be claimed. Please try again.");
  });

  it("shows a programme page with a ledger kind and a button action it does not know", async () => {
    const response = presentationResponse();
    const config = {
      ...response.config,
      header: { ...response.config.header, primaryButtonAction: "scroll-reviews" },
    };
    const page1 = history();
    const newKind: CustomerHistoryResponseV2 = {
      ...page1,
      transactions: [
        { ...page1.transactions[0]!, kind: "birthday_bonus" as "earn" },
        ...page1.transactions.slice(1),
      ],
    };
    serve(
      http.get(`${API}/store/widget/program-presentation`, () =>
        HttpResponse.json({ ...response, config }),
      ),
      http.get(`${API}/point/user-history/:id`, () => HttpResponse.json(newKind)),
    );
    const programme = await mount<LoyaltyProgramPresentation>(
      `<loyalty-program-presentation ${identified()}></loyalty-program-presentation>`,
    );
    expect(programme.shadowRoot!.querySelector('[part="primary-button"]')).toBeNull();
    expect(part(programme, '[part="secondary-button"]').textContent?.trim()).toBe("Our rewards");
    expect(programme.shadowRoot!.querySelectorAll('[part="transaction"]')).toHaveLength(2);
    // The row of the unknown kind keeps its order and points; the others read as usual.
    expect(textOf(programme)).toContain("1002");
    expect(textOf(programme)).toContain("+120 points");
    expect(textOf(programme)).toContain("Order 1001");
    expect(requestsTo("/point/user-history/42")).toHaveLength(1);
  });
});

describe("asking again", () => {
  const productTag = (price: number) =>
    `<loyalty-product-points api-base="${API}" domain="${DOMAIN}" price="${price}"></loyalty-product-points>`;

  it("never asks again what the server refused (an unknown store, a rate limit), on this page", async () => {
    for (const status of [404, 429]) {
      serve(
        http.get(`${API}/store/widget/product-points`, () =>
          HttpResponse.json({ statusCode: status, error: "Refused", message: "no" }, { status }),
        ),
      );
      const first = await mount<LoyaltyProductPoints>(productTag(10));
      const second = await mount<LoyaltyProductPoints>(productTag(11));
      // A render asking again: the price changed, past the picker's settling time.
      first.price = 12;
      await new Promise((resolve) => setTimeout(resolve, 400));
      await first.updateComplete;
      expect(textOf(first) + textOf(second)).toBe("");
      expect(requestsTo("/store/widget/product-points")).toHaveLength(1);
      requests.length = 0;
      clearCache();
    }
  });

  it("asks again what could not be answered (the network, a server error) on the next render", async () => {
    let calls = 0;
    serve(
      http.get(`${API}/store/widget/product-points`, () => {
        calls += 1;
        return calls === 1
          ? HttpResponse.json(
              { statusCode: 503, error: "Unavailable", message: "x" },
              { status: 503 },
            )
          : HttpResponse.json(productPointsResponse());
      }),
    );
    const element = await mount<LoyaltyProductPoints>(productTag(10));
    expect(textOf(element)).toBe("");
    element.price = 20;
    await expect.poll(() => textOf(element)).toBe("Earn 20 points with this product");
    expect(requestsTo("/store/widget/product-points")).toHaveLength(2);
  });
});
