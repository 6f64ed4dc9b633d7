import { afterEach, describe, expect, it } from "vitest";
import { page, userEvent } from "vitest/browser";
import { delay } from "msw";
import { claimRewardResponseSchema, createReferralResponseSchema } from "@loyalty/shared-types";
import {
  API,
  HttpResponse,
  http,
  requestsTo,
  serve,
  useApiMock,
} from "../../test/support/api-mock.js";
import {
  CUSTOMER,
  DOMAIN,
  codes,
  history,
  launcherResponse,
  rewards,
} from "../../test/support/fixtures.js";
import { expectAccessible, mount, part, textOf } from "../../test/support/dom.js";
import type { LoyaltyLauncher } from "./launcher.js";
import "./launcher.js";

useApiMock();

const IDENTIFIED = `customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}"`;
const tag = (attributes = "") =>
  `<loyalty-launcher api-base="${API}" domain="${DOMAIN}" ${attributes}></loyalty-launcher>`;

const button = (element: LoyaltyLauncher) => part<HTMLButtonElement>(element, '[part="button"]');
const dialog = (element: LoyaltyLauncher) => part<HTMLDialogElement>(element, "dialog");
const focused = (element: LoyaltyLauncher) => element.shadowRoot!.activeElement;
const panelText = (element: LoyaltyLauncher) =>
  (dialog(element).textContent ?? "").replace(/\s+/g, " ").trim();

/** Opens the panel with the keyboard, as a shopper tabbing to the button does. */
async function openByKeyboard(element: LoyaltyLauncher) {
  button(element).focus();
  await userEvent.keyboard("{Enter}");
  await expect.poll(() => dialog(element).open).toBe(true);
}

/** Waits for the panel's data to be shown. */
const loaded = (element: LoyaltyLauncher) =>
  expect.poll(() => element.shadowRoot!.querySelector(".loading")).toBeNull();

/** What a browser that refuses the page answers: a promise rejected with NotAllowedError. */
const denied = () => Promise.reject(new DOMException("denied", "NotAllowedError"));

/** Puts `value` in place of `object[name]` (a browser API); the returned function puts it back. */
function replace(object: object, name: string, value: unknown): () => void {
  const before = Object.getOwnPropertyDescriptor(object, name);
  Object.defineProperty(object, name, { configurable: true, value });
  return () => {
    if (before) Object.defineProperty(object, name, before);
    else Reflect.deleteProperty(object, name);
  };
}

/**
 * A signed-in customer's launcher after inviting ana@example.com by keyboard (the API accepts
 * with the hash `h4sh`), its focus on the share button.
 */
async function invitedByKeyboard(): Promise<LoyaltyLauncher> {
  serve(
    http.post(`${API}/point/referral`, () =>
      HttpResponse.json(
        { hash: "h4sh", status: "pending", email: "ana@example.com" },
        { status: 201 },
      ),
    ),
  );
  const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
  await openByKeyboard(element);
  await loaded(element);
  await userEvent.fill(page.getByLabelText("Your friend's email"), "ana@example.com");
  await userEvent.keyboard("{Enter}");
  await expect.poll(() => focused(element)?.textContent?.trim()).toBe("Share the invitation link");
  return element;
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe("<loyalty-launcher>", () => {
  it("shows a floating button, and asks nothing more until the shopper opens it", async () => {
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    const launcher = button(element);
    expect(launcher.textContent?.trim()).toBe("Rewards");
    expect(launcher.getAttribute("aria-haspopup")).toBe("dialog");
    expect(launcher.getAttribute("aria-expanded")).toBe("false");
    expect(getComputedStyle(launcher).position).toBe("fixed");
    const box = launcher.getBoundingClientRect();
    // Bottom right, clear of the window's edges.
    expect(innerWidth - box.right).toBeGreaterThanOrEqual(8);
    expect(innerHeight - box.bottom).toBeGreaterThanOrEqual(8);
    expect(requestsTo("/store/widget/launcher")).toHaveLength(1);
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
    expect(requestsTo("/reward/list")).toEqual([]);
    expect(dialog(element).open).toBe(false);
    await expectAccessible();
  });

  it("opens the visitor's panel by keyboard: the pitch, join and sign in; Escape gives focus back", async () => {
    const element = await mount<LoyaltyLauncher>(tag());
    await openByKeyboard(element);
    await loaded(element);

    expect(focused(element)?.getAttribute("part")).toBe("close-button");
    expect(button(element).getAttribute("aria-expanded")).toBe("true");
    expect(part(element, "#title").textContent).toBe("Shop rewards");
    expect(panelText(element)).toContain("Join Shop rewards: points on every order.");
    const join = part<HTMLAnchorElement>(element, '[part="join"]');
    expect([join.textContent, join.href]).toEqual([
      "Join",
      "https://shop.example/account/register",
    ]);
    const signIn = part<HTMLAnchorElement>(element, '[part="sign-in"]');
    expect([signIn.textContent, signIn.href]).toEqual(["Sign in", "https://shop.example/account"]);
    expect(panelText(element)).toContain("Ways to earn Shop 1 point per euro spent.");
    expect(panelText(element)).toContain("Free shipping 300 points");
    // A visitor claims nothing and has no codes: none of the customer's reads were made.
    expect(element.shadowRoot!.querySelectorAll('[part="claim-button"]')).toHaveLength(0);
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
    expect(requestsTo(`/reward/codes/${CUSTOMER.id}`)).toEqual([]);
    await expectAccessible();

    await userEvent.keyboard("{Escape}");
    await expect.poll(() => dialog(element).open).toBe(false);
    expect(focused(element)).toBe(button(element));
    expect(button(element).getAttribute("aria-expanded")).toBe("false");
  });

  it("opens from the theme's own link, even before it has loaded, and gives focus back to it", async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    serve(
      http.get(`${API}/store/widget/launcher`, async () => {
        await answered;
        return HttpResponse.json(launcherResponse());
      }),
    );
    const link = document.createElement("a");
    link.href = "#rewards";
    link.textContent = "Our rewards";
    document.body.append(link);
    const container = document.createElement("div");
    container.innerHTML = tag();
    document.body.append(container);
    const element = container.firstElementChild as LoyaltyLauncher;
    link.addEventListener("click", (event) => {
      event.preventDefault();
      void element.show();
    });
    // The shopper follows the link before the launcher's configuration has arrived.
    link.focus();
    await userEvent.keyboard("{Enter}");
    answer();
    await expect.poll(() => element.shadowRoot!.querySelector("dialog")?.open).toBe(true);
    await loaded(element);

    await userEvent.keyboard("{Escape}");
    await expect.poll(() => dialog(element).open).toBe(false);
    expect(document.activeElement).toBe(link);
    link.remove();
  });

  it("keeps the keyboard inside the open panel: Tab and Shift+Tab wrap around", async () => {
    const element = await mount<LoyaltyLauncher>(tag());
    await openByKeyboard(element);
    await loaded(element);
    const close = part(element, '[part="close-button"]');
    expect(focused(element)).toBe(close);
    await userEvent.keyboard("{Shift>}{Tab}{/Shift}");
    const last = focused(element);
    expect(last).not.toBe(close);
    expect(dialog(element).contains(last)).toBe(true);
    await userEvent.keyboard("{Tab}");
    expect(focused(element)).toBe(close);
    // Every control on the way stays in the panel.
    for (let step = 0; step < 6; step++) {
      await userEvent.keyboard("{Tab}");
      expect(dialog(element).contains(focused(element))).toBe(true);
    }
  });

  it("shows a signed-in customer their balance first, their club, rewards, codes, ways and invitation", async () => {
    serve(
      http.get(`${API}/point/user-history/:id`, () =>
        HttpResponse.json(
          history({
            balance: 820,
            pendingPoints: 200,
            nextExpiry: { points: 120, expiresAt: "2027-03-01T08:00:00.000Z" },
          }),
        ),
      ),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);

    const sections = [...element.shadowRoot!.querySelectorAll('[part="section-title"]')].map(
      (title) => title.textContent,
    );
    expect(sections).toEqual(["Rewards", "My codes", "Ways to earn", "Invite a friend"]);
    // The balance comes before every section.
    const balance = part(element, '[part="balance"]');
    expect(balance.textContent).toBe("820 points");
    expect(
      balance.compareDocumentPosition(part(element, '[part="section"]')) &
        Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    expect(part(element, '[part="available"]').textContent).toBe("620 points");
    expect(part(element, '[part="pending"]').textContent).toBe("200 points");
    expect(part(element, '[part="next-expiry"]').textContent?.trim()).toBe(
      "120 points expire on Mar 1, 2027: spend them before.",
    );
    expect(textOf(part(element, '[part="club"]'))).toBe(
      "Club Silver · 1.25× points on every order",
    );
    expect(part(element, "#next-club").textContent?.trim()).toBe("1,180 points to Gold");
    expect(part<HTMLProgressElement>(element, "progress").value).toBe(820);

    // What the customer can spend now (620) affords the first two rewards.
    const claims = [
      ...element.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part="claim-button"]'),
    ];
    expect(claims.map((claim) => claim.disabled)).toEqual([false, false, true]);
    expect(textOf(part(element, '[part="my-code"]'))).toBe(
      "€5 off LOYAL-OLD5 Copy code Valid until Dec 1, 2026 · On orders of €30.00 or more",
    );
    expect(panelText(element)).toContain(
      "Your friend gets €10.00 off on their first order, and you earn 200 points when they place it.",
    );
    await expectAccessible();
  });

  it("claims a reward after a confirmation, and keeps its code in My codes", async () => {
    const claimed = claimRewardResponseSchema.parse({
      code: "LOYAL-NEW5",
      rewardId: 2,
      pointsSpent: 500,
      balance: 120,
      expiresAt: "2026-12-31T00:00:00.000Z",
      voucher: rewards[1]!.voucher,
    });
    let claimedYet = false;
    serve(
      http.post(`${API}/reward/claim/:id`, () => {
        claimedYet = true;
        return HttpResponse.json(claimed, { status: 201 });
      }),
      http.get(`${API}/reward/codes/:id`, () => {
        const before = codes().codes;
        return HttpResponse.json(
          claimedYet
            ? {
                codes: [
                  {
                    code: "LOYAL-NEW5",
                    rewardId: 2,
                    rewardName: "€5 off",
                    pointsSpent: 500,
                    claimedAt: "2026-11-27T10:00:00.000Z",
                    expiresAt: "2026-12-31T00:00:00.000Z",
                    voucher: {
                      kind: "fixed_amount",
                      value: 5,
                      currency: "EUR",
                      minimumOrderAmount: null,
                    },
                  },
                  ...before,
                ],
              }
            : { codes: before },
        );
      }),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);

    await userEvent.click(page.getByRole("button", { name: "Claim €5 off for 500 points" }));
    await expect.poll(() => focused(element)?.getAttribute("part")).toBe("confirm-button");
    // Escape answers the question, not the panel.
    await userEvent.keyboard("{Escape}");
    expect(dialog(element).open).toBe(true);
    await expect.poll(() => focused(element)?.id).toBe("claim-2");
    expect(claimedYet).toBe(false);

    await userEvent.keyboard("{Enter}");
    await expect.poll(() => focused(element)?.getAttribute("part")).toBe("confirm-button");
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => part(element, '[part="balance"]').textContent).toBe("120 points");
    await expect
      .poll(() =>
        [...element.shadowRoot!.querySelectorAll('[part="my-code"] code')].map(
          (code) => code.textContent,
        ),
      )
      .toEqual(["LOYAL-NEW5", "LOYAL-OLD5"]);
    await expectAccessible();
  });

  it("copies a code of My codes and says so", async () => {
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);
    const copy = part<HTMLButtonElement>(element, '[part="my-code"] [part="copy-button"]');
    await userEvent.click(copy);
    await expect.poll(() => copy.textContent?.trim()).toBe("Copied");
    expect(await navigator.clipboard.readText()).toBe("LOYAL-OLD5");
    expect(part(element, "#announcement").textContent).toBe("Copied");
  });

  it("invites a friend, then copies the invitation's link where the browser cannot share", async () => {
    const sent: { url: URL; body: unknown; headers: Headers }[] = [];
    serve(
      http.post(`${API}/point/referral`, async ({ request }) => {
        sent.push({
          url: new URL(request.url),
          body: await request.json(),
          headers: request.headers,
        });
        return HttpResponse.json(
          createReferralResponseSchema.parse({
            hash: "h4sh-of-the-invitation",
            status: "pending",
            email: "ana@example.com",
          }),
          { status: 201 },
        );
      }),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    const share = Object.getOwnPropertyDescriptor(Navigator.prototype, "share");
    // This browser's Web Share, if it has one, is set aside: the copy is what is tested here.
    if (share) Reflect.deleteProperty(Navigator.prototype, "share");
    try {
      await openByKeyboard(element);
      await loaded(element);
      await userEvent.fill(page.getByLabelText("Your friend's email"), "ana@example.com");
      await userEvent.fill(page.getByLabelText("Their first name (optional)"), "Ana");
      await userEvent.click(page.getByRole("button", { name: "Send the invitation" }));

      await expect.poll(() => focused(element)?.getAttribute("part")).toBe("share-button");
      expect(panelText(element)).toContain("Invitation sent to ana@example.com.");
      expect(sent).toHaveLength(1);
      const [request] = sent;
      expect(Object.fromEntries(request!.url.searchParams)).toEqual({
        domain: DOMAIN,
        externalId: CUSTOMER.id,
        hash: CUSTOMER.hash,
      });
      expect(request!.body).toEqual({ email: "ana@example.com", firstName: "Ana", language: "en" });
      expect(request!.headers.get("idempotency-key")).toMatch(/^[0-9a-f]{32}$/);

      const shareButton = part(element, '[part="share-button"]');
      expect(shareButton.textContent?.trim()).toBe("Copy the invitation link");
      await userEvent.click(shareButton);
      await expect.poll(() => shareButton.textContent?.trim()).toBe("Link copied");
      expect(await navigator.clipboard.readText()).toBe(
        "https://shop.example/welcome?loyalty_referral=h4sh-of-the-invitation",
      );
      await expectAccessible();

      await userEvent.click(page.getByRole("button", { name: "Invite another friend" }));
      await expect.poll(() => focused(element)?.getAttribute("name")).toBe("email");
    } finally {
      if (share) Object.defineProperty(Navigator.prototype, "share", share);
    }
  });

  it("shows the invitation's link, selected, where the browser can neither share nor copy", async () => {
    // A browser whose share sheet refuses this page, and whose clipboard is denied to it.
    const restoreShare = replace(Navigator.prototype, "share", denied);
    const restoreCopy = replace(Clipboard.prototype, "writeText", denied);
    try {
      const element = await invitedByKeyboard();
      await userEvent.keyboard("{Enter}");
      await expect.poll(() => focused(element)?.id).toBe("invitation-link");
      const field = part<HTMLInputElement>(element, "#invitation-link");
      expect(field.value).toBe("https://shop.example/welcome?loyalty_referral=h4sh");
      expect(field.readOnly).toBe(true);
      expect(field.getBoundingClientRect().width).toBeGreaterThan(100);
      expect(field.value.slice(field.selectionStart!, field.selectionEnd!)).toBe(field.value);
      await expectAccessible();
    } finally {
      restoreCopy();
      restoreShare();
    }
  });

  it("copies the link when the browser refuses to share it", async () => {
    const restore = replace(Navigator.prototype, "share", denied);
    try {
      await navigator.clipboard.writeText("");
      const element = await invitedByKeyboard();
      await userEvent.keyboard("{Enter}");
      await expect
        .poll(() => navigator.clipboard.readText())
        .toBe("https://shop.example/welcome?loyalty_referral=h4sh");
      await expect
        .poll(() => element.shadowRoot!.querySelector("#announcement")?.textContent)
        .toBe("Link copied");
    } finally {
      restore();
    }
  });

  it("shares the invitation's link with the Web Share API where the browser has it", async () => {
    const shared: ShareData[] = [];
    // The browser's share sheet is the operating system's: what the page hands it is recorded.
    const restore = replace(Navigator.prototype, "share", (data: ShareData) => {
      shared.push(data);
      return Promise.resolve();
    });
    try {
      await invitedByKeyboard();
      await userEvent.keyboard("{Enter}");
      await expect
        .poll(() => shared)
        .toEqual([
          {
            text: "Here is your invitation to shop.example",
            url: "https://shop.example/welcome?loyalty_referral=h4sh",
          },
        ]);
    } finally {
      restore();
    }
  });

  it("says why an invitation was refused and keeps the address to correct", async () => {
    serve(
      http.post(`${API}/point/referral`, () =>
        HttpResponse.json(
          {
            type: "https://loyalty.dev/problems/referral-already-pending",
            title: "The referred address has a pending referral",
            status: 400,
          },
          { status: 400, headers: { "content-type": "application/problem+json" } },
        ),
      ),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);
    const email = page.getByLabelText("Your friend's email");
    await userEvent.fill(email, "ana@example.com");
    await userEvent.click(page.getByRole("button", { name: "Send the invitation" }));
    await expect
      .poll(() => element.shadowRoot!.querySelector('[role="alert"]')?.textContent)
      .toBe("This person has already been invited.");
    await expect.poll(() => focused(element)?.getAttribute("name")).toBe("email");
    expect((email.element() as HTMLInputElement).value).toBe("ana@example.com");
    expect((email.element() as HTMLInputElement).getAttribute("aria-invalid")).toBe("true");
    await expectAccessible();
  });

  it("asks to sign in again when an invitation meets a stale hash, not to fix the address", async () => {
    serve(
      http.post(`${API}/point/referral`, () =>
        HttpResponse.json(
          { type: "https://loyalty.dev/problems/unauthorized", title: "Unauthorized", status: 401 },
          { status: 401, headers: { "content-type": "application/problem+json" } },
        ),
      ),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);
    await userEvent.fill(page.getByLabelText("Your friend's email"), "ana@example.com");
    await userEvent.click(page.getByRole("button", { name: "Send the invitation" }));
    await expect
      .poll(() => element.shadowRoot!.querySelector('[role="alert"]')?.textContent)
      .toBe("Your session has expired: sign in again to see your points.");
  });

  it("offers no invitation while the store's referral programme takes none", async () => {
    serve(
      http.get(`${API}/store/widget/launcher`, () =>
        HttpResponse.json(launcherResponse({}, {}, null)),
      ),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);
    expect(panelText(element)).not.toContain("Invite a friend");
    expect(element.shadowRoot!.querySelector("form")).toBeNull();
  });

  it("asks a customer whose hash is stale to sign in again", async () => {
    const element = await mount<LoyaltyLauncher>(
      tag(`customer-id="${CUSTOMER.id}" customer-hash="${"00".repeat(64)}"`),
    );
    await openByKeyboard(element);
    await loaded(element);
    expect(panelText(element)).toContain(
      "Your session has expired: sign in again to see your points.",
    );
    expect(part<HTMLAnchorElement>(element, '[part="sign-in"]').href).toBe(
      "https://shop.example/account",
    );
    await expectAccessible();
  });

  it("shows a loading panel at once, and nothing in it moves as its parts arrive", async () => {
    serve(
      http.get(`${API}/point/user-history/:id`, async () => {
        await delay(300);
        return HttpResponse.json(history());
      }),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    expect(element.shadowRoot!.querySelector(".loading")?.getAttribute("aria-busy")).toBe("true");
    const before = dialog(element).getBoundingClientRect();
    await expectAccessible();
    await loaded(element);
    const after = dialog(element).getBoundingClientRect();
    expect([after.top, after.height]).toEqual([before.top, before.height]);
  });

  it("fills a phone's screen with its panel, without sideways scrolling", async () => {
    await page.viewport(375, 667);
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);
    const box = dialog(element).getBoundingClientRect();
    expect([box.left, box.top, box.width, box.height]).toEqual([0, 0, 375, 667]);
    const body = part(element, ".panel-body");
    expect(body.scrollWidth).toBeLessThanOrEqual(body.clientWidth);
    await expectAccessible();
  });

  it("speaks French on a French page, with the store's own texts", async () => {
    serve(
      http.get(`${API}/store/widget/launcher`, () =>
        HttpResponse.json(
          launcherResponse({ label: "Fidélité", title: "Le club" }, { language: "fr" }),
        ),
      ),
    );
    const element = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    await openByKeyboard(element);
    await loaded(element);
    expect(button(element).textContent?.trim()).toBe("Fidélité");
    expect(part(element, '[part="close-button"]').getAttribute("aria-label")).toBe("Fermer");
    expect(part(element, '[part="balance"]').textContent).toBe("620 points");
    const sections = [...element.shadowRoot!.querySelectorAll('[part="section-title"]')].map(
      (title) => title.textContent,
    );
    expect(sections).toEqual([
      "Récompenses",
      "Mes codes",
      "Comment gagner des points",
      "Parrainer un ami",
    ]);
    expect(panelText(element)).toContain("Valable jusqu’au 1 déc. 2026");
    // Intl writes "10,00 €" with a no-break space; panelText reads every space as one.
    expect(panelText(element)).toContain("Votre ami reçoit 10,00 € de réduction");
  });

  it("stays out of the page when the merchant turned it off, or the API cannot be reached", async () => {
    serve(
      http.get(`${API}/store/widget/launcher`, () =>
        HttpResponse.json(launcherResponse({ enabled: false })),
      ),
    );
    const off = await mount<LoyaltyLauncher>(tag(IDENTIFIED));
    expect(off.shadowRoot!.querySelector("button")).toBeNull();
    // A theme's link calling show() opens nothing and reads nothing of the customer's.
    await off.show();
    await off.updateComplete;
    // Long enough for the panel's reads to reach the API, had they been made.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(off.shadowRoot!.querySelector("dialog")).toBeNull();
    expect(requestsTo(`/point/user-history/${CUSTOMER.id}`)).toEqual([]);
    expect(requestsTo(`/reward/codes/${CUSTOMER.id}`)).toEqual([]);
    serve(http.get(`${API}/store/widget/launcher`, () => HttpResponse.error()));
    const failed = await mount<LoyaltyLauncher>(tag(`domain="https://other.example"`));
    expect(failed.shadowRoot!.querySelector("button")).toBeNull();
  });
});
