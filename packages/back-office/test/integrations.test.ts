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
import { OTHER_STORE, STORE, example } from "./support/fixtures.js";
import { nextPaint, recordLayoutShifts } from "./support/layout-shift.js";

useApiMock();
useApp();

const signedIn = { signedIn: { storeId: STORE.id } } as const;
const screenUrl = `/back-office/stores/${STORE.id}/integrations`;
const admin = `/admin/stores/${STORE.id}`;
const paths = {
  platform: `${admin}/platform`,
  platformTest: `${admin}/platform/test`,
  webhooks: `${admin}/webhooks`,
  deliveries: `${admin}/webhooks/3/deliveries`,
  keys: `${admin}/api-keys`,
  referral: `${admin}/referral-program`,
};

const queryOf = (request: Request) => Object.fromEntries(new URL(request.url).searchParams);

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

/** The four sections' data, as the examples have it. */
function serveIntegrations() {
  serve(
    http.get(paths.platform, () => HttpResponse.json(example("getPlatformConnection"))),
    http.get(paths.webhooks, () => HttpResponse.json(example("listWebhookEndpoints"))),
    http.get(paths.keys, () => HttpResponse.json(example("listApiKeys"))),
    http.get(paths.referral, () => HttpResponse.json(example("getReferralProgram"))),
  );
}

async function open(): Promise<void> {
  await startApp(screenUrl, signedIn);
  await expect.element(page.getByRole("heading", { level: 1, name: "Integrations" })).toBeVisible();
}

const section = (name: string) => page.getByRole("region", { name });
const platformUrl = () => section("Platform connection").getByRole("textbox", { name: "URL" });

describe("the integrations screen", () => {
  test("shows its four sections, each filled in; loading them shifts nothing", async () => {
    const response = held();
    const wait = async <T>(body: T) => {
      await response.wait();
      return HttpResponse.json(body as object);
    };
    serve(
      http.get(paths.platform, () => wait(example("getPlatformConnection"))),
      http.get(paths.webhooks, () => wait(example("listWebhookEndpoints"))),
      http.get(paths.keys, () => wait(example("listApiKeys"))),
      http.get(paths.referral, () => wait(example("getReferralProgram"))),
    );
    await open();
    await expect
      .element(page.getByRole("status").getByText("Loading the platform connection"))
      .toBeInTheDocument();
    await expect
      .element(page.getByRole("status").getByText("Loading the referral programme"))
      .toBeInTheDocument();
    await expectNoAxeViolations();
    await nextPaint();

    const shifts = recordLayoutShifts();
    response.release();
    await expect.element(section("API keys").getByText("Before rotation")).toBeVisible();
    await expect
      .element(page.getByRole("spinbutton", { name: "Referrer's bonus (points)" }))
      .toHaveValue(200);
    await expect.element(section("Platform connection")).toHaveTextContent("WooCommerce");
    await expect
      .element(section("Webhook endpoints"))
      .toHaveTextContent("https://shop.example/webhooks/loyalty");
    expect(await shifts.stop()).toBeLessThan(0.01);

    const headings = page
      .getByRole("heading", { level: 2 })
      .all()
      .map((h) => h.element().textContent?.trim());
    expect(headings).toEqual([
      "Platform connection",
      "Webhook endpoints",
      "API keys",
      "Referral programme",
    ]);
    await expectNoAxeViolations();
  });

  test("a section that fails says so and tries again, the others work", async () => {
    serveIntegrations();
    serve(
      http.get(paths.keys, () => problemResponse("internal-server-error", "Boom."), { once: true }),
    );
    await open();
    const keys = section("API keys");
    await expect
      .element(keys.getByRole("alert"))
      .toHaveTextContent("The server failed. Try again in a moment.");
    await expect.element(section("Platform connection")).toHaveTextContent("WooCommerce");
    await expectNoAxeViolations();
    await userEvent.click(keys.getByRole("button", { name: "Try again" }));
    await expect
      .element(keys.getByRole("listitem").filter({ hasText: "lk_7f3k9q2m4x" }))
      .toBeVisible();
  });

  test("at 375 px wide, in French: nothing scrolls sideways", async () => {
    await page.viewport(375, 740);
    await changeLocale("fr", { persist: false });
    serveIntegrations();
    await startApp(screenUrl, signedIn);
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Intégrations" }))
      .toBeVisible();
    await expect
      .element(page.getByRole("heading", { level: 2, name: "Connexion à la plateforme" }))
      .toBeVisible();
    await expect.element(page.getByRole("heading", { level: 2, name: "Clés d’API" })).toBeVisible();
    await expect.element(section("Clés d’API").getByText("lk_7f3k9q2m4x")).toBeVisible();
    await userEvent.click(page.getByRole("button", { name: /Afficher le journal des envois/ }));
    await expect
      .element(page.getByRole("list", { name: /Journal des envois/ }).getByText("Échoué"))
      .toBeVisible();
    expect(hasHorizontalOverflow()).toBe(false);
    await expectNoAxeViolations();
  });
});

describe("the platform connection", () => {
  test("shows the platform and URL, says the credentials are stored, never shows them", async () => {
    serveIntegrations();
    await open();
    const platform = section("Platform connection");
    await expect.element(platform).toHaveTextContent(/Platform\s*WooCommerce/);
    await expect.element(platform).toHaveTextContent(/URL\s*https:\/\/shop\.example/);
    await expect.element(platform).toHaveTextContent(/Credentials\s*Stored \(never shown\)/);
    const key = page.getByLabelText("Consumer key");
    await expect.element(key).toHaveValue("");
    await expect.element(key).toHaveAttribute("type", "password");
    await expect.element(key).toHaveAccessibleDescription("Leave blank to keep the stored key.");
    await expect.element(platformUrl()).toHaveValue("https://shop.example");
    await expect.element(page.getByLabelText("Admin API access token")).not.toBeInTheDocument();
  });

  test("shows each platform's own fields, and saves with the keyboard", async () => {
    serveIntegrations();
    serve(
      http.put(paths.platform, async ({ request }) => {
        const body = (await request.json()) as { platform: string; url: string };
        return HttpResponse.json({
          platform: body.platform,
          url: body.url,
          hasCredentials: true,
          settings: { platform: body.platform },
        });
      }),
    );
    await open();
    const select = page.getByRole("combobox", { name: "Platform" });
    await userEvent.selectOptions(select, "shopify");
    await expect.element(page.getByLabelText("Admin API access token")).toBeVisible();
    await expect.element(page.getByLabelText("Admin API version")).toHaveValue("2026-10");
    await expect.element(page.getByLabelText("Consumer key")).not.toBeInTheDocument();
    // Another platform's credentials are not the stored ones.
    await expect
      .element(page.getByLabelText("Admin API access token"))
      .toHaveAccessibleDescription("Write-only: never shown once saved.");

    await userEvent.selectOptions(select, "sandbox");
    await expect.element(page.getByText(/The sandbox keeps the codes/)).toBeVisible();
    await expect.element(platformUrl()).not.toBeInTheDocument();

    await userEvent.selectOptions(select, "prestashop");
    const save = page.getByRole("button", { name: "Save the connection" });
    (save.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    const key = page.getByLabelText("Webservice key");
    await expect.element(key).toHaveAttribute("aria-invalid", "true");
    await expect.element(key).toHaveAccessibleDescription(/This field is required\./);
    const url = platformUrl();
    await expect.element(url).toHaveAccessibleDescription(/Enter a web address/);
    expect(focused()).toBe(url.element());
    expect(requestsTo(paths.platform).filter((r) => r.method === "PUT")).toHaveLength(0);
    await expectNoAxeViolations();

    await userEvent.keyboard("https://shop.example/");
    await userEvent.tab();
    await userEvent.keyboard("WSKEY123");
    await userEvent.tab();
    await userEvent.keyboard("{Backspace}2");
    await userEvent.keyboard("{Enter}");
    const saved = page.getByRole("status").filter({ hasText: "Connection saved." });
    await expect.element(saved).toBeVisible();
    expect(focused()).toBe(saved.element());
    const [sent] = requestsTo(paths.platform).filter((r) => r.method === "PUT");
    expect(await sent!.json()).toEqual({
      platform: "prestashop",
      url: "https://shop.example/",
      webserviceKey: "WSKEY123",
      languageId: 2,
      currencyId: 1,
    });
    await expect.element(section("Platform connection")).toHaveTextContent(/Platform\s*PrestaShop/);
    // Write-only: the key typed is gone from the page.
    await expect.element(page.getByLabelText("Webservice key")).toHaveValue("");
  });

  test("the server's refusal of a field shows next to it", async () => {
    serveIntegrations();
    serve(
      http.put(paths.platform, () =>
        problemResponse("validation-failed", "The URL is not allowed.", [
          { location: "body", pointer: "/url", message: "is not allowed", code: "custom" },
        ]),
      ),
    );
    await open();
    await userEvent.fill(page.getByLabelText("Consumer key"), "ck_1");
    await userEvent.fill(page.getByLabelText("Consumer secret"), "cs_1");
    await userEvent.click(page.getByRole("button", { name: "Save the connection" }));
    const url = platformUrl();
    await expect.element(url).toHaveAccessibleDescription(/is not allowed/);
    expect(focused()).toBe(url.element());
  });

  test("tests the connection: the platform's answer, its reason and how long it took", async () => {
    serveIntegrations();
    serve(
      http.post(paths.platformTest, () => HttpResponse.json(example("testPlatformConnection")), {
        once: true,
      }),
      http.post(paths.platformTest, () =>
        HttpResponse.json({
          platform: "woocommerce",
          ok: true,
          reason: null,
          cause: null,
          httpStatus: null,
          message: null,
          durationMs: 95,
        }),
      ),
    );
    await open();
    const button = page.getByRole("button", { name: "Test the connection" });
    await userEvent.click(button);
    const result = section("Platform connection").getByRole("status");
    await expect
      .element(result)
      .toHaveTextContent(
        "The platform refused the credentials. WooCommerce refused the credentials (HTTP 401): check the consumer key and consumer secret, and that they may read customers and write coupons. The platform answered in 182 ms.",
      );
    await expectNoAxeViolations();
    await userEvent.click(button);
    await expect
      .element(result)
      .toHaveTextContent("The connection works. The platform answered in 95 ms.");
    expect(focused()).toBe(button.element());
  });
});

describe("the webhook endpoints", () => {
  test("adds an endpoint: its secret shows once, with a copy button", async () => {
    serveIntegrations();
    serve(
      http.post(paths.webhooks, () =>
        HttpResponse.json(
          { ...example("createWebhookEndpoint"), id: 4, url: "https://shop.example/hooks" },
          { status: 201 },
        ),
      ),
    );
    await open();
    const webhooks = section("Webhook endpoints");
    await expect.element(webhooks).toHaveTextContent(/Events\s*Points earned, Reward obtained/);

    const url = section("Webhook endpoints").getByRole("textbox", { name: "URL" });
    await userEvent.fill(url, "not a url");
    await userEvent.click(page.getByRole("button", { name: "Add the endpoint" }));
    await expect.element(url).toHaveAccessibleDescription(/Enter a web address/);
    expect(requestsTo(paths.webhooks).filter((r) => r.method === "POST")).toHaveLength(0);

    await userEvent.fill(url, "https://shop.example/hooks");
    await userEvent.click(page.getByRole("checkbox", { name: "Order refunded" }));
    await userEvent.click(page.getByRole("checkbox", { name: "Points deducted" }));
    await userEvent.click(page.getByRole("button", { name: "Add the endpoint" }));

    const secret = page.getByRole("group", { name: "Endpoint added: its signing secret" });
    await expect.element(secret).toHaveTextContent("Copy it now: you will not see it again.");
    await expect.element(secret).toHaveTextContent(example("createWebhookEndpoint").secret);
    expect(focused()).toBe(secret.element());
    const [sent] = requestsTo(paths.webhooks).filter((r) => r.method === "POST");
    expect(await sent!.json()).toEqual({
      url: "https://shop.example/hooks",
      events: ["ORDER_REFUNDED", "POINTS_DEDUCTED"],
    });
    await expectNoAxeViolations();

    await userEvent.click(secret.getByRole("button", { name: "Copy the secret" }));
    expect(await navigator.clipboard.readText()).toBe(example("createWebhookEndpoint").secret);
    await userEvent.click(secret.getByRole("button", { name: "I have copied it" }));
    await expect.element(secret).not.toBeInTheDocument();
    expect(document.body.innerHTML).not.toContain("whsec_");
    const item = webhooks.getByRole("listitem").filter({ hasText: "https://shop.example/hooks" });
    expect(focused()).toBe(item.element());
  });

  test("deletes an endpoint after a confirmation that names it", async () => {
    serveIntegrations();
    serve(
      http.delete(`${paths.webhooks}/3`, () => HttpResponse.json(example("deleteWebhookEndpoint"))),
    );
    await open();
    const remove = page.getByRole("button", {
      name: "Delete https://shop.example/webhooks/loyalty",
    });
    await userEvent.click(remove);
    const dialog = page.getByRole("dialog", { name: "Delete this webhook endpoint?" });
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(/https:\/\/shop\.example\/webhooks\/loyalty/);
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();
    expect(focused()).toBe(remove.element());

    await userEvent.keyboard("{Enter}");
    await userEvent.click(dialog.getByRole("button", { name: "Delete the endpoint" }));
    const item = section("Webhook endpoints").getByRole("listitem").first();
    await expect.element(item).toHaveTextContent("Deleted");
    await expect.element(remove).not.toBeInTheDocument();
    expect(focused()).toBe(item.element());
    expect(requestsTo(`${paths.webhooks}/3`)).toHaveLength(1);
    await expectNoAxeViolations();
  });

  test("shows an endpoint's delivery log: filter, more, and send a delivery again", async () => {
    serveIntegrations();
    const delivery = example("listWebhookDeliveries").deliveries[0]!;
    serve(
      http.get(paths.deliveries, ({ request }) => {
        const query = queryOf(request);
        if (query["cursor"] === "ODgxMQ") {
          return HttpResponse.json({
            deliveries: [
              {
                ...delivery,
                id: 8811,
                eventId: 70210,
                event: "REWARD_OBTAINED",
                status: "delivered",
                attempts: 1,
                lastStatusCode: 200,
                lastError: null,
                deliveredAt: "2026-09-13T07:00:01.000Z",
              },
            ],
            nextCursor: null,
          });
        }
        if (query["status"] === "pending")
          return HttpResponse.json({ deliveries: [], nextCursor: null });
        return HttpResponse.json(example("listWebhookDeliveries"));
      }),
      http.post(`${paths.deliveries}/8812/redeliver`, () =>
        HttpResponse.json(example("redeliverWebhook")),
      ),
    );
    await open();
    const toggle = page.getByRole("button", { name: /Show the delivery log/ });
    await userEvent.click(toggle);
    await expect
      .element(page.getByRole("button", { name: /Hide the delivery log/ }))
      .toHaveAttribute("aria-expanded", "true");
    const log = page.getByRole("list", { name: /Delivery log/ });
    const failed = log.getByRole("listitem").first();
    await expect.element(failed).toHaveTextContent(/Points earned\s*Failed/);
    await expect.element(failed).toHaveTextContent(/Attempts\s*8/);
    await expect.element(failed).toHaveTextContent("HTTP 500 · The endpoint answered HTTP 500.");
    await expect.element(failed).toHaveTextContent(/Next try\s*None: given up/);
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("button", { name: "Load more deliveries" }));
    const delivered = log.getByRole("listitem").filter({ hasText: "Reward obtained" });
    await expect.element(delivered).toHaveTextContent(/Delivered/);
    expect(focused()).toBe(delivered.element());
    expect(queryOf(requestsTo(paths.deliveries).at(-1)!)).toEqual({ cursor: "ODgxMQ" });

    await userEvent.click(failed.getByRole("button", { name: "Send again event 70211" }));
    await expect.element(failed).toHaveTextContent(/Points earned\s*Pending/);
    expect(requestsTo(`${paths.deliveries}/8812/redeliver`)).toHaveLength(1);
    await expect
      .element(
        page
          .getByRole("status")
          .getByText("Event 70211 will be sent again: its delivery is pending."),
      )
      .toBeInTheDocument();

    await userEvent.selectOptions(page.getByRole("combobox", { name: "Show" }), "pending");
    await expect.element(page.getByText("No delivery with this status.")).toBeVisible();
    expect(queryOf(requestsTo(paths.deliveries).at(-1)!)).toEqual({ status: "pending" });
    await expectNoAxeViolations();
  });
});

describe("the API keys", () => {
  test("lists active and revoked keys; a new key shows once, with a copy button", async () => {
    serveIntegrations();
    serve(http.post(paths.keys, () => HttpResponse.json(example("createApiKey"), { status: 201 })));
    await open();
    const keys = section("API keys");
    const revoked = keys.getByRole("listitem").filter({ hasText: "Before rotation" });
    await expect.element(revoked).toHaveTextContent(/Revoked/);
    await expect.element(revoked.getByRole("button")).not.toBeInTheDocument();

    await userEvent.fill(page.getByRole("textbox", { name: "Label" }), "Production");
    await userEvent.keyboard("{Enter}");
    const created = page.getByRole("group", { name: "Key “Production” created" });
    await expect.element(created).toHaveTextContent("Copy it now: you will not see it again.");
    await expect.element(created).toHaveTextContent(example("createApiKey").key);
    expect(focused()).toBe(created.element());
    const [sent] = requestsTo(paths.keys).filter((r) => r.method === "POST");
    expect(await sent!.json()).toEqual({ label: "Production" });
    await expectNoAxeViolations();

    await userEvent.click(created.getByRole("button", { name: "Copy the key" }));
    expect(await navigator.clipboard.readText()).toBe(example("createApiKey").key);
  });

  test("a key shown once stays with its store: switching stores does not show it", async () => {
    serveIntegrations();
    serve(http.post(paths.keys, () => HttpResponse.json(example("createApiKey"), { status: 201 })));
    await startApp(screenUrl, { signedIn: { storeId: null } });
    await userEvent.fill(page.getByRole("textbox", { name: "Label" }), "Production");
    await userEvent.keyboard("{Enter}");
    const key = example("createApiKey").key;
    await expect.element(section("API keys")).toHaveTextContent(key);

    await userEvent.selectOptions(
      page.getByLabelText("Store", { exact: true }),
      String(OTHER_STORE.id),
    );
    await userEvent.click(page.getByRole("button", { name: "Open", exact: true }));
    await expect.element(page.getByRole("banner")).toHaveTextContent(OTHER_STORE.name);
    await expect.element(section("API keys").getByText("Before rotation")).toBeVisible();
    await expect.element(page.getByRole("group", { name: /created/ })).not.toBeInTheDocument();
    await expect.element(page.getByText(key)).not.toBeInTheDocument();
  });

  test("revokes a key after a confirmation that names it", async () => {
    serveIntegrations();
    serve(
      http.delete(`${paths.keys}/lk_7f3k9q2m4x`, () => HttpResponse.json(example("revokeApiKey"))),
    );
    await open();
    const revoke = page.getByRole("button", { name: "Revoke Production" });
    await userEvent.click(revoke);
    const dialog = page.getByRole("dialog", { name: "Revoke the key “Production”?" });
    await expect.element(dialog).toHaveAccessibleDescription(/Key lk_7f3k9q2m4x/);
    await expectNoAxeViolations();
    await userEvent.click(dialog.getByRole("button", { name: "Revoke the key" }));
    const item = section("API keys").getByRole("listitem").filter({ hasText: "lk_7f3k9q2m4x" });
    await expect.element(item).toHaveTextContent(/Revoked/);
    await expect.element(revoke).not.toBeInTheDocument();
    expect(focused()).toBe(item.element());
    expect(requestsTo(`${paths.keys}/lk_7f3k9q2m4x`)[0]!.method).toBe("DELETE");
  });
});

describe("the referral programme", () => {
  test("without one yet, says so above the form, then saves one", async () => {
    serveIntegrations();
    serve(
      http.get(paths.referral, () => problemResponse("not-found", "No referral programme.")),
      http.put(paths.referral, async ({ request }) => HttpResponse.json(await request.json())),
    );
    await open();
    const referral = section("Referral programme");
    await expect.element(referral).toHaveTextContent("No referral programme yet.");
    await expectNoAxeViolations();

    await userEvent.fill(
      page.getByRole("spinbutton", { name: "Referrer's bonus (points)" }),
      "300",
    );
    await userEvent.selectOptions(page.getByRole("combobox", { name: "Kind" }), "fixed_amount");
    await expect
      .element(page.getByRole("textbox", { name: "Currency" }))
      .toHaveValue(STORE.currency);
    await userEvent.fill(page.getByRole("spinbutton", { name: "Amount off" }), "150");
    await userEvent.fill(page.getByRole("spinbutton", { name: "Valid for (days)" }), "30");
    await userEvent.click(page.getByRole("button", { name: "Save the referral programme" }));

    const saved = page.getByRole("status").filter({ hasText: "Referral programme saved." });
    await expect.element(saved).toBeVisible();
    expect(focused()).toBe(saved.element());
    const [sent] = requestsTo(paths.referral).filter((r) => r.method === "PUT");
    expect(await sent!.json()).toEqual({
      active: true,
      referrerBonus: 300,
      refereeVoucher: {
        kind: "fixed_amount",
        value: 150,
        currency: STORE.currency,
        minimumOrderAmount: null,
        validityDays: 30,
      },
      landingUrl: null,
    });
    await expect.element(referral).not.toHaveTextContent("No referral programme yet.");
  });

  test("a voucher's problems show next to their fields; free shipping has no value", async () => {
    serveIntegrations();
    serve(
      http.put(paths.referral, () =>
        problemResponse("validation-failed", "The landing page is refused.", [
          { location: "body", pointer: "/landingUrl", message: "is not allowed", code: "custom" },
        ]),
      ),
    );
    await open();
    await expect.element(page.getByRole("spinbutton", { name: "Percentage off" })).toHaveValue(10);
    await userEvent.fill(page.getByRole("spinbutton", { name: "Percentage off" }), "150");
    await userEvent.click(page.getByRole("button", { name: "Save the referral programme" }));
    const value = page.getByRole("spinbutton", { name: "Percentage off" });
    await expect.element(value).toHaveAccessibleDescription(/Enter 100 or less\./);
    expect(focused()).toBe(value.element());
    expect(requestsTo(paths.referral).filter((r) => r.method === "PUT")).toHaveLength(0);
    await expectNoAxeViolations();

    await userEvent.selectOptions(page.getByRole("combobox", { name: "Kind" }), "free_shipping");
    await expect
      .element(page.getByRole("spinbutton", { name: "Percentage off" }))
      .not.toBeInTheDocument();
    await userEvent.click(page.getByRole("button", { name: "Save the referral programme" }));
    const landing = page.getByRole("textbox", { name: "Landing page" });
    await expect.element(landing).toHaveAccessibleDescription(/is not allowed/);
    const [sent] = requestsTo(paths.referral).filter((r) => r.method === "PUT");
    expect(await sent!.json()).toMatchObject({
      refereeVoucher: { kind: "free_shipping", value: null, currency: null },
      landingUrl: "https://shop.example/welcome",
    });
  });
});
