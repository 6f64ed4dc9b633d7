import { expect, it } from "vitest";
import { requestsTo, useApiMock } from "./support/api-mock.js";
import { API, DOMAIN } from "./support/fixtures.js";
import { mount, textOf } from "./support/dom.js";

useApiMock();

/** Adds the built script tag (dist/loyalty-widgets.js) as a merchant's theme does. */
function addScriptTag(): Promise<void> {
  const script = document.createElement("script");
  script.src = `/dist/loyalty-widgets.js?copy=${Math.random()}`;
  script.dataset["apiBase"] = API;
  script.dataset["domain"] = DOMAIN;
  const loaded = new Promise<void>((resolve, reject) => {
    script.onload = () => resolve();
    script.onerror = () => reject(new Error("dist/loyalty-widgets.js did not load: build it"));
  });
  document.head.append(script);
  return loaded;
}

it("registers the three widgets from one script tag, whose data attributes set every widget's API and store", async () => {
  const errors: unknown[] = [];
  window.addEventListener("error", (event) => errors.push(event.error));
  await addScriptTag();
  // A theme that includes the script twice (an app block and a snippet) must not break.
  await addScriptTag();
  expect(errors).toEqual([]);

  for (const tag of [
    "loyalty-product-points",
    "loyalty-cart-widget",
    "loyalty-program-presentation",
  ]) {
    expect(customElements.get(tag), tag).toBeDefined();
  }
  const global = (window as unknown as { LoyaltyWidgets: Record<string, unknown> }).LoyaltyWidgets;
  expect(typeof global["configure"]).toBe("function");

  const product = await mount<HTMLElement & { updateComplete: Promise<boolean> }>(
    `<loyalty-product-points product="1001" price="42"></loyalty-product-points>`,
  );
  expect(textOf(product)).toBe("Earn 42 points with this product");
  expect(new URL(requestsTo("/point/product-points/calculate-many")[0]!.url).origin).toBe(API);
});
