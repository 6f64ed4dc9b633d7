import { clearCache } from "@loyalty/widgets";
import { calculateManyPointsQuerySchema, type WidgetKind } from "@loyalty/shared-types";
import { afterEach, describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { changeLocale } from "../src/i18n/locale.js";
import { session } from "../src/api/session.js";
import {
  HttpResponse,
  held,
  http,
  problemResponse,
  requestsTo,
  serve,
  useApiMock,
  worker,
} from "./support/api-mock.js";
import { startApp, useApp } from "./support/app.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { focused } from "./support/dom.js";
import { OTHER_STORE, STORE, example } from "./support/fixtures.js";
import { recordLayoutShifts } from "./support/layout-shift.js";

useApiMock();
useApp();
// The widgets keep what they read for the page's life: each test starts from the API.
afterEach(() => clearCache());

const SCREEN_URL = `/back-office/stores/${STORE.id}/widgets`;
const signedIn = { signedIn: { storeId: STORE.id } } as const;
const admin = (kind: WidgetKind) => `/admin/stores/${STORE.id}/widgets/${kind}`;

const configurations = {
  "product-points": () => example("getProductPointsWidgetConfiguration"),
  cart: () => example("getCartWidgetConfiguration"),
  "program-presentation": () => example("getProgramPresentationWidgetConfiguration"),
  launcher: () => example("getLauncherWidgetConfiguration"),
} satisfies Record<WidgetKind, () => unknown>;

/** What the public API of the same server answers the preview's widgets (the saved config). */
const publicApi = [
  http.get("/store/widget/product-points", () =>
    HttpResponse.json(example("getProductPointsWidget")),
  ),
  http.get("/store/widget/cart", () => HttpResponse.json(example("getCartWidget"))),
  http.get("/store/widget/program-presentation", () =>
    HttpResponse.json(example("getProgramPresentationWidget")),
  ),
  http.get("/store/widget/launcher", () => HttpResponse.json(example("getLauncherWidget"))),
  http.get("/reward/list", () => HttpResponse.json(example("listRewards"))),
  // The default rule of the examples' store: one point per currency unit, floored.
  http.get("/point/product-points/calculate-many", ({ request }) => {
    const params = new URL(request.url).searchParams;
    const { items } = calculateManyPointsQuerySchema.parse({
      domain: params.get("domain"),
      items: params.getAll("items"),
    });
    return HttpResponse.json({
      items: items.map(({ product, price, categories = [] }) => ({
        product: product ?? null,
        price,
        categories,
        points: Math.floor(price),
        type: "default",
        id: 1,
      })),
    });
  }),
  http.get("https://shop.example/images/*", () => new HttpResponse(null, { status: 404 })),
];

/** The back-office's reads and writes of the three configurations: a PUT answers its body. */
function serveConfigurations() {
  serve(
    ...publicApi,
    ...(Object.keys(configurations) as WidgetKind[]).flatMap((kind) => [
      http.get(admin(kind), () => HttpResponse.json(configurations[kind]())),
      http.put(admin(kind), async ({ request }) =>
        HttpResponse.json({
          kind,
          isDefault: false,
          updatedAt: "2026-11-26T09:15:00.000Z",
          config: await request.json(),
        }),
      ),
    ]),
  );
}

function screen(): ShadowRoot {
  return document
    .querySelector("bo-app")!
    .shadowRoot!.querySelector("bo-shell")!
    .shadowRoot!.querySelector("bo-widgets-screen")!.shadowRoot!;
}

/** The text the preview's widget renders (inside its own shadow root). */
function previewText(tag: string): string {
  const widget = screen().querySelector(tag);
  return (widget?.shadowRoot?.textContent ?? "").replace(/\s+/g, " ").trim();
}

const puts = (kind: WidgetKind) =>
  requestsTo(admin(kind)).filter((request) => request.method === "PUT");

const deletes = (kind: WidgetKind) =>
  requestsTo(admin(kind)).filter((request) => request.method === "DELETE");

/** What a reset of the product points answers: the default, other than the saved one. */
const PRODUCT_POINTS_DEFAULT = {
  kind: "product-points",
  isDefault: true,
  updatedAt: null,
  config: {
    ...example("getProductPointsWidgetConfiguration").config,
    template: "+{points} points",
  },
} as const;

const restoreButton = () => page.getByRole("button", { name: "Restore the default" });

const tab = (name: string) => page.getByRole("tab", { name });

/** The product points' text (its template). */
const templateField = () => page.getByRole("textbox", { name: "Text", exact: true });

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

/** A server that keeps what is published: a reload reads it back. */
function serveSaved(kind: WidgetKind, config: object = configurations[kind]().config): void {
  let saved: object = { ...configurations[kind](), config };
  serve(
    http.get(admin(kind), () => HttpResponse.json(saved)),
    http.put(admin(kind), async ({ request }) => {
      saved = {
        kind,
        isDefault: false,
        updatedAt: "2026-11-26T09:15:00.000Z",
        config: await request.json(),
      };
      return HttpResponse.json(saved);
    }),
  );
}

/** The screen again, as after a reload of the page. */
async function reload(): Promise<void> {
  document.body.replaceChildren();
  clearCache();
  await startApp(location.pathname + location.search, signedIn);
}

/** The language switcher's list: the language whose texts the form edits. */
const textLanguage = () => page.getByLabelText("Language of the texts");

/** The text of the switcher's chosen language. */
const shownLanguage = (switcher = textLanguage()) =>
  (switcher.element() as HTMLSelectElement).selectedOptions[0]?.textContent?.trim();

const addLanguageButton = () => page.getByRole("button", { name: "Add a language" });

const languageField = () => page.getByLabelText("Language to add");

/** Adds `typed` with the switcher's "Add a language", by keyboard. */
async function addLanguage(typed: string): Promise<void> {
  (addLanguageButton().element() as HTMLElement).focus();
  await userEvent.keyboard("{Enter}");
  await expect.poll(focused).toBe(languageField().element());
  await userEvent.keyboard(`${typed}{Enter}`);
}

const sentConfig = async (kind: WidgetKind, index = 0) =>
  (await puts(kind)[index]!.json()) as Record<string, unknown>;

describe("the widgets screen", () => {
  test("shows the product points form beside a live preview of the real widget", async () => {
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Widgets" })).toBeVisible();
    const tabs = page.getByRole("tablist", { name: "Widgets" }).getByRole("tab");
    expect(tabs.elements().map((element) => element.textContent?.trim())).toEqual([
      "Product points",
      "Cart",
      "Programme page",
      "Launcher",
    ]);
    await expect.element(tab("Product points")).toHaveAttribute("aria-selected", "true");
    const panel = page.getByRole("tabpanel", { name: "Product points" });
    await expect
      .element(panel.getByRole("textbox", { name: "Text", exact: true }))
      .toHaveValue("Earn {points} points with this product");
    await expect.element(panel.getByText(/^Last published /)).toBeVisible();

    await expect
      .poll(() => previewText("loyalty-product-points"))
      .toBe("Earn 49 points with this product");
    const widget = screen().querySelector("loyalty-product-points")!;
    expect(widget.getAttribute("api-base")).toBe(location.origin);
    expect(widget.getAttribute("domain")).toBe(STORE.domain);
    await expect.element(panel.getByText("A product at €49.90.")).toBeVisible();
    await expectNoAxeViolations();
  });

  test("typing changes the preview at once; nothing is sent until Publish", async () => {
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    const text = templateField();
    await expect.element(text).toHaveValue("Earn {points} points with this product");
    await expect.poll(() => previewText("loyalty-product-points")).toContain("Earn 49");

    await userEvent.fill(text, "Collect {points} points here");
    await expect.poll(() => previewText("loyalty-product-points")).toBe("Collect 49 points here");
    await userEvent.click(page.getByLabelText("Show the points icon"));
    await expect
      .poll(
        () => !!screen().querySelector("loyalty-product-points")!.shadowRoot!.querySelector("svg"),
      )
      .toBe(false);
    await expect.element(page.getByRole("status").getByText("Unpublished changes")).toBeVisible();
    expect(puts("product-points")).toHaveLength(0);

    const publish = page.getByRole("button", { name: "Publish" });
    await userEvent.click(publish);
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    expect(puts("product-points")).toHaveLength(1);
    expect(await puts("product-points")[0]!.json()).toEqual({
      ...example("getProductPointsWidgetConfiguration").config,
      template: "Collect {points} points here",
      showIcon: false,
    });
    await expect.element(page.getByText(/^Last published Nov 26, 2026/)).toBeVisible();
    await expect.poll(focused).toBe(publish.element());
  });

  test("Discard changes brings back the published configuration, in the form and the preview", async () => {
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    const text = templateField();
    await expect.poll(() => previewText("loyalty-product-points")).toContain("Earn 49");
    await userEvent.fill(text, "Nothing {points}");
    await expect.poll(() => previewText("loyalty-product-points")).toBe("Nothing 49");

    const discard = page.getByRole("button", { name: "Discard changes" });
    await userEvent.click(discard);
    await expect.element(text).toHaveValue("Earn {points} points with this product");
    await expect
      .poll(() => previewText("loyalty-product-points"))
      .toBe("Earn 49 points with this product");
    await expect.element(discard).toHaveAttribute("aria-disabled", "true");
    await expect.poll(focused).toBe(discard.element());
    expect(puts("product-points")).toHaveLength(0);
  });

  test("the schema's problems show next to their fields, and nothing is sent", async () => {
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    const text = templateField();
    await expect.element(text).toHaveValue("Earn {points} points with this product");
    await userEvent.clear(text);
    await userEvent.fill(page.getByLabelText("Accent colour", { exact: true }), "green-ish");
    await userEvent.click(page.getByRole("button", { name: "Publish" }));

    await expect.element(text).toHaveAttribute("aria-invalid", "true");
    await expect.element(text).toHaveAccessibleDescription(/This field is required\./);
    await expect
      .element(page.getByLabelText("Accent colour", { exact: true }))
      .toHaveAccessibleDescription(/Enter a colour such as #1a73e8/);
    await expect.poll(focused).toBe(text.element());
    expect(puts("product-points")).toHaveLength(0);
    await expectNoAxeViolations();
  });

  test("a problem the server finds shows next to its field", async () => {
    serveConfigurations();
    serve(
      http.put(admin("product-points"), () =>
        problemResponse("validation-failed", "The request body is invalid.", [
          {
            location: "body",
            pointer: "/template",
            code: "too_big",
            message: "Too big: expected string to have <=200 characters",
          },
        ]),
      ),
    );
    await startApp(SCREEN_URL, signedIn);
    const text = templateField();
    await expect.element(text).toHaveValue("Earn {points} points with this product");
    await userEvent.fill(text, "Earn {points} points, really");
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(text)
      .toHaveAccessibleDescription(/Too big: expected string to have <=200 characters/);
    await expect.poll(focused).toBe(text.element());
    await expect.element(page.getByRole("status").getByText("Unpublished changes")).toBeVisible();
    await expectNoAxeViolations();
  });

  test("the tabs follow the arrow keys, and ask before dropping unpublished changes", async () => {
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    await expect.element(templateField()).toBeVisible();
    (tab("Product points").element() as HTMLElement).focus();

    await userEvent.keyboard("{ArrowRight}");
    await expect.element(tab("Cart")).toHaveAttribute("aria-selected", "true");
    await expect.poll(focused).toBe(tab("Cart").element());
    await expect.element(tab("Product points")).toHaveAttribute("tabindex", "-1");
    const cart = page.getByRole("tabpanel", { name: "Cart" });
    await expect.element(cart.getByLabelText("Title")).toHaveValue("Trail & Co rewards");
    expect(location.search).toBe("?widget=cart");
    await userEvent.keyboard("{End}");
    await expect.element(tab("Launcher")).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{Home}");
    await expect.element(tab("Product points")).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{ArrowLeft}");
    await expect.element(tab("Launcher")).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{ArrowRight}");
    await expect.element(templateField()).toBeVisible();

    // Unpublished changes: switching asks; Escape keeps them.
    await userEvent.fill(templateField(), "Draft {points}");
    (tab("Product points").element() as HTMLElement).focus();
    await userEvent.keyboard("{ArrowRight}");
    const dialog = page.getByRole("dialog", { name: "Discard your changes?" });
    await expect.element(dialog).toBeVisible();
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(
        "Your changes to the Product points widget are not published: they will be lost.",
      );
    await expectNoAxeViolations();
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();
    await expect.poll(focused).toBe(tab("Product points").element());
    await expect.element(tab("Product points")).toHaveAttribute("aria-selected", "true");
    await expect.element(templateField()).toHaveValue("Draft {points}");

    await userEvent.keyboard("{ArrowRight}");
    await userEvent.click(page.getByRole("button", { name: "Discard changes" }).last());
    await expect.element(tab("Cart")).toHaveAttribute("aria-selected", "true");
    await expect.poll(focused).toBe(tab("Cart").element());
    expect(puts("product-points")).toHaveLength(0);
  });

  test("leaving the screen with unpublished changes asks first; so does closing the tab", async () => {
    serveConfigurations();
    serve(http.get(`/admin/stores/${STORE.id}/rewards`, () => HttpResponse.json([])));
    await startApp(SCREEN_URL, signedIn);
    // Whether closing the tab would ask. msw's worker takes "beforeunload" for the page going
    // away and stops answering: it starts again after.
    const unload = async () => {
      const event = new Event("beforeunload", { cancelable: true });
      window.dispatchEvent(event);
      worker.stop();
      await worker.start({ quiet: true, onUnhandledRequest: "error" });
      return event.defaultPrevented;
    };
    await expect.element(templateField()).toBeVisible();
    expect(await unload()).toBe(false);
    await userEvent.fill(templateField(), "Draft {points}");
    expect(await unload()).toBe(true);

    const rewards = page.getByRole("navigation").getByRole("link", { name: "Rewards" });
    await userEvent.click(rewards);
    const dialog = page.getByRole("dialog", { name: "Discard your changes?" });
    await expect.element(dialog).toBeVisible();
    await userEvent.click(page.getByRole("button", { name: "Keep editing" }));
    expect(location.pathname).toBe(SCREEN_URL);
    await expect.element(templateField()).toHaveValue("Draft {points}");

    await userEvent.click(rewards);
    await userEvent.click(dialog.getByRole("button", { name: "Discard changes" }));
    await expect.element(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/rewards`);
  });

  test("Back, the store switcher and sign-out ask too; Keep editing stays with the draft", async () => {
    serveConfigurations();
    // A service admin, who has the store switcher; the screen was reached from the overview.
    await startApp(`/back-office/stores/${STORE.id}/overview`, { signedIn: { storeId: null } });
    await userEvent.click(page.getByRole("navigation").getByRole("link", { name: "Widgets" }));
    await userEvent.fill(templateField(), "Draft {points}");
    const dialog = page.getByRole("dialog", { name: "Discard your changes?" });
    const keepEditing = async () => {
      await expect.element(dialog).toBeVisible();
      await userEvent.click(dialog.getByRole("button", { name: "Keep editing" }));
      await expect.element(dialog).not.toBeInTheDocument();
      expect(location.pathname).toBe(SCREEN_URL);
      await expect.element(templateField()).toHaveValue("Draft {points}");
    };

    // The browser's Back button: the screen stays until the admin chooses.
    history.back();
    await keepEditing();

    const switcher = page.getByLabelText("Store", { exact: true });
    await userEvent.selectOptions(switcher, String(OTHER_STORE.id));
    await userEvent.click(page.getByRole("button", { name: "Open", exact: true }));
    await keepEditing();
    await expect.element(switcher).toHaveValue(String(STORE.id));

    await userEvent.click(page.getByRole("button", { name: "Sign out" }));
    await keepEditing();
    expect(session.current).toBeDefined();

    // Back again, and this time the changes go: the overview it came from.
    history.back();
    await expect.element(dialog).toBeVisible();
    await userEvent.click(dialog.getByRole("button", { name: "Discard changes" }));
    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/overview`);
    expect(puts("product-points")).toHaveLength(0);
  });

  test("a sample earning no points says why the product widget shows nothing", async () => {
    serveConfigurations();
    // A store without a default rule: the sample product earns nothing.
    serve(
      http.get("/point/product-points/calculate-many", ({ request }) =>
        HttpResponse.json({
          items: new URL(request.url).searchParams
            .getAll("items")
            .flatMap((items) => items.split(","))
            .map(() => ({
              product: null,
              price: 1,
              categories: [],
              points: 0,
              type: null,
              id: null,
            })),
        }),
      ),
      http.get(`/admin/stores/${STORE.id}/points-preview`, () =>
        HttpResponse.json({ ...example("previewProductPoints"), points: 0, linePoints: 0 }),
      ),
    );
    await startApp(SCREEN_URL, signedIn);
    const note = page.getByText(/Your rules give this product no points/);
    await expect.element(note).toBeVisible();
    await expect
      .element(page.getByRole("link", { name: "Set the earning rules" }))
      .toHaveAttribute("href", `/back-office/stores/${STORE.id}/programme`);
    await expectNoAxeViolations();

    // Shown at zero, the widget explains itself: the note goes.
    await userEvent.click(page.getByLabelText("Hide it when the product earns no points"));
    await expect.element(note).not.toBeInTheDocument();
  });

  test("Back while the question is asked keeps one question; a dialog of a screen left goes with it", async () => {
    serveConfigurations();
    await startApp(`/back-office/stores/${STORE.id}/overview`, signedIn);
    await userEvent.click(page.getByRole("navigation").getByRole("link", { name: "Widgets" }));
    await userEvent.fill(templateField(), "Draft {points}");
    const dialogs = () => document.querySelectorAll("bo-confirm-dialog").length;

    history.back();
    const dialog = page.getByRole("dialog", { name: "Discard your changes?" });
    await expect.element(dialog).toBeVisible();
    // Back again, twice, while it asks: the same question, still here.
    history.back();
    await new Promise((resolve) => setTimeout(resolve, 100));
    history.back();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(dialogs()).toBe(1);
    expect(location.pathname).toBe(SCREEN_URL);
    await userEvent.click(dialog.getByRole("button", { name: "Discard changes" }));
    // One step back, as the admin asked: the overview, not further.
    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/overview`);
    expect(dialogs()).toBe(0);

    // Nothing pending: Back with another question open leaves, and the question goes.
    history.forward();
    await expect.element(page.getByRole("heading", { level: 1, name: "Widgets" })).toBeVisible();
    await userEvent.click(page.getByRole("button", { name: "Restore the default" }));
    await expect.element(page.getByRole("dialog")).toBeVisible();
    history.back();
    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    expect(dialogs()).toBe(0);
    expect(deletes("product-points")).toHaveLength(0);
  });

  test("a configuration never published says it uses the default texts", async () => {
    serveConfigurations();
    serve(
      http.get(admin("product-points"), () =>
        HttpResponse.json({
          ...configurations["product-points"](),
          isDefault: true,
          updatedAt: null,
        }),
      ),
    );
    await startApp(SCREEN_URL, signedIn);
    await expect.element(page.getByText("Using the default texts in English.")).toBeVisible();
    await expect.element(page.getByText("Never published.")).toBeVisible();
    // Nothing to restore: the default is what the storefront shows.
    await expect.element(restoreButton()).not.toBeInTheDocument();
  });

  test("Restore the default, with the keyboard: confirmed, the saved configuration is deleted and the form and preview show the default", async () => {
    serveConfigurations();
    serve(http.delete(admin("product-points"), () => HttpResponse.json(PRODUCT_POINTS_DEFAULT)));
    await startApp(SCREEN_URL, signedIn);
    await expect.element(templateField()).toHaveValue("Earn {points} points with this product");
    await expect
      .poll(() => previewText("loyalty-product-points"))
      .toBe("Earn 49 points with this product");

    (restoreButton().element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    const dialog = page.getByRole("dialog", { name: "Restore the default Product points widget?" });
    await expect.element(dialog).toBeVisible();
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(
        "The Product points widget shows the default texts in English on your store at once. The configuration you published is deleted.",
      );
    await expectNoAxeViolations();
    // The focus starts on Cancel: Tab reaches the confirming button.
    await userEvent.keyboard("{Tab}");
    await expect
      .poll(focused)
      .toBe(dialog.getByRole("button", { name: "Restore the default" }).element());
    await userEvent.keyboard("{Enter}");

    await expect.element(templateField()).toHaveValue("+{points} points");
    await expect.poll(() => previewText("loyalty-product-points")).toBe("+49 points");
    expect(deletes("product-points")).toHaveLength(1);
    expect(puts("product-points")).toHaveLength(0);
    await expect.element(page.getByText("Using the default texts in English.")).toBeVisible();
    await expect.element(page.getByText("Never published.")).toBeVisible();
    await expect.element(restoreButton()).not.toBeInTheDocument();
    await expect
      .element(
        page
          .getByRole("status")
          .getByText(
            "Default restored: the Product points widget shows the default texts in English.",
          ),
      )
      .toBeInTheDocument();
    // Its button gone, the focus is on what the widget uses now.
    await expect.poll(() => (focused() as HTMLElement | null)?.id).toBe("widget-state");
    await expectNoAxeViolations();
  });

  test("Restore the default, cancelled, sends nothing and keeps unpublished changes", async () => {
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    await userEvent.fill(templateField(), "Draft {points}");
    await userEvent.click(restoreButton());
    const dialog = page.getByRole("dialog", { name: "Restore the default Product points widget?" });
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(/Your unpublished changes are lost too\.$/);
    await userEvent.click(dialog.getByRole("button", { name: "Cancel" }));
    await expect.element(dialog).not.toBeInTheDocument();
    await expect.poll(focused).toBe(restoreButton().element());
    await expect.element(templateField()).toHaveValue("Draft {points}");
    expect(deletes("product-points")).toHaveLength(0);
  });

  test("Restore the default is busy while the server works, and its failure shows like the others", async () => {
    const response = held();
    serveConfigurations();
    serve(
      http.delete(admin("product-points"), async () => {
        await response.wait();
        return problemResponse("internal-server-error", "Boom.");
      }),
    );
    await startApp(SCREEN_URL, signedIn);
    await expect.element(templateField()).toBeVisible();
    await userEvent.click(restoreButton());
    await userEvent.click(
      page.getByRole("dialog").getByRole("button", { name: "Restore the default" }),
    );
    const busy = page.getByRole("button", { name: "Restoring the default…" });
    await expect.element(busy).toHaveAttribute("aria-disabled", "true");
    await expect.element(busy).toHaveAttribute("aria-busy", "true");
    await expect
      .element(page.getByRole("button", { name: "Publish" }))
      .toHaveAttribute("aria-disabled", "true");
    // A second click while it runs asks nothing and sends nothing.
    (busy.element() as HTMLElement).click();
    await expect.element(page.getByRole("dialog")).not.toBeInTheDocument();

    response.release();
    const alert = page.getByRole("alert");
    await expect.element(alert).toHaveTextContent("The server failed. Try again in a moment.");
    await expect.poll(focused).toBe(alert.element());
    await expect.element(restoreButton()).toHaveAttribute("aria-busy", "false");
    await expect.element(templateField()).toHaveValue("Earn {points} points with this product");
    expect(deletes("product-points")).toHaveLength(1);
    await expectNoAxeViolations();
  });

  test("the cart: a visitor's cart of two lines, and a turned-off widget says so", async () => {
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=cart`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Cart" });
    await expect.element(panel.getByLabelText("Title")).toHaveValue("Trail & Co rewards");
    // 49.90 × 1 → 49, 12.50 × 2 → 12 × 2.
    await expect
      .poll(() => previewText("loyalty-cart-widget"))
      .toContain("This order earns you 73 points");
    expect(previewText("loyalty-cart-widget")).toContain("Sign in to use your points");

    await userEvent.fill(panel.getByLabelText("Title"), "Your rewards");
    await expect.poll(() => previewText("loyalty-cart-widget")).toContain("Your rewards");
    // Claims ask first unless the merchant says otherwise.
    const confirm = panel.getByLabelText("Ask the customer to confirm before spending points");
    await expect.element(confirm).toBeChecked();
    await userEvent.click(confirm);
    await userEvent.click(panel.getByLabelText("Show the widget in the cart"));
    await expect
      .element(panel.getByText("The widget is turned off: the storefront shows nothing."))
      .toBeVisible();
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    expect(await puts("cart")[0]!.json()).toMatchObject({
      title: "Your rewards",
      enabled: false,
      confirmClaims: false,
    });
  });

  test("the launcher: its button and visitor's panel in the preview, and what Publish sends", async () => {
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=launcher`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Launcher" });
    await expect.element(panel.getByLabelText("Button text")).toHaveValue("Rewards");
    await expect.poll(() => previewText("loyalty-launcher")).toContain("Trail & Co rewards");
    expect(previewText("loyalty-launcher")).toContain(
      "Join Trail & Co rewards: points on every order, and rewards to spend them on.",
    );

    await userEvent.fill(panel.getByLabelText("Button text"), "My points");
    await expect.poll(() => previewText("loyalty-launcher")).toMatch(/^My points/);
    await userEvent.selectOptions(panel.getByLabelText("Button position"), "Bottom left");
    await userEvent.click(panel.getByLabelText("Let customers invite a friend"));
    await userEvent.click(panel.getByRole("button", { name: "Add a way to earn" }));
    const added = panel.getByRole("group", { name: "Way to earn 3" });
    await expect.poll(focused).toBe(added.getByLabelText("Icon").element());
    await userEvent.selectOptions(added.getByLabelText("Icon"), "A birthday");
    await userEvent.fill(added.getByLabelText("Title"), "Birthday");
    await userEvent.fill(added.getByLabelText("Text"), "100 points on your birthday.");
    await expect
      .poll(() => previewText("loyalty-launcher"))
      .toContain("Birthday 100 points on your birthday.");
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    expect(await puts("launcher")[0]!.json()).toEqual({
      ...example("getLauncherWidgetConfiguration").config,
      label: "My points",
      position: "bottom-left",
      showReferral: false,
      waysToEarn: [
        ...example("getLauncherWidgetConfiguration").config.waysToEarn,
        { icon: "birthday", title: "Birthday", text: "100 points on your birthday." },
      ],
    });
  });

  test("the programme page: the banner and the FAQ's items, in the preview and in what Publish sends", async () => {
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=program-presentation`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Programme page" });
    const bannerText = panel.getByLabelText("Banner text");
    await expect
      .element(bannerText)
      .toHaveValue("Earn points with every order and turn them into rewards.");
    await expect
      .poll(() => previewText("loyalty-program-presentation"))
      .toContain("Earn points with every order");
    await userEvent.fill(bannerText, "Points on every order.");
    await expect
      .poll(() => previewText("loyalty-program-presentation"))
      .toContain("Points on every order.");

    // A question added: the focus goes to it.
    await userEvent.click(panel.getByRole("button", { name: "Add a question" }));
    const added = panel.getByRole("group", { name: "Question 2" });
    await expect.poll(focused).toBe(added.getByLabelText("Question").element());
    await userEvent.keyboard("Can I give my points away?");
    await userEvent.fill(added.getByLabelText("Answer"), "Not yet.");
    await expect
      .poll(() => previewText("loyalty-program-presentation"))
      .toContain("Can I give my points away?");

    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    const sent = (await puts("program-presentation")[0]!.json()) as {
      header: Record<string, unknown>;
      sections: { faq: { items: unknown[] } };
    };
    expect(sent.header).toMatchObject({ text: "Points on every order." });
    expect(sent.sections.faq.items).toEqual([
      {
        question: "When do my points arrive?",
        answer: "A few seconds after your order is confirmed.",
      },
      { question: "Can I give my points away?", answer: "Not yet." },
    ]);

    // Removing an item: the focus goes to the list's "Add" button.
    await userEvent.click(panel.getByRole("button", { name: "Remove Question 1" }));
    await expect
      .poll(focused)
      .toBe(panel.getByRole("button", { name: "Add a question" }).element());
    await expect
      .element(panel.getByRole("group", { name: "Question 1" }).getByLabelText("Question"))
      .toHaveValue("Can I give my points away?");
    await expect.element(panel.getByRole("group", { name: "Question 2" })).not.toBeInTheDocument();
  });

  test("the programme page: a button to a hidden section is refused next to it", async () => {
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=program-presentation`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Programme page" });
    const first = panel.getByLabelText("First button");
    await expect.element(first).toHaveValue("scroll-points");

    // "How to earn" hidden while the first button scrolls to it: the schema refuses.
    const howToEarn = panel.getByRole("group", { name: "How to earn" });
    await userEvent.click(howToEarn.getByLabelText("Show this section"));
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(first)
      .toHaveAccessibleDescription(/This button leads to a hidden section/);
    await expect.poll(focused).toBe(first.element());
    expect(puts("program-presentation")).toHaveLength(0);
    await expectNoAxeViolations();

    // An address instead: the form asks for it, then publishes.
    await userEvent.selectOptions(first, "url");
    await userEvent.fill(
      panel.getByLabelText("Address the button opens"),
      "https://shop.example/loyalty",
    );
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    const sent = (await puts("program-presentation")[0]!.json()) as {
      header: Record<string, unknown>;
      sections: { howToEarn: { enabled: boolean } };
    };
    expect(sent.header).toMatchObject({
      primaryButtonAction: "url",
      primaryButtonUrl: "https://shop.example/loyalty",
    });
    expect(sent.sections.howToEarn.enabled).toBe(false);
  });

  test("the cart in French, by keyboard: added, translated, previewed, published and read back", async () => {
    serveConfigurations();
    serveSaved("cart");
    await startApp(`${SCREEN_URL}?widget=cart`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Cart" });
    await expect.element(panel.getByLabelText("Title")).toHaveValue("Trail & Co rewards");
    await expect.poll(() => shownLanguage()).toBe("English (default)");
    const preview = () => screen().querySelector("loyalty-cart-widget")!;
    expect(preview().getAttribute("lang")).toBe("en");

    await addLanguage("fr");
    await expect.element(textLanguage()).toHaveValue("fr");
    await expect.poll(() => shownLanguage()).toBe("French (fr)");
    await expect.poll(focused).toBe(textLanguage().element());
    await expect.element(languageField()).not.toBeInTheDocument();
    await expect
      .element(
        page.getByRole("status").getByText("French added: the form shows the texts to translate."),
      )
      .toBeInTheDocument();

    // The texts only, each saying what it translates; empty: the English text.
    const title = panel.getByLabelText("Title");
    await expect.element(title).toHaveValue("");
    await expect.element(title).toHaveAttribute("lang", "fr");
    await expect.element(title).toHaveAccessibleDescription("In English: “Trail & Co rewards”");
    await expect
      .element(panel.getByLabelText("Points the cart earns"))
      .toHaveAccessibleDescription(
        "{points} is replaced by the number of points. In English: “This order earns you {points} points”",
      );
    for (const label of ["Show the widget in the cart", "Sign-in page", "Accent colour"]) {
      await expect.element(panel.getByLabelText(label, { exact: true })).not.toBeInTheDocument();
    }
    await expect.element(panel.getByRole("group", { name: "Colours" })).not.toBeInTheDocument();
    expect(screen().querySelectorAll("form [name]:not([name^='translations.fr.'])")).toHaveLength(
      0,
    );

    // From the list, Tab goes past "Remove the texts in French" and "Add a language" to the first text.
    await userEvent.tab();
    await expect
      .poll(focused)
      .toBe(page.getByRole("button", { name: "Remove the texts in French" }).element());
    await userEvent.tab();
    await userEvent.tab();
    await expect.poll(focused).toBe(title.element());
    await userEvent.keyboard("Vos avantages");
    await expect.poll(() => preview().getAttribute("lang")).toBe("fr");
    await expect.poll(() => previewText("loyalty-cart-widget")).toContain("Vos avantages");
    // The texts left empty show the English ones.
    expect(previewText("loyalty-cart-widget")).toContain("This order earns you 73 points");
    await expect.element(page.getByRole("status").getByText("Unpublished changes")).toBeVisible();

    (page.getByRole("button", { name: "Publish" }).element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    expect(await sentConfig("cart")).toEqual({
      ...example("getCartWidgetConfiguration").config,
      translations: { fr: { title: "Vos avantages" } },
    });
    await expect.element(textLanguage()).toHaveValue("fr");

    await reload();
    await expect.element(panel.getByLabelText("Title")).toHaveValue("Trail & Co rewards");
    await userEvent.selectOptions(textLanguage(), "fr");
    await expect.element(panel.getByLabelText("Title")).toHaveValue("Vos avantages");
    await expect.poll(() => previewText("loyalty-cart-widget")).toContain("Vos avantages");
    await expect
      .element(page.getByRole("status").getByText("Unpublished changes"))
      .not.toBeInTheDocument();

    // Removed, after a confirmation: the language and its texts leave the draft.
    (
      page.getByRole("button", { name: "Remove the texts in French" }).element() as HTMLElement
    ).focus();
    await userEvent.keyboard("{Enter}");
    const dialog = page.getByRole("dialog", { name: "Remove the texts in French?" });
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(
        "Your texts in French leave the draft. Once you publish, visitors reading French see the texts in English.",
      );
    await userEvent.keyboard("{Tab}{Enter}");
    await expect.element(dialog).not.toBeInTheDocument();
    await expect.element(textLanguage()).toHaveValue("");
    await expect.poll(focused).toBe(textLanguage().element());
    expect(textLanguage().element().querySelectorAll("option")).toHaveLength(1);
    await expect.element(panel.getByLabelText("Show the widget in the cart")).toBeVisible();
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    expect(await sentConfig("cart", 1)).toEqual(example("getCartWidgetConfiguration").config);
  });

  test("a language to add is refused with the reason: not a tag, unknown, the default, already there", async () => {
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=cart`, signedIn);
    await expect.element(textLanguage()).toBeVisible();
    const field = languageField();
    const refused = async (typed: string, reason: RegExp) => {
      await userEvent.fill(field, typed);
      await userEvent.keyboard("{Enter}");
      await expect.element(field).toHaveAttribute("aria-invalid", "true");
      await expect.element(field).toHaveAccessibleDescription(reason);
      await expect.poll(focused).toBe(field.element());
    };

    await addLanguage("not a tag");
    await expect
      .element(field)
      .toHaveAccessibleDescription(
        /^A language tag such as fr, fr-CA or pt-BR, or a suggested language's name\. “not a tag” is not a language tag\. Enter a language tag such as fr, fr-CA or pt-BR\.$/,
      );
    await expectNoAxeViolations();
    await refused("", /Enter a language tag such as fr, fr-CA or pt-BR\.$/);
    await refused("xx", /No language has the tag “xx”\./);
    await refused("EN", /English is the store's default language: its texts are the form's own\./);
    expect(textLanguage().element().querySelectorAll("option")).toHaveLength(1);

    // Written canonically whatever the case; a suggested language by its name.
    await userEvent.fill(field, "fr_ca");
    await userEvent.keyboard("{Enter}");
    await expect.element(textLanguage()).toHaveValue("fr-CA");
    await expect.poll(() => shownLanguage()).toBe("Canadian French (fr-CA)");
    await addLanguage("german");
    await expect.element(textLanguage()).toHaveValue("de");

    await addLanguage("FR-CA");
    await expect
      .element(field)
      .toHaveAccessibleDescription(/Canadian French \(fr-CA\) is already in the list\./);
    // Escape closes it: the focus goes back to its button.
    await userEvent.keyboard("{Escape}");
    await expect.element(field).not.toBeInTheDocument();
    await expect.poll(focused).toBe(addLanguageButton().element());
    await expect.element(addLanguageButton()).toHaveAttribute("aria-expanded", "false");
    expect(
      [...textLanguage().element().querySelectorAll("option")].map((option) => option.value),
    ).toEqual(["", "fr-CA", "de"]);
  });

  test("a regional variant's empty fields quote the language's translation, as the storefront shows it", async () => {
    serveConfigurations();
    const config = example("getCartWidgetConfiguration").config;
    serveSaved("cart", {
      ...config,
      translations: { fr: { title: "Points fidélité" }, "fr-CA": {} },
    });
    await startApp(`${SCREEN_URL}?widget=cart`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Cart" });
    await userEvent.selectOptions(textLanguage(), "fr-CA");
    const title = panel.getByLabelText("Title");
    await expect.element(title).toHaveValue("");
    // French has a title: a Canadian visitor reads it. It has no text for the points: English.
    await expect.element(title).toHaveAccessibleDescription("In French: “Points fidélité”");
    await expect.element(title).toHaveAttribute("placeholder", "Points fidélité");
    await expect
      .element(panel.getByLabelText("Points the cart earns"))
      .toHaveAccessibleDescription(
        "{points} is replaced by the number of points. In English: “This order earns you {points} points”",
      );
    await expect
      .element(
        page.getByText(
          "The form shows the texts only. An empty field shows the text in French, else in English.",
        ),
      )
      .toBeVisible();
    await expect.poll(() => previewText("loyalty-cart-widget")).toContain("Points fidélité");

    await userEvent.click(
      page.getByRole("button", { name: "Remove the texts in Canadian French" }),
    );
    const dialog = page.getByRole("dialog", { name: "Remove the texts in Canadian French?" });
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(
        "Your texts in Canadian French leave the draft. Once you publish, visitors reading Canadian French see the texts in French, else in English.",
      );
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();

    // French itself falls back to the default texts, never to its variant's.
    await userEvent.selectOptions(textLanguage(), "fr");
    await expect.element(title).toHaveValue("Points fidélité");
    await expect
      .element(panel.getByLabelText("Points the cart earns"))
      .toHaveAccessibleDescription(
        "{points} is replaced by the number of points. In English: “This order earns you {points} points”",
      );
    await expect
      .element(
        page.getByText("The form shows the texts only. An empty field shows the text in English."),
      )
      .toBeVisible();
  });

  test("a translated item's text fills the list before it, and removing an item keeps the translations aligned", async () => {
    serveConfigurations();
    const config = example("getLauncherWidgetConfiguration").config;
    serveSaved("launcher", { ...config, translations: { de: { title: "Deine Vorteile" } } });
    await startApp(`${SCREEN_URL}?widget=launcher`, signedIn);
    const panel = page.getByRole("tabpanel", { name: "Launcher" });
    await userEvent.selectOptions(textLanguage(), "de");
    await expect.element(panel.getByLabelText("Panel title")).toHaveValue("Deine Vorteile");
    await expect
      .element(panel.getByRole("button", { name: "Add a way to earn" }))
      .not.toBeInTheDocument();
    await expect
      .element(panel.getByRole("button", { name: /^Remove Way to earn/ }).first())
      .not.toBeInTheDocument();
    const second = panel.getByRole("group", { name: "Way to earn 2" });
    await expect
      .element(second.getByLabelText("Text"))
      .toHaveAccessibleDescription("In English: “200 points when they order.”");
    await userEvent.fill(second.getByLabelText("Text"), "200 Punkte, wenn sie bestellen.");
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    expect((await sentConfig("launcher")).translations).toEqual({
      de: {
        title: "Deine Vorteile",
        waysToEarn: [{}, { text: "200 Punkte, wenn sie bestellen." }],
      },
    });

    // The first way removed in English: the German text stays with its way, now the first.
    await userEvent.selectOptions(textLanguage(), "");
    await userEvent.click(panel.getByRole("button", { name: "Remove Way to earn 1" }));
    await userEvent.selectOptions(textLanguage(), "de");
    const first = panel.getByRole("group", { name: "Way to earn 1" });
    await expect
      .element(first.getByLabelText("Text"))
      .toHaveValue("200 Punkte, wenn sie bestellen.");
    await expect
      .element(first.getByLabelText("Title"))
      .toHaveAccessibleDescription("In English: “Invite a friend”");
    await expect
      .element(panel.getByRole("group", { name: "Way to earn 2" }))
      .not.toBeInTheDocument();
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect.poll(() => puts("launcher").length).toBe(2);
    const sent = await sentConfig("launcher", 1);
    expect(sent.waysToEarn).toEqual([config.waysToEarn[1]]);
    expect(sent.translations).toEqual({
      de: { title: "Deine Vorteile", waysToEarn: [{ text: "200 Punkte, wenn sie bestellen." }] },
    });

    // Emptied, the text is the English one again: nothing is kept for it.
    await expect
      .element(page.getByRole("status").getByText("Published", { exact: true }))
      .toBeVisible();
    await userEvent.clear(first.getByLabelText("Text"));
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect.poll(() => puts("launcher").length).toBe(3);
    expect((await sentConfig("launcher", 2)).translations).toEqual({
      de: { title: "Deine Vorteile" },
    });
  });

  test("the programme page's texts in French at 375 px wide: only the texts, no sideways scrolling, no axe violation", async () => {
    await page.viewport(375, 740);
    serveConfigurations();
    const config = example("getProgramPresentationWidgetConfiguration").config;
    serve(
      http.get(admin("program-presentation"), () =>
        HttpResponse.json({
          ...configurations["program-presentation"](),
          config: {
            ...config,
            translations: { fr: { header: { text: "Des points à chaque commande." } } },
          },
        }),
      ),
    );
    await startApp(`${SCREEN_URL}?widget=program-presentation`, signedIn);
    await userEvent.selectOptions(textLanguage(), "fr");
    const panel = page.getByRole("tabpanel", { name: "Programme page" });
    await expect
      .element(panel.getByLabelText("Banner text"))
      .toHaveValue("Des points à chaque commande.");
    await expect.element(panel.getByLabelText("Text of the first button")).toHaveValue("");
    await expect.element(panel.getByLabelText("Text of the second button")).toHaveValue("");
    for (const name of ["How to earn", "Rewards", "The customer's points", "FAQ", "Question 1"]) {
      await expect.element(panel.getByRole("group", { name, exact: true })).toBeVisible();
    }
    expect(
      screen().querySelectorAll("form input:not([type=text]), form select, form .item .button"),
    ).toHaveLength(0);
    await expect
      .element(panel.getByRole("button", { name: "Add a question" }))
      .not.toBeInTheDocument();
    await expect
      .poll(() => previewText("loyalty-program-presentation"))
      .toContain("Des points à chaque commande.");
    expect(screen().querySelector("loyalty-program-presentation")!.getAttribute("lang")).toBe("fr");

    await userEvent.click(addLanguageButton());
    await expect.element(languageField()).toBeVisible();
    expect(hasHorizontalOverflow()).toBe(false);
    const switcher = screen().querySelector("bo-text-languages")!.shadowRoot!;
    for (const root of [screen(), switcher]) {
      for (const control of root.querySelectorAll("button, input, select, textarea")) {
        const { width, height } = control.getBoundingClientRect();
        if (width === 0) continue;
        expect(Math.min(width, height), control.outerHTML.slice(0, 80)).toBeGreaterThanOrEqual(24);
      }
    }
    await expectNoAxeViolations();
    await userEvent.keyboard("{Escape}");
    expect(hasHorizontalOverflow()).toBe(false);
    await expectNoAxeViolations();
  });

  test("a problem the server finds in a translation shows next to its field, in that language", async () => {
    serveConfigurations();
    const config = example("getProgramPresentationWidgetConfiguration").config;
    serve(
      http.get(admin("program-presentation"), () =>
        HttpResponse.json({
          ...configurations["program-presentation"](),
          config: {
            ...config,
            translations: {
              fr: { sections: { faq: { items: [{ answer: "Quelques secondes." }] } } },
            },
          },
        }),
      ),
      http.put(admin("program-presentation"), () =>
        problemResponse("validation-failed", "The request body is invalid.", [
          {
            location: "body",
            pointer: "/translations/fr/sections/faq/items/0/answer",
            code: "custom",
            message: "is not allowed here",
          },
        ]),
      ),
    );
    await startApp(`${SCREEN_URL}?widget=program-presentation`, signedIn);
    await expect.element(page.getByLabelText("Banner text")).toBeVisible();
    // Published from the English form: the form turns to the French texts, at the field.
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect.element(textLanguage()).toHaveValue("fr");
    const answer = page.getByRole("group", { name: "Question 1" }).getByLabelText("Answer");
    await expect.element(answer).toHaveValue("Quelques secondes.");
    await expect.element(answer).toHaveAttribute("aria-invalid", "true");
    await expect.element(answer).toHaveAccessibleDescription(/is not allowed here$/);
    await expect.poll(focused).toBe(answer.element());
    await expectNoAxeViolations();

    // The same from the English form chosen in the list: the list follows the form.
    await userEvent.selectOptions(textLanguage(), "");
    await expect.element(page.getByLabelText("First button")).toBeVisible();
    await userEvent.click(page.getByRole("button", { name: "Publish" }));
    await expect.element(answer).toHaveAttribute("aria-invalid", "true");
    await expect.element(textLanguage()).toHaveValue("fr");
  });

  test("loading keeps the editor's space, and a failure offers to try again", async () => {
    const response = held();
    serve(...publicApi);
    serve(
      http.get(admin("product-points"), () => problemResponse("internal-server-error", "Boom."), {
        once: true,
      }),
      http.get(admin("product-points"), async () => {
        await response.wait();
        return HttpResponse.json(configurations["product-points"]());
      }),
    );
    await startApp(SCREEN_URL, signedIn);
    const alert = page.getByRole("alert");
    await expect.element(alert).toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect
      .element(page.getByRole("status").getByText("Loading the Product points widget"))
      .toBeInTheDocument();
    await expectNoAxeViolations();
    const shifts = recordLayoutShifts();
    response.release();
    await expect.element(templateField()).toBeVisible();
    expect(await shifts.stop()).toBeLessThan(0.01);
    expect(requestsTo(admin("product-points"))).toHaveLength(2);
  });

  test("at 375 px wide: no sideways scrolling, and targets of at least 24 px", async () => {
    await page.viewport(375, 740);
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=program-presentation`, signedIn);
    await expect.element(page.getByLabelText("Banner text")).toBeVisible();
    await expect.poll(() => previewText("loyalty-program-presentation")).toContain("Earn points");
    expect(hasHorizontalOverflow()).toBe(false);
    for (const control of screen().querySelectorAll("button, input, select, textarea")) {
      const { width, height } = control.getBoundingClientRect();
      if (width === 0) continue;
      expect(Math.min(width, height), control.outerHTML.slice(0, 80)).toBeGreaterThanOrEqual(24);
    }
    await expectNoAxeViolations();
  });

  test("in French", async () => {
    await changeLocale("fr");
    serveConfigurations();
    serve(
      http.get(admin("product-points"), () =>
        HttpResponse.json({
          ...configurations["product-points"](),
          isDefault: true,
          updatedAt: null,
        }),
      ),
    );
    await startApp(SCREEN_URL, signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Widgets" })).toBeVisible();
    await expect.element(tab("Points produit")).toHaveAttribute("aria-selected", "true");
    await expect.element(tab("Page du programme")).toBeVisible();
    await expect.element(page.getByText("Textes par défaut, en anglais.")).toBeVisible();
    await expect.element(page.getByRole("button", { name: "Publier" })).toBeVisible();
    await expectNoAxeViolations();
  });

  test("the languages of the texts, in French", async () => {
    await changeLocale("fr");
    serveConfigurations();
    await startApp(`${SCREEN_URL}?widget=cart`, signedIn);
    const switcher = page.getByLabelText("Langue des textes");
    await expect.poll(() => shownLanguage(switcher)).toBe("Anglais (par défaut)");
    await userEvent.click(page.getByRole("button", { name: "Ajouter une langue" }));
    await userEvent.fill(page.getByLabelText("Langue à ajouter"), "allemand");
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => shownLanguage(switcher)).toBe("Allemand (de)");
    await expect
      .element(page.getByLabelText("Titre", { exact: true }))
      .toHaveAccessibleDescription("En anglais : « Trail & Co rewards »");
    await expectNoAxeViolations();
  });

  test("Restore the default, in French", async () => {
    await changeLocale("fr");
    serveConfigurations();
    await startApp(SCREEN_URL, signedIn);
    await userEvent.click(
      page.getByRole("button", { name: "Restaurer la configuration par défaut" }),
    );
    const dialog = page.getByRole("dialog", {
      name: "Restaurer la configuration par défaut du widget Points produit ?",
    });
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(
        "Le widget Points produit affiche aussitôt les textes par défaut en anglais sur votre boutique. La configuration que vous avez publiée est supprimée.",
      );
    await expectNoAxeViolations();
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();
    // Long enough for a request Escape would have sent.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(deletes("product-points")).toHaveLength(0);
    await expect
      .element(page.getByRole("button", { name: "Restaurer la configuration par défaut" }))
      .toBeVisible();
  });
});
