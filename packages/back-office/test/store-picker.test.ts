import { describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { OTHER_STORE, STORE } from "./support/fixtures.js";
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
import { recordLayoutShifts } from "./support/layout-shift.js";

useApiMock();
useApp();

const service = { signedIn: { storeId: null } } as const;

describe("the store picker (service token)", () => {
  test("lists the stores by name and domain; a store's link opens its overview", async () => {
    await startApp("/back-office/", service);
    const link = page.getByRole("link", { name: /Sea & Sun/ });
    await expect.element(link).toHaveTextContent("https://sea.example");
    await expect.element(page.getByRole("link", { name: /Trail & Co/ })).toBeVisible();
    expect(document.title).toBe("Choose a store – Loyalty back-office");
    await expectNoAxeViolations();

    (link.element() as HTMLElement).focus();
    await userEvent.keyboard("{Enter}");
    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    expect(location.pathname).toBe(`/back-office/stores/${OTHER_STORE.id}/overview`);
    await expect.element(page.getByRole("link", { name: /^https:\/\/sea\.example/ })).toBeVisible();
    expect(document.title).toBe(`Overview – ${OTHER_STORE.name} – Loyalty back-office`);
  });

  test("without a store, says how to create one", async () => {
    serve(http.get("/admin/stores", () => HttpResponse.json([])));
    await startApp("/back-office/", service);
    await expect
      .element(page.getByText("No store yet: create one with loyalty store create."))
      .toBeVisible();
    await expectNoAxeViolations();
  });

  test("a failure shows the problem and tries again on request", async () => {
    serve(
      http.get("/admin/stores", () => problemResponse("internal-server-error", "Boom."), {
        once: true,
      }),
    );
    await startApp("/back-office/", service);
    const alert = page.getByRole("alert");
    await expect.element(alert).toHaveTextContent("The server failed. Try again in a moment.");
    await expect.element(alert).toHaveTextContent("req_test_1");
    await expectNoAxeViolations();

    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect.element(page.getByRole("link", { name: /Trail & Co/ })).toBeVisible();
    expect(requestsTo("/admin/stores")).toHaveLength(2);
  });

  test("loading keeps the list's space: the stores arrive without a layout shift", async () => {
    const response = held();
    serve(
      http.get("/admin/stores", async () => {
        await response.wait();
        return HttpResponse.json([STORE, OTHER_STORE]);
      }),
    );
    await startApp("/back-office/", service);
    await expect
      .element(page.getByRole("status").getByText("Loading the stores"))
      .toBeInTheDocument();
    await expectNoAxeViolations();

    const shifts = recordLayoutShifts();
    response.release();
    await expect.element(page.getByRole("link", { name: /Trail & Co/ })).toBeVisible();
    expect(await shifts.stop()).toBe(0);
  });
});
