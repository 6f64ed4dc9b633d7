import { describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { SESSION_STORAGE_KEY } from "../src/api/session.js";
import { ADMIN, OTHER_STORE, STORE, tokenResponse } from "./support/fixtures.js";
import { HttpResponse, http, problemResponse, serve, useApiMock } from "./support/api-mock.js";
import { startApp, useApp } from "./support/app.js";

useApiMock();
useApp();

const EXPIRED = "Your session expired, sign in again.";

const storeNav = () => page.getByRole("navigation", { name: "Store sections" });

async function signIn(): Promise<void> {
  await userEvent.fill(page.getByLabelText("Email"), ADMIN.email);
  await userEvent.fill(page.getByLabelText("Password"), ADMIN.password);
  await userEvent.click(page.getByRole("button", { name: "Sign in" }));
}

describe("the session", () => {
  test("ends when its token expires: back to the sign-in, with a message", async () => {
    serve(http.post("/admin/token", () => HttpResponse.json(tokenResponse({ seconds: 1.5 }))));
    await startApp("/back-office/");
    await signIn();
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Choose a store" }))
      .toBeVisible();

    await expect
      .element(page.getByRole("heading", { level: 1, name: "Sign in" }), { timeout: 5000 })
      .toBeVisible();
    await expect.element(page.getByRole("alert")).toHaveTextContent(EXPIRED);
    expect(sessionStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
  });

  test("ends on a 401 of the API", async () => {
    serve(http.get("/admin/stores", () => problemResponse("unauthorized", "Token revoked.")));
    await startApp(`/back-office/stores/${STORE.id}/rewards`, { signedIn: { storeId: null } });
    await expect.element(page.getByRole("alert")).toHaveTextContent(EXPIRED);
    expect(sessionStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
  });

  test("signing in again returns to the page the session ended on", async () => {
    await startApp(`/back-office/stores/${STORE.id}/customers/1001`);
    await expect.element(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await signIn();
    await expect
      .element(storeNav().getByRole("link", { name: "Customers" }))
      .toHaveAttribute("aria-current", "page");
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/customers/1001`);
  });

  test("a deep link works after a reload (the tab kept the session)", async () => {
    await startApp(`/back-office/stores/${STORE.id}/customers/1001`, {
      signedIn: { storeId: STORE.id },
    });
    await expect
      .element(storeNav().getByRole("link", { name: "Customers" }))
      .toHaveAttribute("aria-current", "page");
    await expect.element(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(document.title).toMatch(new RegExp(` – ${STORE.name} – Loyalty back-office$`));
  });

  test("a session that expired while the tab was away shows the sign-in", async () => {
    await startApp(`/back-office/stores/${STORE.id}/overview`, {
      signedIn: { storeId: STORE.id, seconds: -60 },
    });
    await expect.element(page.getByRole("alert")).toHaveTextContent(EXPIRED);
  });

  test("a store token opening another store's URL lands on its own store", async () => {
    await startApp(`/back-office/stores/${OTHER_STORE.id}/rewards`, {
      signedIn: { storeId: STORE.id },
    });
    await expect.element(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();
    expect(location.pathname).toBe(`/back-office/stores/${STORE.id}/rewards`);
  });

  test("sign-out ends the session and shows the sign-in without a message", async () => {
    await startApp(`/back-office/stores/${STORE.id}/overview`, { signedIn: { storeId: null } });
    await userEvent.click(page.getByRole("button", { name: "Sign out" }));
    await expect.element(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    expect(location.pathname).toBe("/back-office/");
    expect(sessionStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
    await expect.element(page.getByRole("alert")).not.toBeInTheDocument();
  });

  test("an unknown address of the app says so", async () => {
    await startApp("/back-office/nowhere", { signedIn: { storeId: null } });
    await expect
      .element(page.getByRole("heading", { level: 1, name: "Page not found" }))
      .toBeVisible();
  });
});
