import { afterEach, expect, test } from "vitest";
import { page } from "vitest/browser";
import { html, render } from "lit";
import { announce } from "./live-region.js";

afterEach(() => document.body.replaceChildren());

test("the live region is there before its first notice, so screen readers hear the notice", async () => {
  const container = document.createElement("div");
  document.body.append(container);
  render(html`<bo-live-region></bo-live-region>`, container);
  const status = page.getByRole("status");
  // In the accessibility tree while empty: a region appearing with its text is often not read.
  await expect.element(status).toBeInTheDocument();
  expect(getComputedStyle(status.element()).display).not.toBe("none");
  expect(page.getByText("Saved.").elements()).toHaveLength(0);

  announce("Saved.");
  await expect.element(status).toHaveTextContent("Saved.");
  // Seen on screen too, by a notice screen readers do not read a second time.
  const notice = page
    .getByText("Saved.")
    .elements()
    .find((element) => element !== status.element());
  expect(notice?.getAttribute("aria-hidden")).toBe("true");
  expect(notice?.checkVisibility()).toBe(true);
});
