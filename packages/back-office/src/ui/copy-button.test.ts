import { afterEach, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { html, render } from "lit";
import "./copy-button.js";
import "./live-region.js";

afterEach(() => document.body.replaceChildren());

test("copies its value, says so on the button and to screen readers", async () => {
  render(
    html`<bo-copy-button value="lk_secret_key" label="Copy the key"></bo-copy-button
      ><bo-live-region></bo-live-region>`,
    document.body,
  );
  await userEvent.click(page.getByRole("button", { name: "Copy the key" }));
  await expect.element(page.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await navigator.clipboard.readText()).toBe("lk_secret_key");
  await expect.element(page.getByRole("status")).toHaveTextContent("Copied to the clipboard.");
});
