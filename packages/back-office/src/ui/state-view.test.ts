import { Task } from "@lit/task";
import { html, LitElement, render } from "lit";
import { afterEach, describe, expect, test } from "vitest";
import { page, userEvent } from "vitest/browser";
import { ApiError } from "../api/errors.js";
import { expectNoAxeViolations } from "../../test/support/axe.js";
import { nextPaint, recordLayoutShifts } from "../../test/support/layout-shift.js";
import { define } from "./element.js";
import { taskView } from "./state-view.js";

/** A screen-like element: a list loaded by a Task, a paragraph below it. */
class ListDemo extends LitElement {
  load: () => Promise<string[]> = () => Promise.resolve([]);
  readonly task = new Task(this, { task: () => this.load(), args: () => [] });
  protected override render() {
    return html`<h1>Demo</h1>
      ${taskView(this.task, {
        label: "Loading the demo",
        isEmpty: (items) => items.length === 0,
        empty: () => html`<p>Nothing yet.</p>`,
        ready: (items) =>
          html`<ul>
            ${items.map((item) => html`<li>${item}</li>`)}
          </ul>`,
      })}
      <p id="below">Below the list</p>`;
  }
}
define("bo-list-demo", ListDemo);

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((ok, ko) => ((resolve = ok), (reject = ko)));
  return { promise, resolve, reject };
}

async function mount(load: () => Promise<string[]>): Promise<ListDemo> {
  const element = document.createElement("bo-list-demo") as ListDemo;
  element.load = load;
  const main = document.createElement("main");
  main.append(element);
  document.body.append(main);
  await element.updateComplete;
  return element;
}

const below = (element: ListDemo) =>
  element.shadowRoot!.querySelector("#below")!.getBoundingClientRect().top;

afterEach(() => document.body.replaceChildren());

describe("taskView and <bo-state-view>", () => {
  test("data arriving within the reserved space moves nothing: no layout shift", async () => {
    const data = deferred<string[]>();
    const element = await mount(() => data.promise);
    await expect.element(page.getByRole("status")).toHaveTextContent("Loading the demo");
    await expectNoAxeViolations();
    await nextPaint();
    const before = below(element);

    const shifts = recordLayoutShifts();
    data.resolve(["Free shipping", "€5 off", "10% off"]);
    await expect.element(page.getByText("10% off")).toBeVisible();
    expect(await shifts.stop()).toBe(0);
    expect(below(element)).toBe(before);
  });

  test("the measure catches a shift (what the reserved space avoids)", async () => {
    const element = await mount(() => Promise.resolve(["one"]));
    await expect.element(page.getByText("one")).toBeVisible();
    await nextPaint();
    const shifts = recordLayoutShifts();
    // Content inserted above, with nothing reserved for it, pushes the rest down.
    const view = element.shadowRoot!.querySelector("bo-state-view")!;
    const inserted = document.createElement("div");
    inserted.append("A late banner");
    inserted.className = "late";
    render(
      html`<p>${"x".repeat(10)}</p>
        <p>late</p>
        <p>late</p>
        <p>late</p>`,
      inserted,
    );
    view.before(inserted);
    expect(await shifts.stop()).toBeGreaterThan(0);
  });

  test("an empty result shows the empty state", async () => {
    await mount(() => Promise.resolve([]));
    await expect.element(page.getByText("Nothing yet.")).toBeVisible();
    expect(
      document.querySelector("bo-list-demo")!.shadowRoot!.querySelector("bo-state-view")!.state,
    ).toBe("empty");
  });

  test("an error shows the problem and tries again on request", async () => {
    let calls = 0;
    await mount(() => {
      calls += 1;
      return calls === 1
        ? Promise.reject(
            new ApiError({
              status: 500,
              reason: "internal-server-error",
              title: "Internal server error",
            }),
          )
        : Promise.resolve(["back"]);
    });
    await expect
      .element(page.getByRole("alert"))
      .toHaveTextContent("The server failed. Try again in a moment.");
    await expectNoAxeViolations();
    await userEvent.click(page.getByRole("button", { name: "Try again" }));
    await expect.element(page.getByText("back")).toBeVisible();
  });

  test("keeps the same space in every state", async () => {
    const view = document.createElement("bo-state-view");
    document.body.append(view);
    const heights: number[] = [];
    for (const state of ["loading", "empty", "error", "ready"] as const) {
      view.state = state;
      await view.updateComplete;
      heights.push(view.getBoundingClientRect().height);
    }
    // 10rem by default; the error's box is taller than nothing but within it.
    expect(new Set(heights)).toEqual(new Set([160]));
  });
});
