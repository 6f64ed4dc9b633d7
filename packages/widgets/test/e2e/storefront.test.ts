import { expect, it } from "vitest";
import { commands } from "vitest/browser";
import { mount, textOf } from "../support/dom.js";
import "../../src/product-points/product-points.js";

const attributes = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([name, value]) => `${name}="${value}"`)
    .join(" ");

it("shows a product's points from the real server, called from another origin", async () => {
  const { attributes: identified } = await commands.seedStore(location.origin);
  const { domain, "api-base": apiBase } = identified as { domain: string; "api-base": string };
  // The page and the API are two origins: every call below went through CORS.
  expect(new URL(apiBase).origin).not.toBe(location.origin);
  expect(domain).toBe(location.origin);

  // The demo store's espresso machine (product 1001) earns 50 points per item.
  const product = await mount(
    `<loyalty-product-points ${attributes({ domain, "api-base": apiBase })} product="1001" price="499"></loyalty-product-points>`,
  );
  expect(textOf(product)).toContain("50");
});
