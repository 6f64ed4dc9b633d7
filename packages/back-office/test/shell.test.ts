import { describe, expect, test } from "vitest";
import { cdp, page, userEvent } from "vitest/browser";
import { LOCALE_STORAGE_KEY } from "../src/i18n/locale.js";
import { OTHER_STORE, STORE } from "./support/fixtures.js";
import { useApiMock } from "./support/api-mock.js";
import { startApp, useApp } from "./support/app.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { focused } from "./support/dom.js";

useApiMock();
useApp();

const storeUrl = (screen: string) => `/back-office/stores/${STORE.id}/${screen}`;

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

describe("the shell", () => {
  test("shows the store, marks the current screen, and moves the focus to each new screen's h1", async () => {
    await startApp(storeUrl("overview"), { signedIn: { storeId: STORE.id } });
    const banner = page.getByRole("banner");
    await expect.element(banner).toHaveTextContent(STORE.name);
    await expect
      .element(banner.getByRole("link", { name: /^https:\/\/shop\.example/ }))
      .toBeVisible();
    const nav = page.getByRole("navigation", { name: "Store sections" });
    await expect
      .element(nav.getByRole("link", { name: "Overview" }))
      .toHaveAttribute("aria-current", "page");
    // A store token has one store: no switcher.
    await expect.element(page.getByLabelText("Store", { exact: true })).not.toBeInTheDocument();
    await expectNoAxeViolations();

    await userEvent.click(nav.getByRole("link", { name: "Rewards" }));
    const heading = page.getByRole("heading", { level: 1, name: "Rewards" });
    await expect.element(heading).toBeVisible();
    expect(location.pathname).toBe(storeUrl("rewards"));
    expect(focused()).toBe(heading.element());
    expect(document.title).toBe(`Rewards – ${STORE.name} – Loyalty back-office`);
    await expect
      .element(nav.getByRole("link", { name: "Rewards" }))
      .toHaveAttribute("aria-current", "page");
    await expect
      .element(nav.getByRole("link", { name: "Overview" }))
      .not.toHaveAttribute("aria-current");

    history.back();
    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  });

  test("each screen of the navigation opens at its URL", async () => {
    await startApp(storeUrl("overview"), { signedIn: { storeId: STORE.id } });
    const nav = page.getByRole("navigation", { name: "Store sections" });
    for (const [name, path] of [
      ["Programme", "programme"],
      ["Widgets", "widgets"],
      ["Customers", "customers"],
      ["Integrations", "integrations"],
    ]) {
      await userEvent.click(nav.getByRole("link", { name }));
      await expect.element(page.getByRole("heading", { level: 1, name })).toBeVisible();
      expect(location.pathname).toBe(storeUrl(path!));
    }
  });

  test("the skip link is the first stop of the keyboard and leads to the main area", async () => {
    await startApp(storeUrl("overview"), { signedIn: { storeId: STORE.id } });
    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await userEvent.tab();
    const skip = page.getByRole("link", { name: "Skip to main content" });
    expect(focused()).toBe(skip.element());
    await expect.element(skip).toBeVisible();
    await userEvent.keyboard("{Enter}");
    expect(focused()).toBe(page.getByRole("main").element());
    expect(location.pathname).toBe(storeUrl("overview"));
  });

  test("a service admin switches stores, and goes back to the list", async () => {
    await startApp(storeUrl("rewards"), { signedIn: { storeId: null } });
    const switcher = page.getByLabelText("Store", { exact: true });
    await expect.element(switcher).toHaveValue(String(STORE.id));
    // Choosing goes nowhere by itself: the arrow keys of a closed list choose too.
    (switcher.element() as HTMLElement).focus();
    await userEvent.keyboard("{ArrowDown}");
    await userEvent.selectOptions(switcher, String(OTHER_STORE.id));
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/rewards`);
    expect(focused()).toBe(switcher.element());
    await userEvent.click(page.getByRole("button", { name: "Open", exact: true }));
    await expect.element(page.getByRole("banner")).toHaveTextContent(OTHER_STORE.name);
    expect(location.pathname).toBe(`/back-office/stores/${OTHER_STORE.id}/rewards`);
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("link", { name: "All stores" }));
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Choose a store" }))
      .toBeVisible();
  });

  test("a store outside the token's reach is not found", async () => {
    await startApp("/back-office/stores/999/overview", { signedIn: { storeId: null } });
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Store not found" }))
      .toBeVisible();
  });

  test("switches to French, and remembers it", async () => {
    await startApp(storeUrl("rewards"), { signedIn: { storeId: STORE.id } });
    await expect.element(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();
    await userEvent.selectOptions(page.getByLabelText("Language"), "fr");

    await expect
      .element(page.getByRole("heading", { level: 1, name: "Récompenses" }))
      .toBeVisible();
    const nav = page.getByRole("navigation", { name: "Rubriques de la boutique" });
    await expect.element(nav.getByRole("link", { name: "Vue d’ensemble" })).toBeVisible();
    await expect.element(page.getByRole("button", { name: "Se déconnecter" })).toBeVisible();
    expect(document.documentElement.lang).toBe("fr");
    expect(document.title).toBe(`Récompenses – ${STORE.name} – Back-office Fidélité`);
    expect(localStorage.getItem(LOCALE_STORAGE_KEY)).toBe("fr");
    await expectNoAxeViolations();
  });

  test("in forced colours, the current screen and the focus stay visible", async () => {
    await cdp().send("Emulation.setEmulatedMedia", {
      features: [{ name: "forced-colors", value: "active" }],
    });
    try {
      await startApp(storeUrl("rewards"), { signedIn: { storeId: STORE.id } });
      const current = page.getByRole("link", { name: "Rewards" });
      await expect.element(current).toHaveAttribute("aria-current", "page");
      // Backgrounds and shadows are dropped: a border marks the current screen.
      expect(getComputedStyle(current.element()).borderTopStyle).toBe("solid");
      await userEvent.tab();
      const skip = focused() as HTMLElement;
      expect(getComputedStyle(skip).outlineStyle).toBe("solid");
      await expectNoAxeViolations();
    } finally {
      await cdp().send("Emulation.setEmulatedMedia", { features: [] });
    }
  });

  describe("at 375 px wide", () => {
    test("the navigation folds behind a Menu button, and the page never scrolls sideways", async () => {
      await page.viewport(375, 740);
      await startApp(storeUrl("overview"), { signedIn: { storeId: null } });
      await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
      const menu = page.getByRole("button", { name: "Menu" });
      await expect.element(menu).toHaveAttribute("aria-expanded", "false");
      // Folded: out of sight and out of the accessibility tree.
      await expect.element(page.getByRole("link", { name: "Rewards" })).not.toBeInTheDocument();
      expect(hasHorizontalOverflow()).toBe(false);
      await expectNoAxeViolations();

      await userEvent.click(menu);
      await expect.element(menu).toHaveAttribute("aria-expanded", "true");
      await expect.element(page.getByRole("link", { name: "Rewards" })).toBeVisible();
      await expect.element(page.getByLabelText("Store", { exact: true })).toBeVisible();
      await expect.element(page.getByRole("button", { name: "Sign out" })).toBeVisible();
      expect(hasHorizontalOverflow()).toBe(false);
      await expectNoAxeViolations();

      await userEvent.click(page.getByRole("link", { name: "Rewards" }));
      await expect.element(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();
      await expect.element(menu).toHaveAttribute("aria-expanded", "false");
    });

    test("in French too", async () => {
      await page.viewport(375, 740);
      localStorage.setItem(LOCALE_STORAGE_KEY, "fr");
      const { changeLocale } = await import("../src/i18n/locale.js");
      await changeLocale("fr");
      await startApp(storeUrl("integrations"), { signedIn: { storeId: null } });
      await userEvent.click(page.getByRole("button", { name: "Menu" }));
      await expect.element(page.getByRole("link", { name: "Intégrations" })).toBeVisible();
      expect(hasHorizontalOverflow()).toBe(false);
    });
  });
});
