import type { AdminCustomerSummary } from "@loyalty/shared-types";
import { afterEach, describe, expect, test, vi } from "vitest";
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
import { nextPaint, recordLayoutShifts } from "./support/layout-shift.js";

useApiMock();
useApp();

const signedIn = { signedIn: { storeId: STORE.id } } as const;
const customersUrl = `/back-office/stores/${STORE.id}/customers`;
const customerUrl = (id: number | string) => `${customersUrl}/${id}`;
const searchPath = `/admin/stores/${STORE.id}/customers`;
const customerPath = `/admin/stores/${STORE.id}/customers/1001`;

const JANE = example("searchCustomers").customers[0]!;
const SAM = {
  ...JANE,
  externalId: 1002,
  email: "sam.lee@example.org",
  firstName: "Sam",
  lastName: "Lee",
  balance: -40,
  club: null,
};
const ALEX = {
  ...JANE,
  externalId: 1003,
  email: "alex@example.net",
  firstName: "Alex",
  lastName: null,
};

function searchResponse(customers = [JANE], nextCursor: string | null = null) {
  return HttpResponse.json({ customers, nextCursor });
}

const queryOf = (request: Request) => Object.fromEntries(new URL(request.url).searchParams);

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

/**
 * The customer 1001 of the examples (changed by `changes`) with their club, their history, and
 * the list they are found in.
 */
function serveCustomer(changes: Partial<AdminCustomerSummary> = {}) {
  const customer = { ...example("getAdminCustomer"), ...changes };
  serve(
    http.get(customerPath, () => HttpResponse.json(customer)),
    http.get(searchPath, () => searchResponse([{ ...JANE, ...changes }])),
    http.get(`${customerPath}/transactions`, () =>
      HttpResponse.json({ transactions: HISTORY, nextCursor: null }),
    ),
  );
  return customer;
}

const HISTORY = [
  {
    id: 9003,
    kind: "reward_redemption" as const,
    points: -500,
    balanceAfter: 640,
    note: null,
    orderExternalId: null,
    rewardId: 12,
    referralId: null,
    activity: null,
    createdAt: "2026-09-14T09:30:00.000Z",
    pendingPoints: 0,
    availableAt: null,
  },
  {
    id: 9002,
    kind: "earn" as const,
    points: 110,
    balanceAfter: 1140,
    note: null,
    orderExternalId: "5001",
    rewardId: null,
    referralId: null,
    activity: null,
    createdAt: "2026-09-14T09:12:04.000Z",
    // Held by the store's pending period until then.
    pendingPoints: 110,
    availableAt: "2026-09-28T09:00:00.000Z",
  },
];

describe("the customers list", () => {
  test("without a search, lists the newest customers; a customer's name opens their page", async () => {
    serveCustomer();
    serve(http.get(searchPath, () => searchResponse([JANE, SAM])));
    await startApp(customersUrl, signedIn);

    const jane = page.getByRole("listitem").filter({ hasText: "Jane Doe" });
    await expect.element(jane).toHaveTextContent("1001");
    await expect.element(jane).toHaveTextContent("jane.doe@example.com");
    await expect.element(jane).toHaveTextContent("640 points");
    await expect.element(jane).toHaveTextContent("Silver");
    const sam = page.getByRole("listitem").filter({ hasText: "Sam Lee" });
    await expect.element(sam).toHaveTextContent("-40 points");
    await expect.element(sam).toHaveTextContent("Club None");
    expect(queryOf(requestsTo(searchPath)[0]!)).toEqual({});
    await expect
      .element(page.getByRole("status").getByText("2 customers shown."))
      .toBeInTheDocument();
    await expectNoAxeViolations();

    (page.getByRole("link", { name: "Jane Doe" }).element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.element(page.getByRole("heading", { level: 1, name: "Jane Doe" })).toBeVisible();
    expect(location.pathname).toBe(customerUrl(1001));
  });

  test("searches as the user types, once they pause, and keeps the search in the URL", async () => {
    serve(
      http.get(searchPath, ({ request }) =>
        searchResponse(queryOf(request)["query"] === "sam" ? [SAM] : [JANE, SAM]),
      ),
    );
    await startApp(customersUrl, signedIn);
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).toBeVisible();

    await userEvent.click(page.getByLabelText("Customer id or email"));
    await userEvent.keyboard("sam");
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).not.toBeInTheDocument();
    await expect.element(page.getByRole("link", { name: "Sam Lee" })).toBeVisible();
    // One request for the three keystrokes.
    expect(requestsTo(searchPath).map((request) => queryOf(request)["query"])).toEqual([
      undefined,
      "sam",
    ]);
    expect(location.search).toBe("?q=sam");

    // A reload finds the search again.
    document.body.replaceChildren();
    await startApp(`${customersUrl}?q=sam`, signedIn);
    await expect.element(page.getByLabelText("Customer id or email")).toHaveValue("sam");
    await expect.element(page.getByRole("link", { name: "Sam Lee" })).toBeVisible();
    expect(queryOf(requestsTo(searchPath).at(-1)!)).toEqual({ query: "sam" });
  });

  test("while a search runs, the previous results stay readable and marked busy", async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    serve(
      http.get(searchPath, async ({ request }) => {
        if (queryOf(request)["query"] !== "sam") return searchResponse([JANE, SAM]);
        await answered;
        return searchResponse([SAM]);
      }),
    );
    await startApp(customersUrl, signedIn);
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).toBeVisible();

    await userEvent.click(page.getByLabelText("Customer id or email"));
    await userEvent.keyboard("sam{Enter}");
    await expect.poll(() => requestsTo(searchPath).length).toBe(2);
    const busy = page
      .getByRole("listitem")
      .filter({ hasText: "Jane Doe" })
      .element()
      .closest("bo-state-view");
    expect(busy?.getAttribute("aria-busy")).toBe("true");
    // Still there, and as readable as before (no fading that would fail the contrast).
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).toBeVisible();
    await expectNoAxeViolations();

    answer();
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).not.toBeInTheDocument();
    expect(busy?.getAttribute("aria-busy")).toBe("false");
  });

  test("Enter searches at once, and the Search button too", async () => {
    serve(http.get(searchPath, () => searchResponse([JANE])));
    await startApp(customersUrl, signedIn);
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).toBeVisible();
    const searches = () => requestsTo(searchPath).map((request) => queryOf(request)["query"]);

    await userEvent.click(page.getByLabelText("Customer id or email"));
    await userEvent.keyboard("1001{Enter}");
    await expect.poll(searches).toEqual([undefined, "1001"]);

    // The same search again reads it again (a customer may just have arrived).
    await userEvent.click(page.getByRole("button", { name: "Search" }));
    await expect.poll(searches).toEqual([undefined, "1001", "1001"]);
    // The pause after typing does not send it a third time.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(searches()).toHaveLength(3);
  });

  test("says when no customer matches, and when there is none yet", async () => {
    serve(
      http.get(searchPath, ({ request }) =>
        searchResponse(queryOf(request)["query"] ? [] : [], null),
      ),
    );
    await startApp(`${customersUrl}?q=nobody@`, signedIn);
    await expect.element(page.getByText("No customer matches “nobody@”.").first()).toBeVisible();
    await expectNoAxeViolations();

    await userEvent.clear(page.getByLabelText("Customer id or email"));
    await userEvent.keyboard("{Enter}");
    await expect
      .element(
        page
          .getByText("No customer yet: customers appear with their first order or referral.")
          .first(),
      )
      .toBeVisible();
    expect(location.search).toBe("");
  });

  test("“Load more” reads the next page and moves the focus to its first customer", async () => {
    serve(
      http.get(searchPath, ({ request }) =>
        queryOf(request)["cursor"] === "page2"
          ? searchResponse([ALEX], null)
          : searchResponse([JANE, SAM], "page2"),
      ),
    );
    await startApp(customersUrl, signedIn);
    const more = page.getByRole("button", { name: "Load more customers" });
    await expect.element(more).toBeVisible();
    await expect
      .element(page.getByRole("status").getByText("2 customers shown. More with “Load more”."))
      .toBeInTheDocument();

    (more.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    const alex = page.getByRole("link", { name: "Alex" });
    await expect.element(alex).toBeVisible();
    expect(focused()).toBe(alex.element());
    expect(queryOf(requestsTo(searchPath).at(-1)!)).toEqual({ cursor: "page2" });
    await expect.element(more).not.toBeInTheDocument();
    expect(page.getByRole("listitem").filter({ hasText: "Customer id" }).all()).toHaveLength(3);
  });

  test("a failure shows the problem and tries again; a refused search shows next to the field", async () => {
    serve(
      http.get(searchPath, () => problemResponse("internal-server-error", "Boom."), { once: true }),
    );
    await startApp(customersUrl, signedIn);
    await expect
      .element(page.getByRole("alert"))
      .toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).toBeVisible();

    serve(
      http.get(searchPath, () =>
        problemResponse("validation-failed", "The query is not valid.", [
          { location: "query", pointer: "/query", message: "Too big", code: "too_big" },
        ]),
      ),
    );
    await userEvent.click(page.getByLabelText("Customer id or email"));
    await userEvent.keyboard("x{Enter}");
    const field = page.getByLabelText("Customer id or email");
    await expect.element(field).toHaveAttribute("aria-invalid", "true");
    await expect.element(field).toHaveAccessibleDescription(/Too big/);
    await expect.element(page.getByText("Correct the search to see customers.")).toBeVisible();
    await expectNoAxeViolations();
  });

  test("loading keeps the list's space: the customers arrive without a layout shift", async () => {
    const response = held();
    serve(
      http.get(searchPath, async () => {
        await response.wait();
        return searchResponse([JANE, SAM, ALEX], "more");
      }),
    );
    await startApp(customersUrl, signedIn);
    await expect
      .element(page.getByRole("status").getByText("Loading the customers"))
      .toBeInTheDocument();
    await expectNoAxeViolations();
    await nextPaint();

    const shifts = recordLayoutShifts();
    response.release();
    await expect.element(page.getByRole("link", { name: "Alex" })).toBeVisible();
    expect(await shifts.stop()).toBeLessThan(0.01);
  });

  test("at 375 px wide, in French: nothing scrolls sideways", async () => {
    await page.viewport(375, 740);
    await changeLocale("fr", { persist: false });
    serve(http.get(searchPath, () => searchResponse([JANE, SAM], "more")));
    await startApp(customersUrl, signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Clients" })).toBeVisible();
    await expect.element(page.getByRole("link", { name: "Jane Doe" })).toBeVisible();
    await expect.element(page.getByText("640 points").first()).toBeVisible();
    await expect.element(page.getByLabelText("Identifiant ou e-mail du client")).toBeVisible();
    await expect
      .element(page.getByRole("button", { name: "Afficher plus de clients" }))
      .toBeVisible();
    expect(hasHorizontalOverflow()).toBe(false);
    await expectNoAxeViolations();
  });
});

describe("a customer's page", () => {
  afterEach(() => vi.restoreAllMocks());

  test("shows the profile, the balance, the club and the history, every entry in words", async () => {
    serveCustomer();
    await startApp(customerUrl(1001), signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Jane Doe" })).toBeVisible();
    expect(document.title).toBe(`Jane Doe – ${STORE.name} – Loyalty back-office`);

    const balance = page.getByRole("region", { name: "Balance" });
    await expect.element(balance).toHaveTextContent("640 points");
    const club = page.getByRole("region", { name: "Club" });
    await expect.element(club).toHaveTextContent("Silver");
    await expect.element(club).toHaveTextContent("1.2 times the points");
    await expect.element(club).toHaveTextContent("1,240 points earned in the last 12 months");
    const profile = page.getByRole("region", { name: "Profile" });
    await expect.element(profile).toHaveTextContent("jane.doe@example.com");
    await expect.element(profile).toHaveTextContent("English");
    await expect.element(profile).toHaveTextContent(/Apr 11, 2026|11 Apr 2026/);
    // One read for the profile and the club: no search on the side.
    expect(requestsTo(customerPath)).toHaveLength(1);
    expect(requestsTo(searchPath)).toHaveLength(0);

    const rows = page.getByRole("table").getByRole("row");
    await expect
      .element(rows.nth(1))
      .toHaveTextContent(/Reward claimed\s*Reward 12\s*(Sep 14, 2026|14 Sep 2026)[^-]*-500\s*640/);
    await expect
      .element(rows.nth(2))
      .toHaveTextContent(/Points earned\s*Order 5001.*\+110\s*1,140/);
    await expect
      .element(rows.nth(2))
      .toHaveTextContent(/Pending until (Sep 28, 2026|28 Sep 2026), now spendable/);
    await expectNoAxeViolations();
  });

  test("says how many points are pending, and until when an earning is held", async () => {
    vi.spyOn(Date, "now").mockReturnValue(Date.parse("2026-09-20T00:00:00.000Z"));
    serveCustomer({ balance: 640, pendingPoints: 110 });
    await startApp(customerUrl(1001), signedIn);
    const balance = page.getByRole("region", { name: "Balance" });
    await expect
      .element(balance)
      .toHaveTextContent(
        "110 points of them pending: they become spendable when the store's pending period ends.",
      );
    const rows = page.getByRole("table").getByRole("row");
    await expect.element(rows.nth(2)).toHaveTextContent(/Pending until (Sep 28, 2026|28 Sep 2026)/);
    await expect.element(rows.nth(2)).not.toHaveTextContent("now spendable");
    await expectNoAxeViolations();
  });

  test("explains a negative balance, and the points reserved by claims", async () => {
    serveCustomer({ balance: -60, reservedPoints: 500 });
    await startApp(customerUrl(1001), signedIn);
    const balance = page.getByRole("region", { name: "Balance" });
    await expect.element(balance).toHaveTextContent("-60 points");
    await expect
      .element(balance)
      .toHaveTextContent("points of an order that was refunded had already been spent");
    await expect.element(balance).toHaveTextContent("500 points reserved by claims");
    await expectNoAxeViolations();
  });

  test("loading keeps the space: the customer arrives without a layout shift", async () => {
    const response = held();
    const customer = example("getAdminCustomer");
    serve(
      http.get(customerPath, async () => {
        await response.wait();
        return HttpResponse.json(customer);
      }),
      http.get(searchPath, () => searchResponse()),
      http.get(`${customerPath}/transactions`, async () => {
        await response.wait();
        return HttpResponse.json({ transactions: HISTORY, nextCursor: "more" });
      }),
    );
    await startApp(customerUrl(1001), signedIn);
    await expect
      .element(page.getByRole("status").getByText("Loading the customer"))
      .toBeInTheDocument();
    await expectNoAxeViolations();
    await nextPaint();

    const shifts = recordLayoutShifts();
    response.release();
    await expect.element(page.getByRole("button", { name: "Load more history" })).toBeVisible();
    expect(await shifts.stop()).toBeLessThan(0.01);
  });

  test("an unknown customer is not found", async () => {
    serve(
      http.get(`/admin/stores/${STORE.id}/customers/999`, () =>
        problemResponse("not-found", "No such customer."),
      ),
      http.get(searchPath, () => searchResponse([])),
      http.get(`/admin/stores/${STORE.id}/customers/999/transactions`, () =>
        problemResponse("not-found", "No such customer."),
      ),
    );
    await startApp(customerUrl(999), signedIn);
    await expect.element(page.getByText("No customer 999 in this store.")).toBeVisible();
    await expect.element(page.getByRole("link", { name: "Find a customer" })).toBeVisible();
    await expectNoAxeViolations();
  });

  test("a failure shows the problem and tries again", async () => {
    serveCustomer();
    serve(
      http.get(customerPath, () => problemResponse("internal-server-error", "Boom."), {
        once: true,
      }),
    );
    await startApp(customerUrl(1001), signedIn);
    await expect
      .element(page.getByRole("alert"))
      .toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect.element(page.getByRole("heading", { level: 1, name: "Jane Doe" })).toBeVisible();
  });

  test("“Load more history” reads the next page and moves the focus to its first entry", async () => {
    serveCustomer();
    serve(
      http.get(`${customerPath}/transactions`, ({ request }) =>
        queryOf(request)["cursor"] === "OTAwMQ"
          ? HttpResponse.json({
              transactions: [
                {
                  ...HISTORY[1]!,
                  id: 9001,
                  kind: "referral_bonus",
                  points: 200,
                  balanceAfter: 1030,
                  orderExternalId: null,
                  referralId: 31,
                },
              ],
              nextCursor: null,
            })
          : HttpResponse.json({ transactions: HISTORY, nextCursor: "OTAwMQ" }),
      ),
    );
    await startApp(customerUrl(1001), signedIn);
    const more = page.getByRole("button", { name: "Load more history" });
    await userEvent.click(more);
    const row = page.getByRole("row").filter({ hasText: "Referral bonus" });
    await expect.element(row).toHaveTextContent(/Referral 31.*\+200\s*1,030/);
    expect(focused()).toBe(row.element());
    await expect.element(more).not.toBeInTheDocument();
  });

  test("adjusts the points with the keyboard: errors next to their field, then the balance and history update", async () => {
    serveCustomer();
    serve(
      http.post(`${customerPath}/adjustments`, async ({ request }) => {
        const body = (await request.json()) as { points: number; reason: string };
        return HttpResponse.json(
          {
            transaction: {
              id: 9010,
              kind: "manual_adjustment",
              points: body.points,
              balanceAfter: 640 + body.points,
              note: body.reason,
              orderExternalId: null,
              rewardId: null,
              referralId: null,
              activity: null,
              createdAt: "2026-09-15T10:00:00.000Z",
              pendingPoints: 0,
              availableAt: null,
            },
            balance: 640 + body.points,
          },
          { status: 201 },
        );
      }),
    );
    await startApp(customerUrl(1001), signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Jane Doe" })).toBeVisible();
    const points = page.getByRole("spinbutton", { name: "Points" });
    const reason = page.getByRole("textbox", { name: "Reason" });
    const submit = page.getByRole("button", { name: "Adjust the points" });

    // Nothing typed: both fields say what they need, and nothing is sent.
    (submit.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.element(points).toHaveAttribute("aria-invalid", "true");
    await expect.element(points).toHaveAccessibleDescription(/Enter a number\./);
    await expect.element(reason).toHaveAccessibleDescription(/This field is required\./);
    expect(focused()).toBe(points.element());
    await expectNoAxeViolations();

    // 0 points is no adjustment.
    await userEvent.keyboard("0");
    await userEvent.tab();
    await userEvent.keyboard("Goodwill");
    await userEvent.keyboard("{Enter}");
    await expect
      .element(points)
      .toHaveAccessibleDescription(/Enter a number of points other than 0\./);
    await expect.element(reason).toHaveAttribute("aria-invalid", "false");
    expect(requestsTo(`${customerPath}/adjustments`)).toHaveLength(0);

    await userEvent.fill(points, "-150");
    (reason.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    const saved = page.getByRole("status").filter({ hasText: "Saved" });
    await expect.element(saved).toHaveTextContent("Saved: -150 points. New balance: 490 points.");
    expect(focused()).toBe(saved.element());
    const [sent] = requestsTo(`${customerPath}/adjustments`);
    expect(await sent!.json()).toEqual({ points: -150, reason: "Goodwill" });
    await expect
      .element(page.getByRole("region", { name: "Balance" }))
      .toHaveTextContent("490 points");
    await expect
      .element(page.getByRole("table").getByRole("row").nth(1))
      .toHaveTextContent(/Adjustment by hand\s*Note: Goodwill.*-150\s*490/);
    await expect.element(points).toHaveValue(null);
    await expectNoAxeViolations();
  });

  test("an adjustment answered after the admin moved on changes only its own customer", async () => {
    serveCustomer();
    const samPath = `/admin/stores/${STORE.id}/customers/1002`;
    serve(
      http.get(searchPath, () => searchResponse([JANE, SAM])),
      http.get(samPath, () =>
        HttpResponse.json({ ...example("getAdminCustomer"), ...SAM, externalId: 1002 }),
      ),
      http.get(`${samPath}/transactions`, () =>
        HttpResponse.json({ transactions: [], nextCursor: null }),
      ),
    );
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    serve(
      http.post(`${customerPath}/adjustments`, async () => {
        await answered;
        return HttpResponse.json(
          {
            transaction: { ...HISTORY[0]!, id: 9010, kind: "manual_adjustment", points: 100 },
            balance: 740,
          },
          { status: 201 },
        );
      }),
    );
    // Sam's page, the list, then Jane's.
    await startApp(customerUrl(1002), signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Sam Lee" })).toBeVisible();
    await userEvent.click(page.getByRole("link", { name: "All customers" }));
    await userEvent.click(page.getByRole("link", { name: "Jane Doe" }));
    await userEvent.fill(page.getByRole("spinbutton", { name: "Points" }), "100");
    await userEvent.fill(page.getByRole("textbox", { name: "Reason" }), "Goodwill");
    await userEvent.click(page.getByRole("button", { name: "Adjust the points" }));
    await expect.poll(() => requestsTo(`${customerPath}/adjustments`).length).toBe(1);

    // Two steps back (the Back button's menu), to Sam's page, before the answer.
    history.go(-2);
    await expect.element(page.getByRole("heading", { level: 1, name: "Sam Lee" })).toBeVisible();
    const balance = page.getByRole("region", { name: "Balance" });
    await expect.element(balance).toHaveTextContent("-40 points");
    answer();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect.element(balance).toHaveTextContent("-40 points");
    expect(page.getByText(/Saved: \+100 points/).elements()).toHaveLength(0);
    await expect.element(page.getByRole("button", { name: "Adjust the points" })).toBeEnabled();
  });

  test("the server's refusal of a field shows next to it", async () => {
    serveCustomer();
    serve(
      http.post(`${customerPath}/adjustments`, () =>
        problemResponse("validation-failed", "The reason is too long.", [
          { location: "body", pointer: "/reason", message: "is too long", code: "too_big" },
        ]),
      ),
    );
    await startApp(customerUrl(1001), signedIn);
    await userEvent.fill(page.getByRole("spinbutton", { name: "Points" }), "10");
    await userEvent.fill(page.getByRole("textbox", { name: "Reason" }), "Because");
    await userEvent.click(page.getByRole("button", { name: "Adjust the points" }));
    const reason = page.getByRole("textbox", { name: "Reason" });
    await expect.element(reason).toHaveAttribute("aria-invalid", "true");
    await expect.element(reason).toHaveAccessibleDescription(/is too long/);
    expect(focused()).toBe(reason.element());
    await expectNoAxeViolations();
  });

  test("downloads the customer's data as customer-1001-export.json", async () => {
    serveCustomer();
    serve(http.get(`${customerPath}/export`, () => HttpResponse.json(example("exportCustomer"))));
    const clicked: HTMLAnchorElement[] = [];
    // The download itself is the browser's: the test keeps the link the page clicked.
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this);
    });
    await startApp(customerUrl(1001), signedIn);
    const button = page.getByRole("button", { name: "Download the data (JSON)" });
    await expect.element(button).toBeVisible();
    (button.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => clicked.length).toBe(1);
    const [link] = clicked;
    expect(link!.download).toBe("customer-1001-export.json");
    expect(link!.href).toMatch(/^blob:/);
    const file = await fetch(link!.href);
    expect(file.headers.get("content-type")).toBe("application/json");
    expect(await file.json()).toEqual(example("exportCustomer"));
    await expect
      .element(page.getByRole("status").getByText("Downloaded customer-1001-export.json."))
      .toBeInTheDocument();
    expect(focused()).toBe(button.element());
  });

  test("erasure asks to type the customer's id, then shows the erased customer", async () => {
    serveCustomer();
    serve(
      http.delete(customerPath, () =>
        HttpResponse.json({ externalId: 1001, erasedAt: "2026-09-15T10:00:00.000Z", balance: 640 }),
      ),
    );
    await startApp(customerUrl(1001), signedIn);
    const erase = page.getByRole("button", { name: "Erase personal data…" });
    await userEvent.click(erase);

    const dialog = page.getByRole("dialog", { name: "Erase this customer's personal data?" });
    await expect
      .element(dialog)
      .toHaveAccessibleDescription(/Jane Doe, jane\.doe@example\.com \(customer 1001\)/);
    const typed = page.getByLabelText("Type the customer id, 1001, to confirm");
    expect(focused()).toBe(typed.element());
    await expectNoAxeViolations();

    // Escape cancels: nothing sent, the focus back on the button.
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();
    expect(focused()).toBe(erase.element());

    await userEvent.keyboard("{Enter}");
    await expect.element(dialog).toBeVisible();
    await userEvent.keyboard("1002{Enter}");
    await expect.element(typed).toHaveAccessibleDescription("Type 1001 to confirm.");
    expect(requestsTo(customerPath).filter((request) => request.method === "DELETE")).toHaveLength(
      0,
    );
    await expectNoAxeViolations();

    await userEvent.fill(typed, "1001");
    await userEvent.keyboard("{Enter}");
    await expect.element(dialog).not.toBeInTheDocument();
    const notice = page.getByText(/Personal data erased on (Sep 15, 2026|15 Sep 2026)\./);
    await expect.element(notice).toBeVisible();
    expect(requestsTo(customerPath).filter((request) => request.method === "DELETE")).toHaveLength(
      1,
    );
    expect(focused()).toBe(
      page
        .getByText(/Personal data erased on/)
        .element()
        .closest(".erased"),
    );
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Customer 1001" }))
      .toBeVisible();
    await expect
      .element(page.getByRole("region", { name: "Balance" }))
      .toHaveTextContent("640 points");
    await expect
      .element(page.getByRole("region", { name: "Profile" }))
      .not.toHaveTextContent("jane");
    await expect
      .element(page.getByRole("button", { name: "Erase personal data…" }))
      .not.toBeInTheDocument();
    await expect
      .element(page.getByRole("button", { name: "Download the data (JSON)" }))
      .not.toBeInTheDocument();
    await expect.element(page.getByRole("spinbutton", { name: "Points" })).not.toBeInTheDocument();
    await expectNoAxeViolations();
  });

  test("an erased customer's page says so and offers no adjustment, export or erasure", async () => {
    serveCustomer({
      email: null,
      firstName: null,
      lastName: null,
      language: null,
      erasedAt: "2026-09-01T08:00:00.000Z",
    });
    await startApp(customerUrl(1001), signedIn);
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Customer 1001" }))
      .toBeVisible();
    await expect
      .element(page.getByText(/Personal data erased on (Sep 1, 2026|1 Sep 2026)\./))
      .toBeVisible();
    await expect.element(page.getByText(/Points can no longer be adjusted/)).toBeVisible();
    await expect
      .element(page.getByRole("button", { name: "Erase personal data…" }))
      .not.toBeInTheDocument();
    await expect.element(page.getByRole("spinbutton", { name: "Points" })).not.toBeInTheDocument();
    await expect.element(page.getByRole("table")).toBeVisible();
    await expectNoAxeViolations();
  });

  test("at 375 px wide, in French: nothing scrolls sideways, the history scrolls in its own region", async () => {
    await page.viewport(375, 740);
    await changeLocale("fr", { persist: false });
    serveCustomer({ balance: -60 });
    await startApp(customerUrl(1001), signedIn);
    await expect.element(page.getByRole("heading", { level: 1, name: "Jane Doe" })).toBeVisible();
    await expect
      .element(page.getByRole("region", { name: "Solde" }))
      .toHaveTextContent("-60 points");
    await expect.element(page.getByRole("button", { name: "Ajuster les points" })).toBeVisible();
    await expect.element(page.getByRole("region", { name: "Historique" }).first()).toBeVisible();
    expect(hasHorizontalOverflow()).toBe(false);
    await expectNoAxeViolations();
  });
});
