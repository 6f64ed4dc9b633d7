import type { AdminReward } from "@loyalty/shared-types";
import { describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { changeLocale } from "../src/i18n/locale.js";
import {
  HttpResponse,
  held,
  http,
  problemResponse,
  requestsTo,
  serve,
  useApiMock,
} from "./support/api-mock.js";
import { startApp, useApp } from "./support/app.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { focused } from "./support/dom.js";
import { STORE, example } from "./support/fixtures.js";
import { recordLayoutShifts } from "./support/layout-shift.js";

useApiMock();
useApp();

const SCREEN_URL = `/back-office/stores/${STORE.id}/rewards`;
const LIST = `/admin/stores/${STORE.id}/rewards`;
const signedIn = { signedIn: { storeId: STORE.id } } as const;

/** The examples' catalogue: "5 € voucher" (active, no limit, 37 codes) and "Retired mug". */
function catalogue(): AdminReward[] {
  const [voucher, mug] = example("listAdminRewards") as [AdminReward, AdminReward];
  return [
    voucher,
    {
      ...mug,
      description: null,
      imageUrl: null,
      triggerValue: 1200,
      voucher: {
        ...mug.voucher,
        kind: "percentage",
        value: 15,
        currency: null,
        minimumOrderAmount: null,
        validityDays: null,
        usageLimit: 100,
        codesIssued: 40,
      },
    },
  ];
}

// A 1×1 PNG: the reward's image loads.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  ),
  (character) => character.charCodeAt(0),
);

function serveCatalogue(rewards: AdminReward[] = catalogue()): void {
  serve(
    http.get(LIST, () => HttpResponse.json(rewards)),
    http.get(
      "https://shop.example/images/*",
      () => new HttpResponse(PNG, { headers: { "content-type": "image/png" } }),
    ),
  );
}

const card = (name: string) => page.getByRole("article", { name });

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

/** Text with its no-break spaces (French numbers and amounts) as plain spaces. */
function plain(text: string | null | undefined): string {
  return (text ?? "").replace(/[\u00a0\u202f]/g, " ").replace(/\s+/g, " ");
}

describe("the rewards screen", () => {
  test("lists each reward: cost, voucher terms, status, codes issued and remaining", async () => {
    serveCatalogue();
    await startApp(SCREEN_URL, signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();

    const voucher = card("5 € voucher");
    await expect.element(voucher).toHaveTextContent("Active");
    await expect.element(voucher).toHaveTextContent("Cost 500 points");
    await expect.element(voucher).toHaveTextContent("Voucher €5.00 off");
    await expect.element(voucher).toHaveTextContent("Minimum order On orders of €30.00 or more");
    await expect.element(voucher).toHaveTextContent("Validity Valid 90 days after it is issued");
    await expect.element(voucher).toHaveTextContent("Usage limit No limit");
    await expect.element(voucher).toHaveTextContent("Codes issued 37");
    await expect.element(voucher).toHaveTextContent("Codes remaining No limit");
    await expect.element(voucher).toHaveTextContent("5 € off an order of 30 € or more");

    const mug = card("Retired mug");
    await expect.element(mug).toHaveTextContent("Inactive");
    await expect.element(mug).toHaveTextContent("Cost 1,200 points");
    await expect.element(mug).toHaveTextContent("Voucher 15% off");
    await expect.element(mug).toHaveTextContent("Minimum order On any order");
    await expect.element(mug).toHaveTextContent("Validity No expiry");
    await expect.element(mug).toHaveTextContent("Usage limit 100 codes at most");
    await expect.element(mug).toHaveTextContent("Codes issued 40");
    await expect.element(mug).toHaveTextContent("Codes remaining 60");
    await expect.element(mug.getByRole("button", { name: "Activate Retired mug" })).toBeVisible();

    // Cheapest first, as customers see the catalogue.
    const names = page
      .getByRole("article")
      .elements()
      .map((article) => article.querySelector("h2")?.textContent);
    expect(names).toEqual(["5 € voucher", "Retired mug"]);
    await expectNoAxeViolations();
  });

  test("loading keeps the catalogue's space: the rewards arrive without a layout shift", async () => {
    const response = held();
    serve(
      http.get(LIST, async () => {
        await response.wait();
        return HttpResponse.json(catalogue());
      }),
    );
    await startApp(SCREEN_URL, signedIn);
    await expect
      .element(page.getByRole("status").getByText("Loading the rewards"))
      .toBeInTheDocument();
    await expectNoAxeViolations();

    const shifts = recordLayoutShifts();
    response.release();
    await expect.element(card("Retired mug")).toBeVisible();
    expect(await shifts.stop()).toBeLessThan(0.01);
  });

  test("an empty catalogue says so, and a failure offers to try again", async () => {
    serve(
      http.get(LIST, () => problemResponse("internal-server-error", "Boom."), { once: true }),
      http.get(LIST, () => HttpResponse.json([])),
    );
    await startApp(SCREEN_URL, signedIn);
    const alert = page.getByRole("alert");
    await expect.element(alert).toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect
      .element(page.getByText("No reward yet. Create the first one", { exact: false }))
      .toBeVisible();
    expect(requestsTo(LIST)).toHaveLength(2);
    await expectNoAxeViolations();
  });

  test("creates a reward with the keyboard alone; the form asks only what its voucher uses", async () => {
    serveCatalogue();
    const created = {
      ...catalogue()[0]!,
      id: 30,
      name: "Free delivery",
      description: null,
      imageUrl: null,
      triggerValue: 300,
      voucher: {
        ...catalogue()[0]!.voucher,
        kind: "free_shipping" as const,
        value: null,
        currency: null,
        minimumOrderAmount: 20,
        validityDays: null,
        usageLimit: 500,
        version: 1,
        codesIssued: 0,
      },
    };
    serve(http.post(LIST, () => HttpResponse.json(created, { status: 201 })));
    await startApp(SCREEN_URL, signedIn);
    await expect.element(card("5 € voucher")).toBeVisible();

    const open = page.getByRole("button", { name: "New reward" });
    (open.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.element(open).toHaveAttribute("aria-expanded", "true");
    const form = page.getByRole("region", { name: "New reward" });
    await expect.poll(focused).toBe(form.getByLabelText("Name").element());
    // An amount off by default: its value, in the store's currency.
    await expect.element(form.getByLabelText("Amount off (EUR)")).toBeVisible();

    await userEvent.keyboard("Free delivery");
    await userEvent.tab(); // description
    await userEvent.tab(); // image
    await userEvent.tab(); // cost
    await expect.poll(focused).toBe(form.getByLabelText("Cost in points").element());
    await userEvent.keyboard("300");
    await userEvent.tab();
    await expect.poll(focused).toBe(form.getByLabelText("Discount").element());
    await userEvent.selectOptions(form.getByLabelText("Discount"), "free_shipping");
    // Free shipping takes nothing off an amount: no value to ask.
    await expect.element(form.getByLabelText("Amount off (EUR)")).not.toBeInTheDocument();
    await expect.element(form.getByLabelText("Percentage off")).not.toBeInTheDocument();
    await userEvent.tab();
    await expect.poll(focused).toBe(form.getByLabelText("Minimum order (EUR)").element());
    await userEvent.keyboard("20");
    await userEvent.tab(); // validity: none
    await userEvent.tab();
    await expect.poll(focused).toBe(form.getByLabelText("Usage limit").element());
    await userEvent.keyboard("500{Enter}");

    await expect.element(card("Free delivery")).toBeVisible();
    expect(await requestsTo(LIST).at(-1)!.json()).toEqual({
      name: "Free delivery",
      description: null,
      imageUrl: null,
      triggerValue: 300,
      active: true,
      voucher: {
        kind: "free_shipping",
        value: null,
        currency: null,
        minimumOrderAmount: 20,
        validityDays: null,
        usageLimit: 500,
      },
    });
    await expect.element(form).not.toBeInTheDocument();
    // The focus is on the new reward, which the live region announced.
    await expect.poll(focused).toBe(page.getByRole("heading", { name: "Free delivery" }).element());
    await expect.element(page.getByRole("status").getByText("Reward created")).toBeInTheDocument();
    await expect.element(card("Free delivery")).toHaveTextContent("Codes remaining 500");
  });

  test("a form with problems sends nothing and shows each next to its field", async () => {
    serveCatalogue();
    await startApp(SCREEN_URL, signedIn);
    await userEvent.click(page.getByRole("button", { name: "New reward" }));
    const form = page.getByRole("region", { name: "New reward" });
    await userEvent.fill(form.getByLabelText("Image address"), "not an address");
    await userEvent.selectOptions(form.getByLabelText("Discount"), "percentage");
    await userEvent.fill(form.getByLabelText("Percentage off"), "120");
    await userEvent.click(form.getByRole("button", { name: "Create the reward" }));

    const name = form.getByLabelText("Name");
    await expect.element(name).toHaveAttribute("aria-invalid", "true");
    await expect.element(name).toHaveAccessibleDescription(/This field is required\./);
    await expect
      .element(form.getByLabelText("Cost in points"))
      .toHaveAccessibleDescription(/Enter a number\./);
    await expect
      .element(form.getByLabelText("Image address"))
      .toHaveAccessibleDescription(/Enter a web address/);
    await expect
      .element(form.getByLabelText("Percentage off"))
      .toHaveAccessibleDescription(/Enter 100 or less\./);
    await expect.poll(focused).toBe(name.element());
    expect(requestsTo(LIST).filter((request) => request.method === "POST")).toHaveLength(0);
    await expectNoAxeViolations();

    // Escape closes the form; the focus goes back to its button.
    await userEvent.keyboard("{Escape}");
    await expect.element(form).not.toBeInTheDocument();
    await expect.poll(focused).toBe(page.getByRole("button", { name: "New reward" }).element());
  });

  test("the server's problems show next to their fields, the rest at the top", async () => {
    serveCatalogue();
    serve(
      http.post(LIST, () =>
        problemResponse("validation-failed", "The request body is invalid.", [
          { location: "body", pointer: "/voucher/value", code: "too_big", message: "too big" },
          { location: "body", pointer: "/unknown", code: "custom", message: "is odd" },
        ]),
      ),
    );
    await startApp(SCREEN_URL, signedIn);
    await userEvent.click(page.getByRole("button", { name: "New reward" }));
    const form = page.getByRole("region", { name: "New reward" });
    await userEvent.fill(form.getByLabelText("Name"), "Big voucher");
    await userEvent.fill(form.getByLabelText("Cost in points"), "100");
    await userEvent.fill(form.getByLabelText("Amount off (EUR)"), "900");
    await userEvent.click(form.getByRole("button", { name: "Create the reward" }));

    await expect
      .element(form.getByLabelText("Amount off (EUR)"))
      .toHaveAccessibleDescription(/too big/);
    const alert = form.getByRole("alert");
    await expect.element(alert).toHaveTextContent("The server refused some values.");
    await expect.element(alert).toHaveTextContent("unknown: is odd");
    await expectNoAxeViolations();
  });

  test("editing a voucher term warns of a new version first; other edits keep the voucher", async () => {
    serveCatalogue();
    const updated = example("updateReward");
    serve(
      http.patch(`${LIST}/:rewardId`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ ...updated, name: body["name"] as string });
      }),
    );
    await startApp(SCREEN_URL, signedIn);
    const voucher = card("5 € voucher");
    const edit = voucher.getByRole("button", { name: "Edit 5 € voucher" });
    await userEvent.click(edit);
    await expect.element(edit).toHaveAttribute("aria-expanded", "true");
    const name = voucher.getByLabelText("Name");
    await expect.poll(focused).toBe(name.element());
    await expect.element(voucher.getByLabelText("Amount off (EUR)")).toHaveValue(5);

    // A name alone: no new version, no voucher sent.
    await userEvent.fill(name, "Five euros off");
    await expect
      .element(voucher.getByText("Codes already issued keep their terms.", { exact: false }))
      .not.toBeInTheDocument();
    await userEvent.fill(voucher.getByLabelText("Valid for (days)"), "60");
    const warning = voucher.getByText(
      "Saving makes version 3 of the voucher. Codes already issued keep their terms.",
    );
    await expect.element(warning).toBeVisible();
    await expect
      .element(voucher.getByRole("button", { name: "Save the reward" }))
      .toHaveAccessibleDescription(/Codes already issued keep their terms\./);
    await expectNoAxeViolations();

    // Back to 90: the voucher is unchanged again.
    await userEvent.fill(voucher.getByLabelText("Valid for (days)"), "90");
    await expect.element(warning).not.toBeInTheDocument();
    await userEvent.fill(voucher.getByLabelText("Valid for (days)"), "60");
    await userEvent.click(voucher.getByRole("button", { name: "Save the reward" }));

    const saved = card("Five euros off");
    await expect.element(saved).toHaveTextContent("Cost 450 points");
    await expect.element(saved).toHaveTextContent("Usage limit 1,000 codes at most");
    const patches = requestsTo(`${LIST}/12`);
    expect(await patches.at(-1)!.json()).toEqual({
      name: "Five euros off",
      description: "5 € off an order of 30 € or more",
      imageUrl: "https://shop.example/images/voucher-5.png",
      triggerValue: 500,
      voucher: {
        kind: "fixed_amount",
        value: 5,
        currency: "EUR",
        minimumOrderAmount: 30,
        validityDays: 60,
        usageLimit: null,
      },
    });
    await expect
      .poll(focused)
      .toBe(saved.getByRole("button", { name: "Edit Five euros off" }).element());
    await expect.element(page.getByRole("status").getByText("Reward saved")).toBeInTheDocument();

    // Without a voucher change, the PATCH leaves the voucher out.
    await userEvent.click(saved.getByRole("button", { name: "Edit Five euros off" }));
    await userEvent.fill(saved.getByLabelText("Name"), "Five euros");
    await userEvent.click(saved.getByRole("button", { name: "Save the reward" }));
    // The second PATCH itself ("Five euros" names the card before the save too).
    await expect.poll(() => requestsTo(`${LIST}/12`).length).toBe(patches.length + 1);
    await expect.element(card("Five euros")).toBeVisible();
    expect(await requestsTo(`${LIST}/12`).at(-1)!.json()).not.toHaveProperty("voucher");
  });

  test("deactivating asks first; activating does not", async () => {
    serveCatalogue();
    serve(
      http.patch(`${LIST}/:rewardId`, async ({ params, request }) => {
        const { active } = (await request.json()) as { active: boolean };
        const reward = catalogue().find((item) => String(item.id) === params["rewardId"])!;
        return HttpResponse.json({ ...reward, active });
      }),
    );
    await startApp(SCREEN_URL, signedIn);
    const voucher = card("5 € voucher");
    const deactivate = voucher.getByRole("button", { name: "Deactivate 5 € voucher" });
    await userEvent.click(deactivate);
    const dialog = page.getByRole("dialog", { name: "Deactivate “5 € voucher”?" });
    await expect.element(dialog).toBeVisible();
    await expect.element(dialog).toHaveAccessibleDescription(/Customers will no longer see it/);
    await expectNoAxeViolations();
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();
    await expect.poll(focused).toBe(deactivate.element());
    expect(requestsTo(`${LIST}/12`)).toHaveLength(0);

    await userEvent.click(deactivate);
    await userEvent.click(page.getByRole("button", { name: "Deactivate", exact: true }));
    await expect.element(voucher).toHaveTextContent("Inactive");
    expect(await requestsTo(`${LIST}/12`)[0]!.json()).toEqual({ active: false });
    await expect
      .element(page.getByRole("status").getByText("“5 € voucher” is deactivated."))
      .toBeInTheDocument();
    // The same button, now to activate it again: the focus stays on it.
    await expect
      .poll(focused)
      .toBe(voucher.getByRole("button", { name: "Activate 5 € voucher" }).element());

    await userEvent.click(
      card("Retired mug").getByRole("button", { name: "Activate Retired mug" }),
    );
    await expect.element(card("Retired mug")).toHaveTextContent("Active");
    await expect.element(page.getByRole("dialog")).not.toBeInTheDocument();
    expect(await requestsTo(`${LIST}/15`)[0]!.json()).toEqual({ active: true });
  });

  test("a reward's voucher versions: terms, codes issued and remaining, the current one", async () => {
    serveCatalogue();
    serve(
      http.get(`${LIST}/:rewardId/vouchers`, () =>
        HttpResponse.json(example("listVoucherVersions")),
      ),
    );
    await startApp(SCREEN_URL, signedIn);
    const voucher = card("5 € voucher");
    const summary = voucher.getByText("Voucher versions (current: 2)");
    await expect.element(summary).toBeVisible();
    expect(requestsTo(`${LIST}/12/vouchers`)).toHaveLength(0);
    (summary.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");

    const versions = voucher.getByRole("listitem");
    await expect.element(versions.nth(0)).toHaveTextContent("Version 2 Current");
    await expect.element(versions.nth(0)).toHaveTextContent("Codes issued: 37");
    await expect.element(versions.nth(0)).toHaveTextContent("Remaining: No limit");
    await expect
      .element(versions.nth(1))
      .toHaveTextContent(
        "€5.00 off · On orders of €30.00 or more · Valid 30 days after it is issued",
      );
    await expect.element(versions.nth(1)).toHaveTextContent("Usage limit: 100 codes at most");
    await expect.element(versions.nth(1)).toHaveTextContent("Codes issued: 100");
    await expect.element(versions.nth(1)).toHaveTextContent("Remaining: 0");
    await expect.element(versions.nth(1)).not.toHaveTextContent("Current");
    expect(requestsTo(`${LIST}/12/vouchers`)).toHaveLength(1);
    await expectNoAxeViolations();
  });

  test("at 375 px wide: no sideways scrolling, and targets of at least 24 px", async () => {
    await page.viewport(375, 740);
    serveCatalogue();
    await startApp(SCREEN_URL, signedIn);
    await expect.element(card("Retired mug")).toBeVisible();
    await userEvent.click(page.getByRole("button", { name: "New reward" }));
    await expect.element(page.getByRole("region", { name: "New reward" })).toBeVisible();
    expect(hasHorizontalOverflow()).toBe(false);

    const screen = document
      .querySelector("bo-app")!
      .shadowRoot!.querySelector("bo-shell")!
      .shadowRoot!.querySelector("bo-rewards-screen")!;
    const controls = [
      ...screen.shadowRoot!.querySelectorAll("button, summary"),
      ...screen
        .shadowRoot!.querySelector("bo-reward-form")!
        .shadowRoot!.querySelectorAll("button, input, select, textarea"),
    ];
    for (const control of controls) {
      const { width, height } = control.getBoundingClientRect();
      if (width === 0) continue;
      expect(Math.min(width, height), control.outerHTML.slice(0, 80)).toBeGreaterThanOrEqual(24);
    }
    await expectNoAxeViolations();
  });

  test("in French: the words, the amounts and the numbers", async () => {
    await changeLocale("fr");
    serveCatalogue();
    await startApp(SCREEN_URL, signedIn);
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Récompenses" }))
      .toBeVisible();
    const voucher = card("5 € voucher");
    await expect.element(voucher).toHaveTextContent("Active");
    await expect.poll(() => plain(voucher.element().textContent)).toContain("5,00 € de réduction");
    expect(plain(voucher.element().textContent)).toContain("Dès 30,00 € de commande");
    expect(plain(card("Retired mug").element().textContent)).toContain("1 200 points");
    await expect
      .element(voucher.getByRole("button", { name: "Désactiver 5 € voucher" }))
      .toBeVisible();
    await expectNoAxeViolations();
  });
});
