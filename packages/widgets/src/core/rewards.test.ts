import { describe, expect, it } from "vitest";
import { page, userEvent } from "vitest/browser";
import { claimRewardResponseSchema, rewardListResponseSchema } from "@loyalty/shared-types";
import { API, HttpResponse, http, serve, useApiMock } from "../../test/support/api-mock.js";
import { CUSTOMER, DOMAIN, cartResponse, rewards } from "../../test/support/fixtures.js";
import { claimReward, expectAccessible, mount, part, textOf } from "../../test/support/dom.js";
import type { LoyaltyCartWidget } from "../cart-widget/cart-widget.js";
import "../cart-widget/cart-widget.js";

useApiMock();

const tag = (attributes = "") =>
  `<loyalty-cart-widget api-base="${API}" domain="${DOMAIN}" customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}" items='[{"price":10,"quantity":1}]' ${attributes}></loyalty-cart-widget>`;

/** €5 off from €50, valid 30 days: the fixture's second reward with a minimum order. */
const fiveOff = { ...rewards[1]!, voucher: { ...rewards[1]!.voucher, minimumOrderAmount: 50 } };

/** Claims succeed with the reward's code; every request is kept. */
function serveClaims() {
  const sent: unknown[] = [];
  serve(
    http.get(`${API}/reward/list`, () =>
      HttpResponse.json(rewardListResponseSchema.parse([rewards[0], fiveOff])),
    ),
    http.post(`${API}/reward/claim/:id`, async ({ request }) => {
      const body = (await request.json()) as { rewardId: number };
      sent.push(body);
      const reward = body.rewardId === fiveOff.id ? fiveOff : rewards[0]!;
      return HttpResponse.json(
        claimRewardResponseSchema.parse({
          code: `CODE-${reward.id}`,
          rewardId: reward.id,
          pointsSpent: reward.triggerValue,
          balance: 620 - reward.triggerValue,
          expiresAt: "2026-12-31T00:00:00.000Z",
          voucher: reward.voucher,
        }),
        { status: 201 },
      );
    }),
  );
  return sent;
}

const focused = (element: LoyaltyCartWidget) => element.shadowRoot!.activeElement;

describe("claiming a reward", () => {
  it("spends nothing until the customer confirms: Escape and Cancel leave the list as it was", async () => {
    const sent = serveClaims();
    const element = await mount<LoyaltyCartWidget>(tag());
    const claimButton = () => part<HTMLButtonElement>(element, "#claim-2");

    claimButton().focus();
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => focused(element)?.textContent?.trim()).toBe("Confirm");
    expect(part(element, "#ask-2").textContent?.trim()).toBe("Spend 500 points on €5 off?");
    await userEvent.keyboard("{Escape}");
    await expect.poll(() => focused(element)?.id).toBe("claim-2");
    expect(element.shadowRoot!.querySelector('[part="confirm"]')).toBeNull();

    await userEvent.keyboard("{Enter}");
    await expect.poll(() => focused(element)?.textContent?.trim()).toBe("Confirm");
    await userEvent.keyboard("{Tab}");
    expect(focused(element)?.textContent?.trim()).toBe("Cancel");
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => focused(element)?.id).toBe("claim-2");

    expect(sent).toEqual([]);
    expect(textOf(element)).toContain("You have 620 points");
  });

  it("writes a voucher's minimum order in the voucher's currency, not the store's", async () => {
    serveClaims();
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({}, { currency: "CHF" })),
      ),
    );
    const element = await mount<LoyaltyCartWidget>(tag());
    expect(part(element, "#terms-2").textContent?.trim()).toBe(
      "On orders of €50.00 or more · Valid 30 days once claimed",
    );
    await claimReward("Get my code, €5 off, 500 points");
    await expect
      .poll(() => element.shadowRoot!.querySelector('[part="code-conditions"]')?.textContent)
      .toBe("Valid until Dec 31, 2026 · On orders of €50.00 or more");
  });

  it("names the reward's conditions before the claim and keeps them beside the code after it", async () => {
    serveClaims();
    const element = await mount<LoyaltyCartWidget>(tag());
    const terms = part(element, "#terms-2");
    expect(terms.textContent?.trim()).toBe(
      "On orders of €50.00 or more · Valid 30 days once claimed",
    );
    // A screen reader hears them with the button, and again with the confirmation's.
    expect(claimDescription(element, "#claim-2")).toContain(terms.textContent?.trim());

    await userEvent.click(page.getByRole("button", { name: "Get my code, €5 off, 500 points" }));
    expect(claimDescription(element, '[part="confirm-button"]')).toBe(terms.textContent?.trim());
    await expectAccessible();
    await userEvent.click(page.getByRole("button", { name: "Confirm", exact: true }));

    await expect
      .poll(() => element.shadowRoot!.querySelector('[part="code-conditions"]')?.textContent)
      .toBe("Valid until Dec 31, 2026 · On orders of €50.00 or more");
    expect(part(element, "#code-2").textContent).toBe("CODE-2");
    await expectAccessible();
  });

  it("writes the conditions and the confirmation in the page's language", async () => {
    serveClaims();
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ claimButtonText: "" }, { language: "fr" })),
      ),
    );
    const element = await mount<LoyaltyCartWidget>(tag());
    expect(part(element, "#terms-2").textContent?.trim()).toBe(
      "Dès 50,00\u00a0€ d’achat · Valable 30\u00a0jours après l’obtention",
    );
    await userEvent.click(page.getByRole("button", { name: /^Obtenir €5 off/ }));
    expect(part(element, "#ask-2").textContent?.trim()).toBe("Dépenser 500 points pour €5 off ?");
    await userEvent.click(page.getByRole("button", { name: "Confirmer", exact: true }));
    await expect
      .poll(() => element.shadowRoot!.querySelector('[part="code-conditions"]')?.textContent)
      .toBe("Valable jusqu’au 31 déc. 2026 · Dès 50,00\u00a0€ d’achat");
  });

  it("claims at once when the merchant turned the confirmation off", async () => {
    const sent = serveClaims();
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ confirmClaims: false })),
      ),
    );
    const element = await mount<LoyaltyCartWidget>(tag());
    await userEvent.click(page.getByRole("button", { name: "Get my code, €5 off, 500 points" }));
    await expect.poll(() => element.shadowRoot!.querySelector("code")?.textContent).toBe("CODE-2");
    expect(sent).toEqual([{ rewardId: 2 }]);
    expect(element.shadowRoot!.querySelector('[part="confirm"]')).toBeNull();
  });
});

/** The text of the elements an element's aria-describedby names, in order. */
function claimDescription(element: LoyaltyCartWidget, selector: string): string {
  const ids = part(element, selector).getAttribute("aria-describedby")?.split(" ") ?? [];
  return ids.map((id) => element.shadowRoot!.getElementById(id)?.textContent?.trim()).join(" ");
}
