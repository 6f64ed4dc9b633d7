import { describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { SESSION_STORAGE_KEY } from "../src/api/session.js";
import { ADMIN, STORE, tokenResponse } from "./support/fixtures.js";
import { HttpResponse, http, requestsTo, serve, useApiMock } from "./support/api-mock.js";
import { startApp, useApp } from "./support/app.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { focused } from "./support/dom.js";

useApiMock();
useApp();

describe("sign-in", () => {
  test("signs in with the keyboard alone (Tab, typing, Enter), then shows the store picker", async () => {
    await startApp("/back-office/");
    await expect.element(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();

    await userEvent.tab(); // the language
    await userEvent.tab();
    expect(focused()).toBe(page.getByLabelText("Email").element());
    await userEvent.keyboard(ADMIN.email);
    await userEvent.tab();
    expect(focused()).toBe(page.getByLabelText("Password").element());
    await userEvent.keyboard(ADMIN.password);
    await userEvent.keyboard("{Enter}");

    await expect
      .element(page.getByRole("heading", { level: 1, name: "Choose a store" }))
      .toBeVisible();
    const [request] = requestsTo("/admin/token");
    expect(await request?.json()).toEqual(ADMIN);
    expect(request?.headers.get("revision")).toBe("2026-08-26");
    expect(JSON.parse(sessionStorage.getItem(SESSION_STORAGE_KEY) ?? "{}")).toMatchObject({
      storeId: null,
    });
  });

  test("a wrong password shows the server's problem, and keeps what was typed", async () => {
    await startApp("/back-office/");
    await userEvent.fill(page.getByLabelText("Email"), ADMIN.email);
    await userEvent.fill(page.getByLabelText("Password"), "wrong");
    await userEvent.click(page.getByRole("button", { name: "Sign in" }));

    const alert = page.getByRole("alert");
    await expect.element(alert).toHaveTextContent("Access refused.");
    await expect.element(alert).toHaveTextContent("The email or the password is wrong.");
    // The focus goes to the problem, for screen readers and the keyboard.
    expect(focused()).toBe(alert.element());
    await expect.element(page.getByLabelText("Email")).toHaveValue(ADMIN.email);
    await expectNoAxeViolations();
  });

  test("an invalid email is shown next to the field, and nothing is sent", async () => {
    await startApp("/back-office/");
    await userEvent.fill(page.getByLabelText("Email"), "admin-at-shop");
    await userEvent.fill(page.getByLabelText("Password"), "secret");
    await userEvent.click(page.getByRole("button", { name: "Sign in" }));

    const email = page.getByLabelText("Email");
    await expect.element(email).toHaveAttribute("aria-invalid", "true");
    await expect
      .element(email)
      .toHaveAccessibleDescription("Enter an email address, such as name@shop.example.");
    await expect.element(page.getByLabelText("Password")).toHaveAttribute("aria-invalid", "false");
    expect(focused()).toBe(email.element());
    expect(requestsTo("/admin/token")).toHaveLength(0);
    await expectNoAxeViolations();
  });

  test("an empty form asks for both fields", async () => {
    await startApp("/back-office/");
    await userEvent.click(page.getByRole("button", { name: "Sign in" }));
    await expect.element(page.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
    await expect.element(page.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    await expect
      .element(page.getByLabelText("Password"))
      .toHaveAccessibleDescription("This field is required.");
    expect(requestsTo("/admin/token")).toHaveLength(0);
  });

  test("a store token goes straight to its store's overview", async () => {
    serve(http.post("/admin/token", () => HttpResponse.json(tokenResponse({ storeId: STORE.id }))));
    await startApp("/back-office/");
    await userEvent.fill(page.getByLabelText("Email"), ADMIN.email);
    await userEvent.fill(page.getByLabelText("Password"), ADMIN.password);
    await userEvent.click(page.getByRole("button", { name: "Sign in" }));

    await expect.element(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/overview`);
    await expect.element(page.getByRole("banner")).toHaveTextContent(STORE.name);
    expect(document.title).toBe(`Overview – ${STORE.name} – Loyalty back-office`);
  });

  test("has no accessibility violation", async () => {
    await startApp("/back-office/");
    await expect.element(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await expectNoAxeViolations();
  });
});
