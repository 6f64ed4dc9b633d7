import { afterEach, describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { expectNoAxeViolations } from "../../test/support/axe.js";
import { focused } from "../../test/support/dom.js";
import { confirmAction } from "./confirm-dialog.js";

afterEach(() => document.body.replaceChildren());

function opener(): HTMLButtonElement {
  const button = document.createElement("button");
  button.textContent = "Revoke";
  document.body.append(button);
  button.focus();
  return button;
}

const ask = () =>
  confirmAction({
    heading: "Revoke this key?",
    body: "Stores using it stop working at once.",
    confirmLabel: "Revoke key",
    destructive: true,
  });

describe("confirmAction", () => {
  test("asks in a modal dialog, focus on Cancel; Escape cancels and the focus returns", async () => {
    const button = opener();
    const answer = ask();
    const dialog = page.getByRole("dialog", { name: "Revoke this key?" });
    await expect.element(dialog).toBeVisible();
    await expect
      .element(dialog)
      .toHaveAccessibleDescription("Stores using it stop working at once.");
    await expect.poll(focused).toBe(page.getByRole("button", { name: "Cancel" }).element());
    await expectNoAxeViolations();

    await userEvent.keyboard("{Escape}");
    await expect(answer).resolves.toBe(false);
    expect(document.activeElement).toBe(button);
    expect(document.querySelector("bo-confirm-dialog")).toBeNull();
  });

  test("resolves true when confirmed", async () => {
    opener();
    const answer = ask();
    await userEvent.click(page.getByRole("button", { name: "Revoke key" }));
    await expect(answer).resolves.toBe(true);
  });

  test("keeps the keyboard inside the dialog: the page behind is inert", async () => {
    const button = opener();
    const answer = ask();
    await expect.element(page.getByRole("dialog")).toBeVisible();
    await expect.poll(focused).toBe(page.getByRole("button", { name: "Cancel" }).element());
    await userEvent.tab();
    expect(focused()).toBe(page.getByRole("button", { name: "Revoke key" }).element());
    button.focus();
    expect(document.activeElement).not.toBe(button);
    await userEvent.keyboard("{Escape}");
    await expect(answer).resolves.toBe(false);
  });

  test("with typeToConfirm, confirms only once the exact text is typed (Enter in the field too)", async () => {
    opener();
    const answer = confirmAction({
      heading: "Erase this customer?",
      confirmLabel: "Erase",
      destructive: true,
      typeToConfirm: { label: "Type the customer id, 1001, to confirm", value: "1001" },
    });
    const field = page.getByLabelText("Type the customer id, 1001, to confirm");
    await expect.element(field).toBeVisible();
    await expect.poll(focused).toBe(field.element());
    await userEvent.click(page.getByRole("button", { name: "Erase" }));
    await expect.element(field).toHaveAccessibleDescription("Type 1001 to confirm.");
    expect(focused()).toBe(field.element());
    await expectNoAxeViolations();
    await userEvent.keyboard("1001{Enter}");
    await expect(answer).resolves.toBe(true);
  });
});
