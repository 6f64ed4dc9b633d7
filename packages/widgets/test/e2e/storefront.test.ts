import { expect, it } from "vitest";
import { commands } from "vitest/browser";
import type { RewardClaimedDetail } from "../../src/index.js";
import { claimReward, mount, textOf } from "../support/dom.js";
import "../../src/index.js";

const attributes = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([name, value]) => `${name}="${value}"`)
    .join(" ");

it("runs a store's pages on the real server, called from another origin", async () => {
  // The demo store for this page's origin, and customer 42 after a paid order of 640 €.
  const { attributes: identified, balance } = await commands.seedStore(location.origin);
  const { domain, "api-base": apiBase } = identified as { domain: string; "api-base": string };
  // The page and the API are two origins: every call below went through CORS, the claim (a
  // POST with JSON and a revision header) through a preflight.
  expect(new URL(apiBase).origin).not.toBe(location.origin);
  expect(domain).toBe(location.origin);
  expect(balance).toBe(640);
  // What the store's server renders into the page: never its reference or an API key.
  expect(Object.keys(identified).sort()).toEqual([
    "api-base",
    "customer-hash",
    "customer-id",
    "domain",
  ]);

  // Product page: the espresso machine (product 1001) earns 50 points per item.
  const product = await mount(
    `<loyalty-product-points ${attributes({ domain, "api-base": apiBase })} product="1001" price="499"></loyalty-product-points>`,
  );
  expect(textOf(product)).toBe("Earn 50 points with this product");

  // Cart of a signed-in customer: the cart's points, the balance, and a claim.
  const cart = await mount(
    `<loyalty-cart-widget ${attributes(identified)} items='[{"product":"1001","price":499,"quantity":2}]'></loyalty-cart-widget>`,
  );
  expect(textOf(cart)).toContain("This cart earns you 100 points");
  expect(textOf(cart)).toContain("640");
  const claimed = new Promise<RewardClaimedDetail>((resolve) =>
    cart.addEventListener("loyalty-reward-claimed", (event) =>
      resolve((event as CustomEvent<RewardClaimedDetail>).detail),
    ),
  );
  await claimReward(/Free shipping/);
  const { code, balance: after } = await claimed;
  expect(after).toBe(340);
  await expect.poll(() => cart.shadowRoot!.querySelector("code")?.textContent).toBe(code);

  // The programme page shows the same customer's balance and history, the code included.
  const programme = await mount(
    `<loyalty-program-presentation ${attributes(identified)}></loyalty-program-presentation>`,
  );
  const shown = textOf(programme);
  expect(shown).toContain("340");
  expect(shown).toContain(code);
  expect(shown).toContain("9001");
});
