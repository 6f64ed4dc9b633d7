/**
 * A merchant's day in the back-office, end to end: the app as the real API server serves it
 * (same origin as the API, under its CSP), in Debian's Chromium, driven by role, label and
 * keyboard. The operator's part (a store, its admin, an API key) goes through the CLI, the
 * store's part (an order) through the Node SDK; the server's workers credit the order.
 *
 * The steps share one page and run in order; each visited screen is checked with axe at
 * 1280 px and 375 px (no page overflow there either), and its layout shift while it loads is
 * measured. Any CSP refusal or page error fails the step it happened in.
 */
import { readFile } from "node:fs/promises";
import { LoyaltyClient } from "@loyalty/node-sdk";
import { LATEST_REVISION } from "@loyalty/shared-types";
import type { Browser, Locator, Page } from "playwright";
import { expect as expectPage } from "playwright/test";
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from "vitest";
import {
  auditScreen,
  axeViolations,
  launchChromium,
  layoutShiftSince,
  now,
  openPage,
  type LayoutShift,
  type PageProblems,
} from "./browser.js";
import { runSourceToEnd } from "./server.js";

const { url: apiBase, env } = inject("server");
const DOMAIN = "https://maison-camille.example";
const CUSTOMER = {
  externalId: 7001,
  email: "camille.durand@example.com",
  firstName: "Camille",
  lastName: "Durand",
};
/** The product rule: 3 points per euro on product 2001; every other product 1 per euro. */
const PRODUCT = 2001;

/** `loyalty <args> --json`, against the server's database. */
async function loyalty<T>(...args: string[]): Promise<T> {
  const output = await runSourceToEnd("packages/server/src/cli.ts", [...args, "--json"], env);
  return JSON.parse(output) as T;
}

let browser: Browser;
let page: Page;
let problems: PageProblems;
let store: { reference: string; domain: string };
let admin: { email: string; password: string };
let apiKey: string;
/** Each screen's layout shift from the key press that opened it to its data shown. */
const shifts = new Map<string, LayoutShift>();

beforeAll(async () => {
  store = await loyalty("store", "create", "--domain", DOMAIN, "--name", "Maison Camille");
  ({ key: apiKey } = await loyalty<{ key: string }>(
    "key",
    "create",
    "--store",
    store.reference,
    "--label",
    "storefront",
  ));
  admin = await loyalty(
    "admin",
    "create",
    "--email",
    "owner@maison-camille.example",
    "--store",
    store.reference,
  );
  browser = await launchChromium();
  ({ page, problems } = await openPage(browser));
});

afterAll(async () => {
  await browser?.close();
  // The figures the report quotes: each screen's shift while its data arrived.
  for (const [screen, shift] of shifts) {
    process.stdout.write(
      `layout shift ${screen}: CLS ${shift.cls.toFixed(4)}, all shifts (input-adjacent too) ${shift.all.toFixed(4)}${shift.sources.length ? `, moved: ${shift.sources.join(", ")}` : ""}\n`,
    );
  }
});

/** Each step's own CSP refusals and page errors: none, even in a step that failed. */
afterEach(() => {
  const found = { csp: problems.csp.splice(0), errors: problems.errors.splice(0) };
  expect(found, "CSP refusals and page errors").toEqual({ csp: [], errors: [] });
});

/** axe at both widths and no sideways scrolling at 375 px, as `what`. */
async function expectAccessible(what: string): Promise<void> {
  const audit = await auditScreen(page);
  expect.soft(audit.wide, `axe at 1280 px, ${what}`).toEqual([]);
  expect.soft(audit.narrow, `axe at 375 px, ${what}`).toEqual([]);
  expect.soft(audit.narrowOverflow, `horizontal overflow at 375 px, ${what}`).toEqual([]);
}

/** Presses Enter on a control, as a keyboard user does once it has the focus. */
async function press(control: Locator, key = "Enter"): Promise<void> {
  await control.focus();
  await expect.poll(() => control.evaluate((node) => node.matches(":focus"))).toBe(true);
  await page.keyboard.press(key);
}

/** Types into a field (its text replaced), by keyboard. */
async function typeInto(field: Locator, text: string): Promise<void> {
  await field.focus();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

function nav(name: string): Locator {
  return page.getByRole("navigation", { name: "Store sections" }).getByRole("link", { name });
}

function heading(name: string): Locator {
  return page.getByRole("heading", { level: 1, name });
}

/**
 * Opens a store screen from the navigation by keyboard, waits for `filled` (its data shown),
 * records its layout shift meanwhile, and audits it.
 */
async function visit(link: string, title: string, filled: () => Promise<void>): Promise<void> {
  const since = await now(page);
  await press(nav(link));
  await expectPage(heading(title)).toBeVisible();
  await filled();
  const shift = await layoutShiftSince(page, since);
  shifts.set(title, shift);
  expect.soft(shift.all, `layout shift while ${title} loads`).toBeLessThan(0.01);
  await expectAccessible(`${title}, filled`);
}

describe.sequential("the back-office, on the real server", () => {
  test("signs in with the admin the CLI created", async () => {
    const response = await page.goto(`${apiBase}/back-office/`);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await expectPage(heading("Sign in")).toBeVisible();
    const signIn = await layoutShiftSince(page, 0);
    shifts.set("Sign in (page load)", signIn);
    expect.soft(signIn.cls, "layout shift while the sign-in loads").toBeLessThan(0.01);
    await expectAccessible("sign-in");

    // By keyboard only: the email, Tab to the password, Enter.
    await typeInto(page.getByLabel("Email"), admin.email);
    await page.keyboard.press("Tab");
    await expectPage(page.getByLabel("Password")).toBeFocused();
    await page.keyboard.type("not the password");
    await page.keyboard.press("Enter");
    await expectPage(page.getByRole("alert")).toBeVisible();
    await expectAccessible("sign-in with a refusal shown");

    await typeInto(page.getByLabel("Password"), admin.password);
    const since = await now(page);
    await page.keyboard.press("Enter");
    // A store's admin lands on the store's overview.
    await expectPage(heading("Overview")).toBeVisible();
    await expectPage(page).toHaveURL(/\/back-office\/stores\/\d+\/overview$/);
    await expectPage(page.getByText("No orders credited in this period yet.")).toBeVisible();
    // The shell replaces the sign-in form: only the shifts after that count (Chrome's CLS).
    const overview = await layoutShiftSince(page, since);
    shifts.set("Overview (after signing in)", overview);
    expect.soft(overview.cls, "layout shift while the overview loads").toBeLessThan(0.01);
    // Counted whatever the machine's speed: a sign-in answered more than 500 ms after the key
    // press made its shifts count as the shopkeeper's own, or not, by chance.
    expect
      .soft(overview.all, "any shift between the key press and the overview")
      .toBeLessThan(0.01);
    await expectAccessible("overview, before any order");
  });

  test("creates a product rule and a default rule, and previews a product's points", async () => {
    await visit("Programme", "Programme", () =>
      expectPage(page.getByRole("heading", { level: 2, name: "Attribution rules" })).toBeVisible(),
    );

    const addRule = page.getByRole("button", { name: "Add a rule" });
    await press(addRule);
    let form = page.getByRole("form", { name: "New rule" });
    await expectPage(form).toBeVisible();
    await form.getByLabel("Applies to").selectOption("product");
    // A form error first: no product id.
    await press(form.getByRole("button", { name: "Create the rule" }));
    await expectPage(form.getByLabel("Product id")).toBeFocused();
    await expectAccessible("programme, rule form with an error");
    await typeInto(form.getByLabel("Product id"), String(PRODUCT));
    await typeInto(form.getByLabel("Name"), "Winter boots");
    await typeInto(form.getByLabel(/Points per .* spent/), "3");
    await press(form.getByRole("button", { name: "Create the rule" }));
    await expectPage(form).toBeHidden();
    await expectPage(page.getByText("Winter boots").first()).toBeVisible();

    await press(addRule);
    form = page.getByRole("form", { name: "New rule" });
    await form.getByLabel("Applies to").selectOption("default");
    await typeInto(form.getByLabel("Name"), "Everything else");
    await typeInto(form.getByLabel(/Points per .* spent/), "1");
    await press(form.getByRole("button", { name: "Create the rule" }));
    await expectPage(form).toBeHidden();
    await expectPage(page.getByText("Everything else").first()).toBeVisible();

    const preview = page.getByRole("region", { name: "What would a product earn?" });
    await typeInto(preview.getByLabel("Product id"), String(PRODUCT));
    await typeInto(preview.getByLabel(/Unit price/), "25");
    await typeInto(preview.getByLabel("Quantity"), "2");
    await press(preview.getByRole("button", { name: "Compute the points" }));
    // 3 points per euro: 75 for one boot at €25, 150 for the line of two.
    await expectPage(preview.getByText("Product rule: “Winter boots”")).toBeVisible();
    await expectPage(preview.getByText("75 points", { exact: true })).toBeVisible();
    await expectPage(preview.getByText("150 points", { exact: true })).toBeVisible();
    await expectAccessible("programme, with the rules and a preview");
  });

  test("creates a reward", async () => {
    await visit("Rewards", "Rewards", () =>
      expectPage(page.getByText("No reward yet. Create the first one")).toBeVisible(),
    );
    const newReward = page.getByRole("button", { name: "New reward" });
    await press(newReward);
    const form = page.getByRole("region", { name: "New reward" });
    await expectPage(form.getByLabel("Name")).toBeVisible();
    await typeInto(form.getByLabel("Name"), "€5 voucher");
    await typeInto(form.getByLabel("Cost in points"), "100");
    await form.getByLabel("Discount").selectOption("fixed_amount");
    await typeInto(form.getByLabel(/Amount off/), "5");
    await press(form.getByRole("button", { name: "Create the reward" }));
    const reward = page.getByRole("article", { name: "€5 voucher" });
    await expectPage(reward).toBeVisible();
    await expectPage(reward.getByText("Active", { exact: true })).toBeVisible();
    await expectAccessible("rewards, with the reward");
  });

  test("changes a widget's text, sees the preview change, and publishes", async () => {
    await visit("Widgets", "Widgets", () =>
      expectPage(page.getByRole("form", { name: "Product points widget settings" })).toBeVisible(),
    );
    const preview = page.getByRole("region", { name: "Preview" });
    const widget = preview.locator("loyalty-product-points");
    // The default rule: 1 point per euro of a €49.90 product.
    await expectPage(widget).toContainText("49");
    const form = page.getByRole("form", { name: "Product points widget settings" });
    await typeInto(
      form.getByRole("textbox", { name: "Text", exact: true }),
      "Earn {points} stars with this",
    );
    await expectPage(widget).toContainText("Earn 49 stars with this");
    await expectPage(
      page.getByRole("status").filter({ hasText: "Unpublished changes" }),
    ).toBeVisible();
    await expectAccessible("widgets, with an unpublished change");

    await press(form.getByRole("button", { name: "Publish" }));
    await expectPage(page.getByRole("status").filter({ hasText: /^Published$/ })).toBeVisible();
    await expectPage(page.getByText(/Last published/)).toBeVisible();
    // The storefront reads the published text.
    const published = await fetch(
      `${apiBase}/store/widget/product-points?domain=${encodeURIComponent(DOMAIN)}`,
      { headers: { revision: LATEST_REVISION } },
    );
    expect(((await published.json()) as { config: { template: string } }).config.template).toBe(
      "Earn {points} stars with this",
    );
  });

  test("shows an order the store registered through the SDK, once credited", async () => {
    const client = new LoyaltyClient({
      apiKey,
      storeReference: store.reference,
      domain: DOMAIN,
      baseUrl: apiBase,
    });
    await client.orders.register({
      externalId: 9001,
      externalReference: "#9001",
      customer: CUSTOMER,
      currency: "EUR",
      orderedAt: new Date().toISOString(),
      lines: [
        { lineId: "1", productId: PRODUCT, categoryIds: [], quantity: 2, unitPrice: 25 },
        { lineId: "2", productId: 3001, categoryIds: [], quantity: 1, unitPrice: 12.5 },
      ],
    });
    // The worker credits it: 150 (product rule) + 12 (default rule, floored).
    await expect
      .poll(async () => (await client.customers.history(CUSTOMER.externalId)).balance, {
        timeout: 20_000,
      })
      .toBe(162);

    const points = page.getByRole("region", { name: "Points in this period" });
    await visit("Overview", "Overview", () =>
      expectPage(points.getByRole("definition").first()).toHaveText(/\d/),
    );
    await expectPage(points).toContainText("162");
    const orders = page.locator("bo-overview-chart").first();
    await press(orders.getByText("Show the figures as a table"));
    const table = orders.getByRole("table");
    await expectPage(table).toBeVisible();
    const credited = await table.evaluate((node: HTMLTableElement) => {
      const column = [...node.tHead!.rows[0]!.cells].findIndex(
        (cell) => cell.textContent?.trim() === "Orders credited",
      );
      return [...node.tBodies[0]!.rows].reduce(
        (sum, row) => sum + Number(row.cells[column]?.textContent?.trim() ?? 0),
        0,
      );
    });
    expect(credited).toBe(1);
    await expectAccessible("overview, with the order");
  });

  test("finds the customer: balance and history show the order", async () => {
    await visit("Customers", "Customers", () =>
      expectPage(page.getByText("1 customer shown.")).toBeVisible(),
    );
    await typeInto(page.getByLabel("Customer id or email"), "camille");
    await Promise.all([
      page.waitForResponse((response) => /\/customers\?.*query=camille/.test(response.url())),
      page.keyboard.press("Enter"),
    ]);
    await expectPage(
      page.getByRole("status").filter({ hasText: "1 customer shown." }),
    ).toBeAttached();
    const result = page.getByRole("link", { name: /Camille Durand/ });
    await expectPage(result).toBeVisible();
    await expectAccessible("customers, with a result");

    await press(result);
    await expectPage(heading("Camille Durand")).toBeVisible();
    const balance = page.getByRole("region", { name: "Balance" });
    await expectPage(balance).toContainText("162 points");
    const history = page.getByRole("table", { name: "Every movement of points, newest first" });
    await expectPage(history).toContainText("Points earned");
    await expectPage(history).toContainText("Order 9001");
    await expectAccessible("customer, with the order");
  });

  test("adjusts the customer's points", async () => {
    const adjust = page.getByRole("region", { name: "Adjust the points" });
    // Points, Tab, reason, Tab, the button, Enter.
    await typeInto(adjust.getByLabel("Points"), "-12");
    await page.keyboard.press("Tab");
    await expectPage(adjust.getByLabel("Reason")).toBeFocused();
    await page.keyboard.type("Goodwill correction");
    await page.keyboard.press("Tab");
    await expectPage(adjust.getByRole("button", { name: "Adjust the points" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expectPage(page.getByRole("region", { name: "Balance" })).toContainText("150 points");
    const history = page.getByRole("table", { name: "Every movement of points, newest first" });
    await expectPage(history.getByRole("row").nth(1)).toContainText("Adjustment by hand");
    await expectPage(history.getByRole("row").nth(1)).toContainText("Goodwill correction");
    await expectAccessible("customer, after an adjustment");
  });

  test("exports the customer's data as a download", async () => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      press(page.getByRole("button", { name: "Download the data (JSON)" })),
    ]);
    expect(download.suggestedFilename()).toBe(`customer-${CUSTOMER.externalId}-export.json`);
    const exported = JSON.parse(await readFile(await download.path(), "utf8"));
    expect(JSON.stringify(exported)).toContain(CUSTOMER.email);
    expect(JSON.stringify(exported)).toContain("Goodwill correction");
  });

  test("erases the customer after a confirmation naming them", async () => {
    const erase = page.getByRole("button", { name: "Erase personal data…" });
    await press(erase);
    const dialog = page.getByRole("dialog", { name: "Erase this customer's personal data?" });
    await expectPage(dialog).toBeVisible();
    await expectPage(dialog).toContainText("Camille Durand");
    await expectPage(dialog).toContainText(CUSTOMER.email);
    await expectAccessible("customer, erase dialog open");
    // Escape closes it, nothing erased, the focus back on its opener.
    await page.keyboard.press("Escape");
    await expectPage(dialog).toBeHidden();
    await expectPage(erase).toBeFocused();

    await press(erase);
    await page.keyboard.type(String(CUSTOMER.externalId));
    await press(dialog.getByRole("button", { name: "Erase personal data" }));
    await expectPage(dialog).toBeHidden();
    await expectPage(page.getByText(/Personal data erased on/)).toBeVisible();
    await expectPage(page.getByText(CUSTOMER.email)).toHaveCount(0);
    await expectPage(page.getByRole("region", { name: "Balance" })).toContainText("150 points");
    await expectAccessible("customer, erased");
  });

  test("the checks above can fail: a CSP refusal and an axe violation are caught", async () => {
    await page.evaluate(() => {
      const image = document.createElement("img");
      image.src = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
      // An inline style attribute: the policy (style-src 'self') refuses it.
      image.setAttribute("style", "width: 1px");
      document.body.append(image);
    });
    await expect.poll(() => problems.csp.length).toBeGreaterThan(0);
    expect((await axeViolations(page)).join("\n")).toContain("image-alt");
    await page.evaluate(() => document.body.lastElementChild?.remove());
    problems.csp.length = 0;
  });
});
