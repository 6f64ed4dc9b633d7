import { programOverviewSchema, type ProgramOverview } from "@loyalty/shared-types";
import { Chart } from "chart.js";
import { describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { changeLocale } from "../src/i18n/locale.js";
import { STORE, example } from "./support/fixtures.js";
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
import { nextPaint, recordLayoutShifts } from "./support/layout-shift.js";

useApiMock();
useApp();

const overviewPath = `/back-office/stores/${STORE.id}/overview`;
const apiPath = `/admin/stores/${STORE.id}/overview`;
const signedIn = { signedIn: { storeId: STORE.id } } as const;

const DAY_MS = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The period of the last `days` days, as the screen asks for it (UTC days, up to today). */
function lastDays(days: number) {
  return { from: isoDay(Date.now() - (days - 1) * DAY_MS), to: isoDay(Date.now()) };
}

/** The contract's example, with the figures these tests read spelled out. */
function overviewFixture(): ProgramOverview {
  return programOverviewSchema.parse({
    ...example("getProgramOverview"),
    period: { from: "2026-09-13", to: "2026-09-14" },
    currency: "EUR",
    members: 1840,
    activeMembers: 412,
    points: {
      earned: 48_210,
      bonuses: 1_200,
      redeemed: 21_500,
      deducted: 930,
      adjusted: 150,
      expired: 0,
    },
    redemptionRate: 0.4352,
    outstandingPoints: 310_420,
    liability: { amount: 3104.2, valuePerPoint: 0.01, rewardId: 12 },
    daily: [
      {
        date: "2026-09-13",
        ordersCredited: 96,
        claims: 21,
        pointsEarned: 24_800,
        pointsRedeemed: 10_500,
      },
      {
        date: "2026-09-14",
        ordersCredited: 88,
        claims: 22,
        pointsEarned: 23_410,
        pointsRedeemed: 11_000,
      },
    ],
    topRewards: [
      { rewardId: 12, name: "5 € voucher", claims: 37, points: 18_500 },
      { rewardId: 14, name: "Free shipping", claims: 10, points: 3_000 },
    ],
  });
}

/** The overview the mocked API answers. */
function serveOverview(overview: ProgramOverview = overviewFixture()): void {
  serve(http.get(apiPath, () => HttpResponse.json(overview)));
}

function queryOf(request: Request | undefined) {
  return Object.fromEntries(new URL(request?.url ?? "http://x/").searchParams);
}

/** Every element matching `selector` in the document and the shadow roots under it. */
function deepQueryAll(selector: string, root: ParentNode = document): Element[] {
  const found = [...root.querySelectorAll(selector)];
  for (const element of root.querySelectorAll("*")) {
    if (element.shadowRoot) found.push(...deepQueryAll(selector, element.shadowRoot));
  }
  return found;
}

// Intl separates thousands and units with no-break spaces: compared as plain spaces.
const text = (element: Element | null | undefined) =>
  (element?.textContent ?? "").replace(/[\s\u00a0\u202f]+/g, " ").trim();

/** A tile's value and hint, found by its label. */
function tile(label: string): { value: string; hint: string; detail?: string } {
  const term = deepQueryAll(".tile dt").find((dt) => dt.textContent?.trim() === label);
  if (!term) throw new Error(`No tile labelled ${label}`);
  const [value, hint, detail] = [...term.parentElement!.querySelectorAll("dd")].map(text);
  return { value: value ?? "", hint: hint ?? "", ...(detail === undefined ? {} : { detail }) };
}

/** Each row of a table, its cells' texts joined by a space. */
function rowTexts(table: Element): string[] {
  return [...table.querySelectorAll("tr")].map((row) =>
    [...row.children].map((cell) => cell.textContent?.replace(/\s+/g, " ").trim()).join(" "),
  );
}

const loaded = () => expect.element(page.getByText(/Figures from/)).toBeVisible();

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

/** An overview of a store with no activity at all. */
function quietOverview(): ProgramOverview {
  const overview = overviewFixture();
  return {
    ...overview,
    members: 0,
    activeMembers: 0,
    points: { earned: 0, bonuses: 0, redeemed: 0, deducted: 0, adjusted: 0, expired: 0 },
    redemptionRate: null,
    outstandingPoints: 0,
    liability: null,
    daily: overview.daily.map((day) => ({
      ...day,
      ordersCredited: 0,
      claims: 0,
      pointsEarned: 0,
      pointsRedeemed: 0,
    })),
    topRewards: [],
  };
}

describe("the overview", () => {
  test("shows the figures as labelled tiles, the liability in the store's currency, and the top rewards", async () => {
    serveOverview();
    await startApp(overviewPath, signedIn);
    await loaded();
    await expect
      .element(page.getByText("Figures from Sep 13, 2026 to Sep 14, 2026 (days in UTC)."))
      .toBeVisible();
    // Without a period in the URL: the last 30 days.
    expect(queryOf(requestsTo(apiPath)[0])).toEqual(lastDays(30));
    await expect.element(page.getByRole("radio", { name: "Last 30 days" })).toBeChecked();

    expect(tile("Members").value).toBe("1,840");
    expect(tile("Active members")).toEqual({
      value: "412",
      hint: "With points activity in the last 30 days.",
    });
    expect(tile("Earned").value).toBe("48,210");
    expect(tile("Bonuses").value).toBe("1,200");
    expect(tile("Redeemed").value).toBe("21,500");
    expect(tile("Deducted").value).toBe("930");
    expect(tile("Adjusted").value).toBe("150");
    expect(tile("Expired").value).toBe("0");
    expect(tile("Redemption rate").value).toBe("43.5%");
    expect(tile("Outstanding points").value).toBe("310,420");
    expect(tile("Liability")).toEqual({
      value: "€3,104.20",
      hint: "At the best value per point among your fixed-amount rewards.",
      detail: "€0.01 a point",
    });

    const rewards = page.getByRole("table", { name: "Most claimed rewards" });
    await expect.element(rewards).toBeVisible();
    expect(rowTexts(rewards.element())).toEqual([
      "Reward Claims Points spent",
      "5 € voucher 37 18,500 points",
      "Free shipping 10 3,000 points",
    ]);
    await expectNoAxeViolations();
  });

  test("draws the charts in the store's figures, each with its data as a table", async () => {
    serveOverview();
    await startApp(overviewPath, signedIn);
    await loaded();
    const ordersChart = page.getByRole("img", { name: /^Bar chart of the orders credited/ });
    await expect.element(ordersChart).toBeVisible();
    await expect
      .element(ordersChart)
      .toHaveAccessibleName(
        "Bar chart of the orders credited and the rewards claimed each day, from Sep 13, 2026 to Sep 14, 2026. The figures are in the table below.",
      );
    const pointsChart = page.getByRole("img", { name: /^Line chart of the points earned/ });
    await expect.element(pointsChart).toBeVisible();

    // chart.js drew them with the day's figures.
    await expect
      .poll(() => Chart.getChart(ordersChart.element() as HTMLCanvasElement))
      .toBeTruthy();
    const orders = Chart.getChart(ordersChart.element() as HTMLCanvasElement)!;
    expect(orders.data.labels).toEqual(["Sep 13", "Sep 14"]);
    expect(orders.data.datasets.map((set) => [set.label, set.data])).toEqual([
      ["Orders credited", [96, 88]],
      ["Rewards claimed", [21, 22]],
    ]);
    await expect
      .poll(() => Chart.getChart(pointsChart.element() as HTMLCanvasElement))
      .toBeTruthy();
    const points = Chart.getChart(pointsChart.element() as HTMLCanvasElement)!;
    expect(points.data.datasets.map((set) => [set.label, set.data])).toEqual([
      ["Points earned", [24_800, 23_410]],
      ["Points redeemed", [10_500, 11_000]],
    ]);

    // The text alternative: the same figures in a table, behind a disclosure.
    const [ordersTable] = page.getByText("Show the figures as a table").elements();
    (ordersTable as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    const table = page.getByRole("table", { name: "Orders credited and rewards claimed" });
    await expect.element(table).toBeVisible();
    expect(rowTexts(table.element())).toEqual([
      "Day Orders credited Rewards claimed",
      "Sep 13, 2026 96 21",
      "Sep 14, 2026 88 22",
    ]);
    await expectNoAxeViolations();
  });

  test("a preset period is fetched at once and kept in the URL: a reload shows the same period", async () => {
    serveOverview();
    await startApp(overviewPath, signedIn);
    await loaded();
    const last30 = page.getByRole("radio", { name: "Last 30 days" });
    (last30.element() as HTMLElement).focus();
    // Arrow keys move within the group: the next period is chosen and fetched.
    await userEvent.keyboard("{ArrowLeft}");
    await expect.element(page.getByRole("radio", { name: "Last 7 days" })).toBeChecked();
    await expect.poll(() => requestsTo(apiPath).length).toBe(2);
    expect(queryOf(requestsTo(apiPath)[1])).toEqual(lastDays(7));
    expect(location.search).toBe("?days=7");
    await loaded();

    document.body.replaceChildren();
    await startApp(`${overviewPath}?days=365`, signedIn);
    await loaded();
    await expect.element(page.getByRole("radio", { name: "Last 365 days" })).toBeChecked();
    expect(queryOf(requestsTo(apiPath).at(-1))).toEqual(lastDays(365));
  });

  test("custom dates are checked by the operation's schema: the problem shows next to the field, nothing is sent", async () => {
    serveOverview();
    await startApp(overviewPath, signedIn);
    await loaded();
    await userEvent.click(page.getByRole("radio", { name: "Custom dates" }));
    // Choosing "Custom dates" fetches nothing yet: it waits for the two days.
    expect(requestsTo(apiPath)).toHaveLength(1);
    const from = page.getByLabelText(/^From/);
    const to = page.getByLabelText(/^To/);
    await expect.element(from).toHaveValue(lastDays(30).from);
    await expect.element(to).toHaveValue(lastDays(30).to);

    await userEvent.fill(from, "2026-10-01");
    await userEvent.fill(to, "2026-09-01");
    (to.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.element(from).toHaveAttribute("aria-invalid", "true");
    await expect
      .element(from)
      .toHaveAccessibleDescription("The first day must be on or before the last day.");
    expect(focused()).toBe(from.element());
    expect(requestsTo(apiPath)).toHaveLength(1);
    await expectNoAxeViolations();

    await userEvent.fill(from, "2024-01-01");
    await userEvent.click(page.getByRole("button", { name: "Show these days" }));
    await expect.element(from).toHaveAccessibleDescription("Choose a period of at most 366 days.");
    expect(requestsTo(apiPath)).toHaveLength(1);

    await userEvent.fill(from, "2026-08-01");
    await userEvent.click(page.getByRole("button", { name: "Show these days" }));
    await expect.poll(() => requestsTo(apiPath).length).toBe(2);
    expect(queryOf(requestsTo(apiPath)[1])).toEqual({ from: "2026-08-01", to: "2026-09-01" });
    expect(new URLSearchParams(location.search).get("from")).toBe("2026-08-01");
    expect(new URLSearchParams(location.search).get("to")).toBe("2026-09-01");
    await expect.element(from).toHaveAttribute("aria-invalid", "false");
  });

  test("a shared link with a wrong period says what is wrong, next to the dates", async () => {
    serveOverview();
    await startApp(`${overviewPath}?from=2026-09-30&to=2026-09-01`, signedIn);
    await expect.element(page.getByRole("radio", { name: "Custom dates" })).toBeChecked();
    await expect
      .element(page.getByLabelText(/^From/))
      .toHaveAccessibleDescription("The first day must be on or before the last day.");
    await expect.element(page.getByText("Choose a valid period to see the figures.")).toBeVisible();
    expect(requestsTo(apiPath)).toHaveLength(0);
    await expectNoAxeViolations();
  });

  test("a store with no activity says so instead of blank charts", async () => {
    serveOverview(quietOverview());
    await startApp(overviewPath, signedIn);
    await loaded();
    await expect.element(page.getByText("No orders credited in this period yet.")).toBeVisible();
    await expect
      .element(page.getByText("No points earned or redeemed in this period yet."))
      .toBeVisible();
    await expect.element(page.getByText("No reward claimed in this period yet.")).toBeVisible();
    expect(page.getByRole("img").elements()).toHaveLength(0);
    expect(tile("Redemption rate")).toEqual({
      value: "—Not available",
      hint: "No points earned in this period.",
    });
    expect(tile("Liability")).toEqual({
      value: "—Not available",
      hint: "At the best value per point among your fixed-amount rewards.",
      detail: "None yet: create one",
    });
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("link", { name: "None yet: create one" }));
    await expect.element(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();
  });

  test.each([
    ["a busy store", overviewFixture],
    ["a store with no activity", quietOverview],
  ])(
    "loading keeps the tiles' and charts' space: %s's figures arrive without a layout shift",
    async (_, overview) => {
      const response = held();
      serve(
        http.get(apiPath, async () => {
          await response.wait();
          return HttpResponse.json(overview());
        }),
      );
      await startApp(overviewPath, signedIn);
      await expect.element(page.getByText("Loading the figures…")).toBeVisible();
      await expect
        .element(page.getByRole("heading", { level: 2, name: "Most claimed rewards" }))
        .toBeVisible();
      await expectNoAxeViolations();
      await nextPaint();
      // Every section keeps its place, the last one too (below the fold, where CLS does not look).
      const tops = () =>
        page
          .getByRole("heading", { level: 2 })
          .elements()
          .map((heading) => [text(heading), Math.round(heading.getBoundingClientRect().top)]);
      const before = tops();

      const shifts = recordLayoutShifts();
      response.release();
      await loaded();
      await nextPaint();
      expect(await shifts.stop()).toBeLessThan(0.01);
      expect(tops()).toEqual(before);
    },
  );

  test("a failure shows the problem and tries again on request", async () => {
    serveOverview();
    serve(
      http.get(apiPath, () => problemResponse("internal-server-error", "Boom."), { once: true }),
    );
    await startApp(overviewPath, signedIn);
    const alert = page.getByRole("alert");
    await expect.element(alert).toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await loaded();
    expect(tile("Members").value).toBe("1,840");
  });

  test("at 375 px wide, tiles and charts fit: the page never scrolls sideways", async () => {
    await page.viewport(375, 740);
    serveOverview();
    await startApp(overviewPath, signedIn);
    await loaded();
    const chart = page.getByRole("img", { name: /^Bar chart/ });
    await expect.element(chart).toBeVisible();
    await nextPaint();
    expect(chart.element().getBoundingClientRect().right).toBeLessThanOrEqual(375);
    expect(hasHorizontalOverflow()).toBe(false);
    for (const radio of page.getByRole("radio").elements()) {
      expect(radio.closest("label")!.getBoundingClientRect().height).toBeGreaterThanOrEqual(24);
    }
    await expectNoAxeViolations();
  });

  test("in French: words, numbers, money and days", async () => {
    await changeLocale("fr", { persist: false });
    serveOverview();
    await startApp(overviewPath, signedIn);
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Vue d’ensemble" }))
      .toBeVisible();
    await expect.element(page.getByText(/Chiffres du/)).toBeVisible();
    expect(tile("Membres").value).toBe("1 840");
    expect(tile("Passif").value).toBe("3 104,20 €");
    expect(tile("Taux d’utilisation").value).toBe("43,5 %");
    await expect.element(page.getByRole("radio", { name: "30 derniers jours" })).toBeChecked();
    await expectNoAxeViolations();
  });

  test("nothing sets a style attribute in markup (the CSP refuses them; chart.js uses CSSOM)", async () => {
    // The server's policy for attributes, here: a violation would be reported as an event.
    const meta = document.createElement("meta");
    meta.httpEquiv = "Content-Security-Policy";
    meta.content = "style-src-attr 'none'";
    document.head.append(meta);
    const violations: string[] = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      violations.push(`${event.violatedDirective}: ${event.sample}`),
    );
    // The policy is in force: a style attribute is refused and reported (CSSOM is not).
    const canary = document.createElement("div");
    canary.setAttribute("style", "color: red");
    canary.style.color = "blue";
    await expect.poll(() => violations.length).toBe(1);
    violations.length = 0;

    serveOverview();
    await startApp(overviewPath, signedIn);
    await loaded();
    const chart = page.getByRole("img", { name: /^Line chart/ });
    await expect.poll(() => Chart.getChart(chart.element() as HTMLCanvasElement)).toBeTruthy();
    await nextPaint();
    expect(violations).toEqual([]);
  });
});
