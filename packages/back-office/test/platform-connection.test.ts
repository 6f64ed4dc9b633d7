import type { PlatformConnectionSummary, PlatformConnectionTest } from "@loyalty/shared-types";
import { describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { changeLocale } from "../src/i18n/locale.js";
import { HttpResponse, http, requestsTo, serve, useApiMock } from "./support/api-mock.js";
import { startApp, useApp } from "./support/app.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { focused } from "./support/dom.js";
import { STORE } from "./support/fixtures.js";

/**
 * The platform connection form with a connection stored: its settings filled in, and secrets
 * that may be left blank (kept by the server) only for the stored platform and URL.
 */

useApiMock();
useApp();

const path = `/admin/stores/${STORE.id}/platform`;
const SHOPIFY: PlatformConnectionSummary = {
  platform: "shopify",
  url: "https://loyal-shop.myshopify.com",
  hasCredentials: true,
  settings: { platform: "shopify", apiVersion: "2026-01" },
};
const PRESTASHOP: PlatformConnectionSummary = {
  platform: "prestashop",
  url: "https://boutique.example",
  hasCredentials: true,
  settings: { platform: "prestashop", languageId: 2, currencyId: 3 },
};

/** The stored connection, and a PUT that answers what it was sent, the secrets kept. */
function serveConnection(stored: PlatformConnectionSummary) {
  serve(
    http.get(path, () => HttpResponse.json(stored)),
    http.put(path, async ({ request }) => {
      const body = (await request.json()) as { platform: "shopify"; url: string };
      const { platform, url, ...settings } = body;
      return HttpResponse.json({
        platform,
        url,
        hasCredentials: true,
        settings: { platform, ...settings },
      });
    }),
  );
}

async function open(): Promise<void> {
  await startApp(`/back-office/stores/${STORE.id}/integrations`, {
    signedIn: { storeId: STORE.id },
  });
  await expect
    .element(page.getByRole("heading", { level: 3, name: "Change the connection" }))
    .toBeVisible();
}

const puts = () => requestsTo(path).filter((request) => request.method === "PUT");
const urlField = () =>
  page.getByRole("region", { name: "Platform connection" }).getByRole("textbox", { name: "URL" });

describe("the platform connection form, a connection stored", () => {
  test("shows the stored Shopify settings, and saves a change without the token", async () => {
    serveConnection(SHOPIFY);
    await open();
    const token = page.getByLabelText("Admin API access token");
    await expect.element(urlField()).toHaveValue(SHOPIFY.url);
    await expect.element(page.getByLabelText("Admin API version")).toHaveValue("2026-01");
    await expect.element(token).toHaveValue("");
    await expect.element(token).not.toBeRequired();
    await expect.element(token).toHaveAccessibleDescription("Leave blank to keep the stored key.");
    await expectNoAxeViolations();

    await userEvent.fill(page.getByLabelText("Admin API version"), "2026-04");
    await userEvent.click(page.getByRole("button", { name: "Save the connection" }));
    await expect
      .element(page.getByRole("status").filter({ hasText: "Connection saved." }))
      .toBeVisible();
    const [sent] = puts();
    expect(await sent!.json()).toEqual({
      platform: "shopify",
      url: SHOPIFY.url,
      apiVersion: "2026-04",
    });
    // The form shows what is now stored.
    await expect.element(page.getByLabelText("Admin API version")).toHaveValue("2026-04");
  });

  test("shows the stored PrestaShop ids, and keeps them in a save that changes the key", async () => {
    serveConnection(PRESTASHOP);
    await open();
    await expect.element(page.getByLabelText("Language id")).toHaveValue(2);
    await expect.element(page.getByLabelText("Currency id")).toHaveValue(3);
    // A blank made of spaces is blank.
    await userEvent.fill(page.getByLabelText("Webservice key"), "   ");
    await userEvent.click(page.getByRole("button", { name: "Save the connection" }));
    await expect
      .element(page.getByRole("status").filter({ hasText: "Connection saved." }))
      .toBeVisible();
    const [sent] = puts();
    expect(await sent!.json()).toEqual({
      platform: "prestashop",
      url: PRESTASHOP.url,
      languageId: 2,
      currencyId: 3,
    });
  });

  test("asks for the key again once the URL changes, before sending anything", async () => {
    serveConnection(SHOPIFY);
    await open();
    const token = page.getByLabelText("Admin API access token");
    // The same URL with a trailing slash is the same URL.
    await userEvent.fill(urlField(), `${SHOPIFY.url}/`);
    await expect.element(token).toHaveAccessibleDescription("Leave blank to keep the stored key.");

    await userEvent.fill(urlField(), "https://other-shop.myshopify.com");
    await expect.element(token).toBeRequired();
    await expect
      .element(token)
      .toHaveAccessibleDescription("The stored key is kept only for the same URL: type it again.");
    await userEvent.click(page.getByRole("button", { name: "Save the connection" }));
    await expect.element(token).toHaveAttribute("aria-invalid", "true");
    await expect.element(token).toHaveAccessibleDescription(/This field is required\./);
    expect(focused()).toBe(token.element());
    expect(puts()).toHaveLength(0);

    // Another platform at the stored URL needs its own credentials too.
    await userEvent.fill(urlField(), SHOPIFY.url!);
    await userEvent.selectOptions(page.getByRole("combobox", { name: "Platform" }), "woocommerce");
    await expect
      .element(page.getByLabelText("Consumer key"))
      .toHaveAccessibleDescription("Write-only: never shown once saved.");
  });
});

describe("the connection test, in French", () => {
  const failed: PlatformConnectionTest = {
    platform: "shopify",
    ok: false,
    reason: "platform-resource-not-found",
    cause: "redirect",
    httpStatus: 301,
    message:
      "Shopify answered with a redirect (HTTP 301), which is not followed: enter the shop's address exactly as it is served (https, with or without www).",
    durationMs: 1_250,
  };

  async function runTest(answer: PlatformConnectionTest) {
    await changeLocale("fr", { persist: false });
    serveConnection(SHOPIFY);
    serve(http.post(`${path}/test`, () => HttpResponse.json(answer)));
    await startApp(`/back-office/stores/${STORE.id}/integrations`, {
      signedIn: { storeId: STORE.id },
    });
    await userEvent.click(page.getByRole("button", { name: "Tester la connexion" }));
    return page.getByRole("region", { name: "Connexion à la plateforme" }).getByRole("status");
  }

  test("explains the failure in French, written from its cause, not the server's English", async () => {
    const result = await runTest(failed);
    await expect
      .element(result)
      .toHaveTextContent(
        "La plateforme n’a pas trouvé ce qui était demandé : vérifiez l’URL. Shopify a répondu par une redirection (HTTP 301), qui n’est pas suivie : saisissez l’adresse de la boutique exactement telle qu’elle est servie (https, avec ou sans www). La plateforme a répondu en 1 250 ms.",
      );
    expect(result.element().textContent).not.toContain("answered");
    expect(result.element().querySelector("[lang]")).toBeNull();
    await expectNoAxeViolations();
  });

  test("shows the server's English, marked as English, for a failure without a cause it knows", async () => {
    const result = await runTest({ ...failed, cause: null, httpStatus: null });
    const english = result.getByText(failed.message!);
    await expect.element(english).toBeVisible();
    await expect.element(english).toHaveAttribute("lang", "en");
  });
});
