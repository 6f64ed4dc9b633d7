import axe from "axe-core";
import { expect } from "vitest";
import { page, userEvent } from "vitest/browser";

/** Adds markup to the page and waits for its first element's data to be rendered. */
export async function mount<T extends HTMLElement & { updateComplete: Promise<boolean> }>(
  markup: string,
): Promise<T> {
  const container = document.createElement("div");
  container.innerHTML = markup;
  document.body.append(container);
  const element = container.firstElementChild as T;
  await element.updateComplete;
  return element;
}

/** The text a user sees in an element's shadow root, whitespace collapsed. */
export function textOf(element: Element): string {
  const root = element.shadowRoot ?? element;
  return (root.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** An element of a widget's shadow root, by selector; fails when there is none. */
export function part<T extends Element = HTMLElement>(element: Element, selector: string): T {
  const found = element.shadowRoot?.querySelector<T>(selector);
  if (!found) throw new Error(`no ${selector} in <${element.localName}>`);
  return found;
}

/** axe-core on the page (it walks open shadow roots): no WCAG 2.2 A/AA violation. */
export async function expectAccessible(): Promise<void> {
  const results = await axe.run(document.body, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] },
  });
  const violations = results.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`,
  );
  expect(violations).toEqual([]);
}

/** Claims a reward as a shopper does: its claim button, then the confirmation's. */
export async function claimReward(name: string | RegExp): Promise<void> {
  await userEvent.click(page.getByRole("button", { name }));
  await userEvent.click(page.getByRole("button", { name: "Confirm", exact: true }));
}
