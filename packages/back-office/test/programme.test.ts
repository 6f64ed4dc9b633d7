import {
  attributionRuleSchema,
  clubSchema,
  pointsPreviewSchema,
  type AttributionRule,
  type Club,
  type PointsPreview,
  type ProgramSettings,
} from "@loyalty/shared-types";
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

const programmePath = `/back-office/stores/${STORE.id}/programme`;
const api = (path: string) => `/admin/stores/${STORE.id}/${path}`;
const signedIn = { signedIn: { storeId: STORE.id } } as const;
const NOW = "2026-11-26T10:00:00.000Z";

const CREATED_AT = "2026-01-05T08:00:00.000Z";

// The contract's examples, spelled out: what these tests read does not move with them.
const PRODUCT_RULE = attributionRuleSchema.parse({
  ...example("listRules")[0],
  id: 7,
  kind: "product",
  targetId: 301,
  name: "Trail shoes: double points",
  rate: 2,
  pointsPerItem: 0,
  active: true,
});
const CATEGORY_RULE = attributionRuleSchema.parse({
  ...PRODUCT_RULE,
  id: 5,
  kind: "category",
  targetId: 40,
  name: "Running: 1.5 points per euro",
  rate: 1.5,
});
const DEFAULT_RULE = attributionRuleSchema.parse({
  ...PRODUCT_RULE,
  id: 1,
  kind: "default",
  targetId: null,
  name: "1 point per euro",
  rate: 1,
});
const RULES = [PRODUCT_RULE, CATEGORY_RULE, DEFAULT_RULE];
const CLUBS = [
  { id: 2, name: "Silver", threshold: 1000, multiplier: 1.25 },
  { id: 3, name: "Gold", threshold: 2500, multiplier: 1.5 },
].map((club) => clubSchema.parse({ ...club, createdAt: CREATED_AT, updatedAt: CREATED_AT }));

/** The spec's clubs: points earned over the rolling 12 months, lost as soon as below. */
const SPEC_CLUBS = {
  basis: "points-earned",
  period: "rolling-12-months",
  downgrade: "immediately",
} as const;

/** The mocked programme: the contract's rules and clubs unless told otherwise. */
function serveProgramme(
  rules: AttributionRule[] = RULES,
  clubs: Club[] = CLUBS,
  settings: ProgramSettings = {
    pendingDays: 0,
    expiry: { mode: "off" },
    activities: [],
    clubs: SPEC_CLUBS,
  },
): void {
  serve(
    http.get(api("rules"), () => HttpResponse.json(rules)),
    http.get(api("clubs"), () => HttpResponse.json(clubs)),
    http.get(api("program-settings"), () => HttpResponse.json(settings)),
  );
}

async function openProgramme(): Promise<void> {
  await startApp(programmePath, signedIn);
  await expect
    .element(page.getByRole("heading", { level: 2, name: "Attribution rules" }))
    .toBeVisible();
}

/** The list item of a rule or club, found by its title. */
const item = (title: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title }) });

function hasHorizontalOverflow(): boolean {
  return document.documentElement.scrollWidth > document.documentElement.clientWidth;
}

// Intl separates thousands with no-break spaces: compared as plain spaces.
const text = (element: Element) =>
  element.textContent?.replace(/[\s\u00a0\u202f]+/g, " ").trim() ?? "";

/** The text a user sees in an element, shadow roots included (their slots aside). */
function deepText(node: Node): string {
  const parts: string[] = [];
  const walk = (current: Node) => {
    if (current instanceof Element && current.shadowRoot) walk(current.shadowRoot);
    for (const child of current.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) parts.push(child.textContent ?? "");
      else walk(child);
    }
  };
  walk(node);
  return parts
    .join(" ")
    .replace(/[\s\u00a0\u202f]+/g, " ")
    .trim();
}

describe("the programme's rules", () => {
  test("lists the rules by kind, in the order they apply, and explains that order", async () => {
    serveProgramme();
    await openProgramme();
    const headings = page.getByRole("heading", { level: 3 }).elements().map(text);
    expect(headings.slice(0, 3)).toEqual(["Product rules", "Category rules", "Default rule"]);
    await expect
      .element(
        page.getByText("Each product of an order earns under one rule, the first that exists of:"),
      )
      .toBeVisible();
    await expect
      .element(
        page.getByText(
          "a rule of one of its categories: when several match, the one giving the most points;",
        ),
      )
      .toBeVisible();

    const products = page.getByRole("list", { name: "Product rules" });
    await expect.element(products).toHaveTextContent("Trail shoes: double points");
    await expect.element(products).toHaveTextContent("Product 301");
    await expect.element(products).toHaveTextContent("2 points per €1 spent");
    const categories = page.getByRole("list", { name: "Category rules" });
    await expect.element(categories).toHaveTextContent("Running: 1.5 points per euro");
    await expect.element(categories).toHaveTextContent("Category 40");
    await expect.element(categories).toHaveTextContent("1.5 points per €1 spent");
    await expect
      .element(page.getByRole("list", { name: "Default rule" }))
      .toHaveTextContent("1 point per €1 spent");
    await expect
      .element(page.getByRole("switch", { name: "Active Trail shoes: double points" }))
      .toBeChecked();

    const clubs = page.getByRole("list", { name: "Clubs" }).getByRole("listitem").elements();
    expect(clubs.map(text)).toEqual([
      expect.stringMatching(
        /^Silver From 1,000 points earned over the last 12 months Points × 1\.25/,
      ),
      expect.stringMatching(/^Gold From 2,500 points earned over the last 12 months Points × 1\.5/),
    ]);
    await expectNoAxeViolations();
  });

  test("a kind without rules says what that means", async () => {
    serveProgramme([PRODUCT_RULE], []);
    await openProgramme();
    await expect.element(page.getByText("No category rule.")).toBeVisible();
    await expect
      .element(
        page.getByText(
          "No default rule: products without a product or category rule earn no points.",
        ),
      )
      .toBeVisible();
    await expect
      .element(page.getByText("No club: every customer earns the same points."))
      .toBeVisible();
    await expectNoAxeViolations();
  });

  test("creates a rule with the keyboard alone; the new rule then has the focus", async () => {
    serveProgramme();
    const created: AttributionRule = {
      ...PRODUCT_RULE,
      id: 9,
      targetId: 512,
      name: "Tents",
      rate: 2.5,
      pointsPerItem: 5,
      createdAt: NOW,
      updatedAt: NOW,
    };
    serve(http.post(api("rules"), () => HttpResponse.json(created, { status: 201 })));
    await openProgramme();

    const add = page.getByRole("button", { name: "Add a rule" });
    (add.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.element(add).toHaveAttribute("aria-expanded", "true");
    const form = page.getByRole("form", { name: "New rule" });
    const kind = form.getByLabelText("Applies to");
    expect(focused()).toBe(kind.element());
    await expect.element(kind).toHaveValue("product");
    await userEvent.tab();
    expect(focused()).toBe(form.getByLabelText(/^Product id/).element());
    await userEvent.keyboard("512");
    await userEvent.tab();
    await userEvent.keyboard("Tents");
    await userEvent.tab();
    await userEvent.keyboard("{Control>}a{/Control}2.5");
    await userEvent.tab();
    await userEvent.keyboard("{Control>}a{/Control}5");
    await userEvent.keyboard("{Enter}");

    const title = page.getByRole("heading", { level: 4, name: "Tents" });
    await expect.element(title).toBeVisible();
    expect(focused()).toBe(title.element());
    const [request] = requestsTo(api("rules")).filter((r) => r.method === "POST");
    expect(await request?.json()).toEqual({
      kind: "product",
      targetId: 512,
      name: "Tents",
      rate: 2.5,
      pointsPerItem: 5,
      active: true,
    });
    await expect.element(page.getByRole("status").getByText("Rule created.")).toBeVisible();
    await expect
      .element(page.getByRole("list", { name: "Product rules" }))
      .toHaveTextContent("2.5 points per €1 spent, plus 5 points per item");
    await expect.element(add).toHaveAttribute("aria-expanded", "false");
  });

  test("a default rule needs no target; Escape closes the form and gives the focus back", async () => {
    serveProgramme([PRODUCT_RULE], []);
    serve(
      http.post(api("rules"), () =>
        HttpResponse.json({ ...DEFAULT_RULE, id: 11 }, { status: 201 }),
      ),
    );
    await openProgramme();
    const add = page.getByRole("button", { name: "Add a rule" });
    await userEvent.click(add);
    const form = page.getByRole("form", { name: "New rule" });
    await userEvent.selectOptions(form.getByLabelText("Applies to"), "default");
    await expect.element(form.getByLabelText(/^Product id|^Category id/)).not.toBeInTheDocument();
    await userEvent.keyboard("{Escape}");
    await expect.element(page.getByLabelText("Applies to")).not.toBeInTheDocument();
    expect(focused()).toBe(add.element());

    await userEvent.click(add);
    await userEvent.selectOptions(page.getByLabelText("Applies to"), "default");
    await userEvent.click(page.getByRole("button", { name: "Create the rule" }));
    await expect.element(page.getByRole("list", { name: "Default rule" })).toBeVisible();
    const [request] = requestsTo(api("rules")).filter((r) => r.method === "POST");
    expect(await request?.json()).toMatchObject({ kind: "default", targetId: null, rate: 1 });
  });

  test("shows each problem next to its field: the schema's before sending, then the server's conflict", async () => {
    serveProgramme();
    serve(
      http.post(api("rules"), () =>
        problemResponse(
          "validation-failed",
          "Rule 7 is already active for product 301: deactivate it first.",
          [
            {
              location: "body",
              pointer: "/targetId",
              message: "another active rule has this target",
              code: "conflict",
            },
          ],
        ),
      ),
    );
    await openProgramme();
    await userEvent.click(page.getByRole("button", { name: "Add a rule" }));
    const form = page.getByRole("form", { name: "New rule" });
    const target = form.getByLabelText(/^Product id/);
    const rate = form.getByLabelText(/^Points per €1 spent/);
    await userEvent.fill(target, "shoes");
    await userEvent.fill(rate, "");
    await userEvent.click(page.getByRole("button", { name: "Create the rule" }));

    await expect.element(target).toHaveAttribute("aria-invalid", "true");
    await expect.element(target).toHaveAccessibleDescription(/Enter a number\.$/);
    await expect.element(rate).toHaveAccessibleDescription("Enter a number.");
    expect(focused()).toBe(target.element());
    expect(requestsTo(api("rules")).filter((r) => r.method === "POST")).toHaveLength(0);
    await expectNoAxeViolations();

    await userEvent.fill(target, "301");
    await userEvent.fill(rate, "3");
    await userEvent.click(page.getByRole("button", { name: "Create the rule" }));
    await expect
      .element(target)
      .toHaveAccessibleDescription(
        /Another active rule has this target: deactivate it first, or save this one inactive\.$/,
      );
    await expect.element(rate).toHaveAttribute("aria-invalid", "false");
    await expect
      .element(form.getByRole("alert"))
      .toHaveTextContent("Rule 7 is already active for product 301: deactivate it first.");
    expect(requestsTo(api("rules")).filter((r) => r.method === "POST")).toHaveLength(1);
    await expectNoAxeViolations();
  });

  test("edits a rule: what it targets stays; saving gives the focus back to its Edit button", async () => {
    serveProgramme();
    serve(
      http.patch(api("rules/:ruleId"), async ({ request }) =>
        HttpResponse.json({
          ...PRODUCT_RULE,
          ...((await request.json()) as object),
          updatedAt: NOW,
        }),
      ),
    );
    await openProgramme();
    const edit = page.getByRole("button", { name: "Edit Trail shoes: double points" });
    await userEvent.click(edit);
    const form = page.getByRole("form", { name: "Edit the rule" });
    await expect.element(form).toHaveTextContent("Product 301");
    await expect.element(form.getByLabelText("Applies to")).not.toBeInTheDocument();
    const name = form.getByLabelText(/^Name/);
    expect(focused()).toBe(name.element());
    await expect.element(name).toHaveValue("Trail shoes: double points");
    await userEvent.fill(form.getByLabelText(/^Extra points per item/), "10");
    await userEvent.click(form.getByRole("button", { name: "Save the rule" }));

    await expect.element(form).not.toBeInTheDocument();
    await expect
      .element(item("Trail shoes: double points"))
      .toHaveTextContent("2 points per €1 spent, plus 10 points per item");
    expect(focused()).toBe(
      page.getByRole("button", { name: "Edit Trail shoes: double points" }).element(),
    );
    const [request] = requestsTo(api(`rules/${PRODUCT_RULE.id}`));
    expect(request?.method).toBe("PATCH");
    expect(await request?.json()).toEqual({
      name: "Trail shoes: double points",
      rate: 2,
      pointsPerItem: 10,
      active: true,
    });
  });

  test("the switch turns a rule off and on; a refused activation says why, and the switch stays off", async () => {
    const inactive = { ...PRODUCT_RULE, active: false };
    serveProgramme([inactive, CATEGORY_RULE, DEFAULT_RULE]);
    serve(
      http.patch(
        api("rules/:ruleId"),
        () =>
          problemResponse(
            "validation-failed",
            "Rule 12 is already active for product 301: deactivate it first.",
            [
              {
                location: "body",
                pointer: "/active",
                message: "another active rule has this target",
                code: "conflict",
              },
            ],
          ),
        { once: true },
      ),
    );
    await openProgramme();
    await expect.element(item("Trail shoes: double points")).toHaveTextContent("Inactive");
    const toggle = page.getByRole("switch", { name: "Active Trail shoes: double points" });
    await expect.element(toggle).not.toBeChecked();
    (toggle.element() as HTMLElement).focus();
    await userEvent.keyboard(" ");
    const alert = item("Trail shoes: double points").getByRole("alert");
    await expect
      .element(alert)
      .toHaveTextContent(
        "Product rule not activated: another active rule has the same target. Deactivate it first.",
      );
    await expect.element(alert).toHaveTextContent("Rule 12 is already active for product 301");
    await expect.element(toggle).not.toBeChecked();
    expect(focused()).toBe(toggle.element());
    await expectNoAxeViolations();

    serve(
      http.patch(api("rules/:ruleId"), () =>
        HttpResponse.json({ ...PRODUCT_RULE, active: true, updatedAt: NOW }),
      ),
    );
    await userEvent.keyboard(" ");
    await expect.element(toggle).toBeChecked();
    await expect.element(page.getByRole("status").getByText("Rule activated.")).toBeVisible();
    await expect.element(alert).not.toBeInTheDocument();
    const patches = requestsTo(api(`rules/${PRODUCT_RULE.id}`));
    expect(await Promise.all(patches.map((request) => request.json()))).toEqual([
      { active: true },
      { active: true },
    ]);
  });

  test("deleting asks first, naming the rule; cancel changes nothing, confirm deletes it", async () => {
    serveProgramme();
    serve(http.delete(api("rules/:ruleId"), () => new HttpResponse(null, { status: 204 })));
    await openProgramme();
    const remove = page.getByRole("button", { name: "Delete Running: 1.5 points per euro" });
    await userEvent.click(remove);
    const dialog = page.getByRole("dialog", {
      name: "Delete the rule “Running: 1.5 points per euro”?",
    });
    await expect.element(dialog).toBeVisible();
    await expectNoAxeViolations();
    await userEvent.keyboard("{Escape}");
    await expect.element(dialog).not.toBeInTheDocument();
    expect(focused()).toBe(remove.element());
    expect(requestsTo(api(`rules/${CATEGORY_RULE.id}`))).toHaveLength(0);

    await userEvent.click(remove);
    await userEvent.click(page.getByRole("button", { name: "Delete the rule" }));
    await expect.element(page.getByText("No category rule.")).toBeVisible();
    expect(requestsTo(api(`rules/${CATEGORY_RULE.id}`)).map((r) => r.method)).toEqual(["DELETE"]);
    expect(focused()).toBe(
      page.getByRole("heading", { level: 2, name: "Attribution rules" }).element(),
    );
    await expect
      .element(page.getByRole("status").getByText("Rule “Running: 1.5 points per euro” deleted."))
      .toBeVisible();
  });
});

describe("the programme's clubs", () => {
  test("creates a club; the server's threshold conflict shows next to the threshold", async () => {
    serveProgramme();
    const bronze: Club = {
      id: 4,
      name: "Bronze",
      threshold: 500,
      multiplier: 1.1,
      createdAt: NOW,
      updatedAt: NOW,
    };
    // msw asks the handlers in order: the refusal once, then the creation.
    serve(
      http.post(
        api("clubs"),
        () =>
          problemResponse("validation-failed", "Another club has the threshold 1000.", [
            {
              location: "body",
              pointer: "/threshold",
              message: "another club has this threshold",
              code: "conflict",
            },
          ]),
        { once: true },
      ),
      http.post(api("clubs"), () => HttpResponse.json(bronze, { status: 201 })),
    );
    await openProgramme();
    await userEvent.click(page.getByRole("button", { name: "Add a club" }));
    const form = page.getByRole("form", { name: "New club" });
    expect(focused()).toBe(form.getByLabelText(/^Name/).element());
    await userEvent.click(form.getByRole("button", { name: "Create the club" }));
    await expect
      .element(form.getByLabelText(/^Name/))
      .toHaveAccessibleDescription(/This field is required\.$/);
    await expect
      .element(form.getByLabelText(/^Points to reach it/))
      .toHaveAccessibleDescription(/Enter a number\.$/);
    expect(requestsTo(api("clubs")).filter((r) => r.method === "POST")).toHaveLength(0);

    await userEvent.fill(form.getByLabelText(/^Name/), "Bronze");
    await userEvent.fill(form.getByLabelText(/^Points to reach it/), "1000");
    await userEvent.fill(form.getByLabelText(/^Points multiplier/), "1.1");
    await userEvent.click(form.getByRole("button", { name: "Create the club" }));
    await expect
      .element(form.getByLabelText(/^Points to reach it/))
      .toHaveAccessibleDescription(/Another club has this threshold: choose another one\.$/);
    await expectNoAxeViolations();

    await userEvent.fill(form.getByLabelText(/^Points to reach it/), "500");
    await userEvent.click(form.getByRole("button", { name: "Create the club" }));
    const title = page.getByRole("heading", { level: 3, name: "Bronze" });
    await expect.element(title).toBeVisible();
    expect(focused()).toBe(title.element());
    const posts = requestsTo(api("clubs")).filter((r) => r.method === "POST");
    expect(await posts[1]?.json()).toEqual({ name: "Bronze", threshold: 500, multiplier: 1.1 });
    // Ordered by threshold: Bronze first.
    const names = page
      .getByRole("list", { name: "Clubs" })
      .getByRole("heading", { level: 3 })
      .elements()
      .map(text);
    expect(names).toEqual(["Bronze", "Silver", "Gold"]);
  });

  test("edits and deletes a club", async () => {
    serveProgramme();
    serve(
      http.patch(api("clubs/:clubId"), async ({ request }) =>
        HttpResponse.json({ ...CLUBS[0], ...((await request.json()) as object), updatedAt: NOW }),
      ),
      http.delete(api("clubs/:clubId"), () => new HttpResponse(null, { status: 204 })),
    );
    await openProgramme();
    await userEvent.click(page.getByRole("button", { name: "Edit Silver" }));
    const form = page.getByRole("form", { name: "Edit the club" });
    await userEvent.fill(form.getByLabelText(/^Points multiplier/), "1.3");
    await userEvent.keyboard("{Enter}");
    await expect.element(item("Silver")).toHaveTextContent("Points × 1.3");
    expect(focused()).toBe(page.getByRole("button", { name: "Edit Silver" }).element());
    expect(await requestsTo(api("clubs/2"))[0]?.json()).toEqual({
      name: "Silver",
      threshold: 1000,
      multiplier: 1.3,
    });

    await userEvent.click(page.getByRole("button", { name: "Delete Gold" }));
    await expect
      .element(page.getByRole("dialog", { name: "Delete the club “Gold”?" }))
      .toBeVisible();
    await userEvent.click(page.getByRole("button", { name: "Delete the club" }));
    await expect.element(item("Gold")).not.toBeInTheDocument();
    expect(focused()).toBe(page.getByRole("heading", { level: 2, name: "Clubs" }).element());
  });
});

describe("what a product would earn", () => {
  const preview = pointsPreviewSchema.parse({
    points: 179,
    type: "product",
    id: 7,
    ruleName: "Espresso machines",
    linePoints: 359,
    clubs: [
      { id: 1, name: "Silver", multiplier: 1.2, linePoints: 430 },
      { id: 2, name: "Gold", multiplier: 1.5, linePoints: 538 },
    ],
  });

  test("computes a product's points, and computes them again after a rule changes", async () => {
    serveProgramme();
    const after: PointsPreview = {
      ...preview,
      points: 90,
      type: "category",
      id: CATEGORY_RULE.id,
      ruleName: CATEGORY_RULE.name,
      linePoints: 180,
      clubs: preview.clubs.map((club) => ({ ...club, linePoints: 200 })),
    };
    serve(
      http.get(api("points-preview"), () => HttpResponse.json(preview), { once: true }),
      http.get(api("points-preview"), () => HttpResponse.json(after)),
      http.patch(api("rules/:ruleId"), () =>
        HttpResponse.json({ ...PRODUCT_RULE, active: false, updatedAt: NOW }),
      ),
    );
    await openProgramme();
    const panel = page.getByRole("region", { name: "What would a product earn?" });
    await userEvent.fill(panel.getByLabelText("Product id"), "7");
    await userEvent.fill(panel.getByLabelText(/^Category ids/), "12, 40");
    await userEvent.fill(panel.getByLabelText(/^Unit price \(EUR\)/), "179.9");
    await userEvent.fill(panel.getByLabelText(/^Quantity/), "2");
    await userEvent.keyboard("{Enter}");

    const panelText = () => deepText(panel.element());
    await expect.poll(panelText).toContain("Points per unit 179 points");
    expect(panelText()).toContain("Rule applied Product rule: “Espresso machines”");
    expect(panelText()).toContain("Points for the order line 359 points 2 × €179.90");
    const clubs = panel.getByRole("table", { name: "The same line for a member of each club" });
    expect(clubs.getByRole("row").elements().map(text)).toEqual([
      "Club Multiplier Points",
      "Silver × 1.2 430 points",
      "Gold × 1.5 538 points",
    ]);
    const [first] = requestsTo(api("points-preview"));
    expect(Object.fromEntries(new URL(first!.url).searchParams)).toEqual({
      product: "7",
      categories: "12, 40",
      price: "179.9",
      quantity: "2",
    });
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("switch", { name: "Active Trail shoes: double points" }));
    await expect
      .element(panel.getByText("Updated after your change to the programme."))
      .toBeVisible();
    expect(panelText()).toContain("Rule applied Category rule: “Running: 1.5 points per euro”");
    expect(panelText()).toContain("Points per unit 90 points");
    const requests = requestsTo(api("points-preview"));
    expect(requests).toHaveLength(2);
    expect(requests[1]?.url).toBe(first?.url);
  });

  test("says when no rule matches, and when the store has no club", async () => {
    serveProgramme();
    serve(
      http.get(api("points-preview"), () =>
        HttpResponse.json({
          points: 0,
          type: null,
          id: null,
          ruleName: null,
          linePoints: 0,
          clubs: [],
        } satisfies PointsPreview),
      ),
    );
    await openProgramme();
    const panel = page.getByRole("region", { name: "What would a product earn?" });
    await userEvent.fill(panel.getByLabelText(/^Unit price/), "20");
    await userEvent.click(panel.getByRole("button", { name: "Compute the points" }));
    await expect
      .element(panel.getByText("No active rule matches: this product earns no points."))
      .toBeVisible();
    await expect
      .element(panel.getByText("No club: every customer earns the line's points."))
      .toBeVisible();
    const [request] = requestsTo(api("points-preview"));
    expect(Object.fromEntries(new URL(request!.url).searchParams)).toEqual({
      price: "20",
      quantity: "1",
    });
  });

  test("checks the values with the operation's schema before asking", async () => {
    serveProgramme();
    await openProgramme();
    const panel = page.getByRole("region", { name: "What would a product earn?" });
    await userEvent.fill(panel.getByLabelText("Product id"), "shoes");
    await userEvent.fill(panel.getByLabelText(/^Category ids/), "12, running");
    await userEvent.click(panel.getByRole("button", { name: "Compute the points" }));
    const product = panel.getByLabelText("Product id");
    await expect
      .element(product)
      .toHaveAccessibleDescription("Enter a product id: a whole number.");
    expect(focused()).toBe(product.element());
    await expect
      .element(panel.getByLabelText(/^Category ids/))
      .toHaveAccessibleDescription(/Enter category ids: whole numbers separated by commas\.$/);
    await expect
      .element(panel.getByLabelText(/^Unit price/))
      .toHaveAccessibleDescription("This field is required.");
    expect(requestsTo(api("points-preview"))).toHaveLength(0);
    await expectNoAxeViolations();
  });
});

describe("the programme settings", () => {
  const settingsPath = api("program-settings");
  const days = () => page.getByRole("spinbutton", { name: "Days an order's points stay pending" });

  test("show the pending period, and save a new one with the keyboard alone", async () => {
    serveProgramme(RULES, CLUBS, {
      pendingDays: 14,
      expiry: { mode: "off" },
      activities: [],
      clubs: SPEC_CLUBS,
    });
    serve(http.put(settingsPath, async ({ request }) => HttpResponse.json(await request.json())));
    await openProgramme();
    await expect.element(page.getByRole("group", { name: "Pending period" })).toBeVisible();
    await expect.element(days()).toHaveValue(14);
    await expect
      .element(days())
      .toHaveAccessibleDescription(/a refund within the period takes them back first/);
    await expectNoAxeViolations();

    days().element().focus();
    await userEvent.keyboard("{Control>}a{/Control}30");
    await userEvent.tab();
    expect(focused()).toBe(page.getByRole("combobox", { name: "Points expire" }).element());
    for (const name of [
      "Customers reach a club by",
      "Counted over",
      "A customer below their club's threshold leaves it",
    ]) {
      await userEvent.tab();
      expect(focused()).toBe(page.getByRole("combobox", { name }).element());
    }
    await userEvent.tab();
    expect(focused()).toBe(page.getByRole("button", { name: "Add a way to earn" }).element());
    await userEvent.tab();
    expect(focused()).toBe(
      page.getByRole("button", { name: "Save the programme settings" }).element(),
    );
    await userEvent.keyboard("{Enter}");
    const saved = page.getByRole("status").filter({ hasText: "Programme settings saved." });
    await expect.element(saved).toBeVisible();
    expect(focused()).toBe(saved.element());
    const [sent] = requestsTo(settingsPath).filter((r) => r.method === "PUT");
    expect(await sent!.json()).toEqual({
      pendingDays: 30,
      expiry: { mode: "off" },
      clubs: SPEC_CLUBS,
      activities: [],
    });
    await expectNoAxeViolations();
  });

  test("sets points to expire a number of months after they were earned, with a warning", async () => {
    serveProgramme();
    serve(http.put(settingsPath, async ({ request }) => HttpResponse.json(await request.json())));
    await openProgramme();
    const mode = page.getByRole("combobox", { name: "Points expire" });
    await expect.element(mode).toHaveValue("off");
    await expect.element(page.getByRole("spinbutton", { name: "Months" })).not.toBeInTheDocument();
    await userEvent.selectOptions(mode, "lifetime");
    const months = page.getByRole("spinbutton", { name: "Months" });
    const warning = page.getByRole("spinbutton", { name: "Warn the customer (days before)" });
    await expect.element(months).toHaveValue(12);
    await expect.element(warning).toHaveValue(30);
    await expect.element(mode).toHaveAccessibleDescription(/The oldest points are spent first/);
    await expectNoAxeViolations();
    await userEvent.fill(months, "24");
    await userEvent.click(page.getByRole("button", { name: "Save the programme settings" }));
    await expect
      .element(page.getByRole("status").filter({ hasText: "Programme settings saved." }))
      .toBeVisible();
    const [sent] = requestsTo(settingsPath).filter((r) => r.method === "PUT");
    expect(await sent!.json()).toEqual({
      pendingDays: 0,
      expiry: { mode: "lifetime", months: 24, warningDays: 30 },
      clubs: SPEC_CLUBS,
      activities: [],
    });

    // Back to never: the period's fields go, and so does the policy.
    await userEvent.selectOptions(mode, "off");
    await expect.element(months).not.toBeInTheDocument();
    await userEvent.click(page.getByRole("button", { name: "Save the programme settings" }));
    await expect
      .poll(async () => {
        const puts = requestsTo(settingsPath).filter((r) => r.method === "PUT");
        return puts.length === 2 ? await puts[1]!.json() : undefined;
      })
      .toEqual({ pendingDays: 0, expiry: { mode: "off" }, clubs: SPEC_CLUBS, activities: [] });
  });

  test("sets how clubs are reached and kept, and describes the clubs by it", async () => {
    serveProgramme();
    serve(http.put(settingsPath, async ({ request }) => HttpResponse.json(await request.json())));
    await openProgramme();
    const clubs = page.getByRole("group", { name: "Clubs" });
    const basis = clubs.getByRole("combobox", { name: "Customers reach a club by" });
    await expect.element(basis).toHaveValue("points-earned");
    await expect.element(basis).toHaveAccessibleDescription(/spending points never counts/);
    await userEvent.selectOptions(basis, "amount-spent");
    await userEvent.selectOptions(
      clubs.getByRole("combobox", { name: "Counted over" }),
      "calendar-year",
    );
    const downgrade = clubs.getByRole("combobox", {
      name: "A customer below their club's threshold leaves it",
    });
    await userEvent.selectOptions(downgrade, "end-of-period");
    await expect.element(downgrade).toHaveAccessibleDescription(/then reviewed on the period/);
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Save the programme settings" }));
    await expect
      .element(page.getByRole("status").filter({ hasText: "Programme settings saved." }))
      .toBeVisible();
    const [sent] = requestsTo(settingsPath).filter((r) => r.method === "PUT");
    expect(((await sent!.json()) as { clubs: unknown }).clubs).toEqual({
      basis: "amount-spent",
      period: "calendar-year",
      downgrade: "end-of-period",
    });
    // What was saved is what the form shows, and the clubs are described by it.
    await expect.element(basis).toHaveValue("amount-spent");
    await expect.element(downgrade).toHaveValue("end-of-period");
    await expect
      .element(page.getByRole("list", { name: "Clubs" }))
      .toHaveTextContent(/From €1,000\.00 spent in a calendar year/);
    await userEvent.click(page.getByRole("button", { name: "Add a club" }));
    await expect
      .element(page.getByRole("spinbutton", { name: "Amount to reach it" }))
      .toHaveAccessibleDescription("An amount in your currency, spent in a calendar year.");
  });

  test("adds, keeps and removes ways to earn beyond orders", async () => {
    serveProgramme(RULES, CLUBS, {
      pendingDays: 0,
      expiry: { mode: "off" },
      activities: [{ kind: "signup", label: "", points: 100, limit: null }],
      clubs: SPEC_CLUBS,
    });
    serve(http.put(settingsPath, async ({ request }) => HttpResponse.json(await request.json())));
    await openProgramme();
    const ways = page.getByRole("group", { name: "Ways to earn beyond orders" });
    // A kind is typed, with the built-in kinds suggested.
    const kinds = ways.getByRole("combobox", { name: "Kind" });
    await expect.element(kinds).toHaveValue("signup");

    await userEvent.click(page.getByRole("button", { name: "Add a way to earn" }));
    await expect.poll(() => kinds.elements().length).toBe(2);
    expect(focused()).toBe(kinds.elements()[1]);
    await userEvent.keyboard("photo_review");
    await userEvent.fill(
      ways.getByRole("textbox", { name: "Name shown to customers" }).nth(1),
      "Photo review",
    );
    await userEvent.fill(ways.getByRole("spinbutton", { name: "Points" }).nth(1), "80");
    await userEvent.fill(ways.getByRole("spinbutton", { name: "At most (times)" }).nth(1), "2");
    await userEvent.selectOptions(ways.getByRole("combobox", { name: "Per" }).nth(1), "month");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Save the programme settings" }));
    await expect
      .element(page.getByRole("status").filter({ hasText: "Programme settings saved." }))
      .toBeVisible();
    const [sent] = requestsTo(settingsPath).filter((r) => r.method === "PUT");
    expect(await sent!.json()).toEqual({
      pendingDays: 0,
      expiry: { mode: "off" },
      clubs: SPEC_CLUBS,
      activities: [
        { kind: "signup", label: "", points: 100, limit: null },
        {
          kind: "photo_review",
          label: "Photo review",
          points: 80,
          limit: { count: 2, period: "month" },
        },
      ],
    });

    await userEvent.click(page.getByRole("button", { name: "Remove Sign-up" }));
    expect(focused()).toBe(page.getByRole("button", { name: "Add a way to earn" }).element());
    await expect.poll(() => kinds.elements().length).toBe(1);
    await expect.element(kinds.first()).toHaveValue("photo_review");
  });

  test("a kind named twice is explained above the ways to earn, and nothing is sent", async () => {
    serveProgramme(RULES, CLUBS, {
      pendingDays: 0,
      expiry: { mode: "off" },
      activities: [{ kind: "review", label: "", points: 50, limit: null }],
      clubs: SPEC_CLUBS,
    });
    await openProgramme();
    await userEvent.click(page.getByRole("button", { name: "Add a way to earn" }));
    await userEvent.keyboard("review");
    const ways = page.getByRole("group", { name: "Ways to earn beyond orders" });
    await userEvent.fill(ways.getByRole("spinbutton", { name: "Points" }).nth(1), "10");
    await userEvent.click(page.getByRole("button", { name: "Save the programme settings" }));
    const problem = page.getByText("must name each kind once");
    await expect.element(problem).toBeVisible();
    expect(focused()).toBe(problem.element());
    await expect.element(ways).toHaveAccessibleDescription(/must name each kind once/);
    expect(requestsTo(settingsPath).filter((r) => r.method === "PUT")).toHaveLength(0);
    await expect.element(page.getByRole("group", { name: "Way to earn 2" })).toBeVisible();
    await expectNoAxeViolations();
  });

  test("a value the operation refuses is explained next to the field, and nothing is sent", async () => {
    serveProgramme();
    await openProgramme();
    await expect.element(days()).toHaveValue(0);
    for (const value of ["-1", "400", ""]) {
      await userEvent.fill(days(), value);
      await userEvent.click(page.getByRole("button", { name: "Save the programme settings" }));
      await expect.element(days()).toHaveAttribute("aria-invalid", "true");
      expect(focused()).toBe(days().element());
    }
    expect(requestsTo(settingsPath).filter((r) => r.method === "PUT")).toHaveLength(0);
    await expectNoAxeViolations();
  });

  test("a failure to load says so and tries again on request", async () => {
    serveProgramme();
    serve(
      http.get(settingsPath, () => problemResponse("internal-server-error", "Boom."), {
        once: true,
      }),
    );
    // The settings load with the rules and clubs (the clubs are described by them): one
    // problem for the three, and one retry.
    await startApp(programmePath, signedIn);
    await expect.element(page.getByRole("alert")).toHaveTextContent("The server failed.");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect.element(days()).toHaveValue(0);
    await expect
      .element(page.getByRole("heading", { level: 2, name: "Attribution rules" }))
      .toBeVisible();
  });
});

describe("the programme screen", () => {
  test("loading keeps the lists' space; the rules and clubs arrive without a layout shift", async () => {
    const response = held();
    serve(
      http.get(api("rules"), async () => {
        await response.wait();
        return HttpResponse.json(RULES);
      }),
      http.get(api("clubs"), () => HttpResponse.json(CLUBS)),
      http.get(api("program-settings"), () =>
        HttpResponse.json({
          pendingDays: 0,
          expiry: { mode: "off" },
          activities: [],
          clubs: SPEC_CLUBS,
        }),
      ),
    );
    await startApp(programmePath, signedIn);
    await expect
      .element(page.getByRole("status").getByText("Loading the rules and clubs"))
      .toBeInTheDocument();
    await expectNoAxeViolations();
    await nextPaint();
    const preview = page.getByRole("heading", { level: 2, name: "What would a product earn?" });
    const before = preview.element().getBoundingClientRect().top;
    const shifts = recordLayoutShifts();
    response.release();
    await expect
      .element(page.getByRole("heading", { level: 2, name: "Attribution rules" }))
      .toBeVisible();
    expect(await shifts.stop()).toBeLessThan(0.01);
    // Beside the lists on a wide screen: the preview stays where it was.
    expect(preview.element().getBoundingClientRect().top).toBe(before);
  });

  test("a failure shows the problem and tries again on request", async () => {
    serveProgramme();
    serve(
      http.get(api("clubs"), () => problemResponse("internal-server-error", "Boom."), {
        once: true,
      }),
    );
    await startApp(programmePath, signedIn);
    await expect
      .element(page.getByRole("alert"))
      .toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect.element(page.getByRole("heading", { level: 2, name: "Clubs" })).toBeVisible();
  });

  test("at 375 px wide, the lists, forms and preview fit, with touch-sized controls", async () => {
    await page.viewport(375, 740);
    serveProgramme();
    await openProgramme();
    await userEvent.click(page.getByRole("button", { name: "Add a rule" }));
    await userEvent.click(page.getByRole("button", { name: "Edit Silver" }));
    expect(hasHorizontalOverflow()).toBe(false);
    for (const control of [
      ...page.getByRole("button").elements(),
      ...page.getByRole("switch").elements(),
    ]) {
      const box = (control.closest("label") ?? control).getBoundingClientRect();
      if (box.width === 0) continue;
      expect(box.height, text(control)).toBeGreaterThanOrEqual(24);
    }
    await expectNoAxeViolations();
  });

  test("in French", async () => {
    await changeLocale("fr", { persist: false });
    serveProgramme();
    await startApp(programmePath, signedIn);
    await expect
      .element(page.getByRole("heading", { level: 2, name: "Règles d’attribution" }))
      .toBeVisible();
    await expect
      .element(page.getByRole("list", { name: "Règles par produit" }))
      .toHaveTextContent("2 points par 1 € dépensé");
    await expect
      .element(page.getByRole("list", { name: "Règles par catégorie" }))
      .toHaveTextContent("1,5 point par 1 € dépensé");
    await expect
      .element(page.getByRole("list", { name: "Clubs" }))
      .toHaveTextContent("À partir de 1 000 points gagnés sur les 12 derniers mois");
    await expect
      .element(page.getByRole("group", { name: "Période d’attente" }))
      .toHaveTextContent("Jours pendant lesquels les points d’une commande restent en attente");
    await expect
      .element(page.getByRole("combobox", { name: "Les points expirent" }))
      .toHaveTextContent("Jamais");
    await expectNoAxeViolations();
  });
});
