import { afterEach, beforeAll, expect, it } from "vitest";
import { commands, userEvent } from "vitest/browser";
import type {
  LoyaltyLauncher,
  LoyaltyProductPoints,
  RewardClaimedDetail,
} from "../../src/index.js";
import { clearCache } from "../../src/index.js";
import { claimReward, mount, part, textOf } from "../support/dom.js";
import type { SeededStore } from "./commands.js";

const attributes = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([name, value]) => `${name}="${value}"`)
    .join(" ");

/** The requests this page made to the API since the case began, as the browser timed them. */
function apiRequests(apiBase: string): URL[] {
  return performance
    .getEntriesByType("resource")
    .map((entry) => new URL(entry.name))
    .filter((url) => url.origin === new URL(apiBase).origin);
}

let store: SeededStore;

beforeAll(async () => {
  // The demo store for this page's origin, seeded once: the server takes one store per domain.
  store = await commands.seedStore(location.origin);
  // Room for every request a case makes: the browser keeps 250 timings by default.
  performance.setResourceTimingBufferSize(1000);
  performance.clearResourceTimings();
});

afterEach(() => {
  document.body.replaceChildren();
  // Each case reads the API afresh, as a new page of the store does.
  clearCache();
  performance.clearResourceTimings();
});

it("runs a store's pages on the real server, called from another origin", async () => {
  // Customer 42 after a paid order of 640 €.
  const { attributes: identified, balance } = store.customers["42"];
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

const launcherParts = (launcher: LoyaltyLauncher) => ({
  button: part<HTMLButtonElement>(launcher, '[part="button"]'),
  dialog: part<HTMLDialogElement>(launcher, "dialog"),
});

/** Opens the launcher as a keyboard user does: Tab to its button, Enter; waits for its data. */
async function openByKeyboard(launcher: LoyaltyLauncher) {
  const { button, dialog } = launcherParts(launcher);
  button.focus();
  await userEvent.keyboard("{Enter}");
  await expect.poll(() => dialog.open).toBe(true);
  await expect.poll(() => launcher.shadowRoot!.querySelector(".loading")).toBeNull();
}

/** Escape closes the panel and gives the focus back to the launcher's button. */
async function closeByEscape(launcher: LoyaltyLauncher) {
  const { button, dialog } = launcherParts(launcher);
  await userEvent.keyboard("{Escape}");
  await expect.poll(() => dialog.open).toBe(false);
  expect(launcher.shadowRoot!.activeElement).toBe(button);
  expect(button.getAttribute("aria-expanded")).toBe("false");
}

it("opens the launcher by keyboard: the balance first, a claim, its code in My codes", async () => {
  // Customer 43 after a paid order of 700 €.
  const { attributes: identified, balance } = store.customers["43"];
  const apiBase = identified["api-base"] as string;
  expect(balance).toBe(700);
  const launcher = await mount<LoyaltyLauncher>(
    `<loyalty-launcher ${attributes(identified)}></loyalty-launcher>`,
  );
  await openByKeyboard(launcher);
  const root = launcher.shadowRoot!;
  expect(part(launcher, "#title").textContent).toBe("The Coffee Club");

  const shownBalance = part(launcher, '[part="balance"]');
  expect(shownBalance.textContent).toBe("700 points");
  // The balance comes before every section of the panel.
  const sections = [...root.querySelectorAll('[part="section"]')];
  expect(sections.map((section) => section.querySelector("h3")?.textContent)).toEqual([
    "Rewards",
    "My codes",
    "Ways to earn",
    "Invite a friend",
  ]);
  expect(
    shownBalance.compareDocumentPosition(sections[0]!) & Node.DOCUMENT_POSITION_FOLLOWING,
  ).toBeTruthy();
  const myCodes = part(launcher, '[aria-labelledby="codes-title"]');
  expect(textOf(myCodes)).toBe(
    "My codes No code to use yet: claim a reward and its code stays here.",
  );

  const claimed = new Promise<RewardClaimedDetail>((resolve) =>
    launcher.addEventListener("loyalty-reward-claimed", (event) =>
      resolve((event as CustomEvent<RewardClaimedDetail>).detail),
    ),
  );
  await claimReward(/Free shipping/);
  const { code, balance: after, expiresAt } = await claimed;
  expect(after).toBe(400);
  await expect.poll(() => shownBalance.textContent).toBe("400 points");

  // My codes shows the customer's codes as the server lists them, read again after the claim
  // (once when the panel opened, once after the claim), with the voucher's terms.
  const validUntil = new Intl.DateTimeFormat("en", { dateStyle: "medium" }).format(
    new Date(expiresAt!),
  );
  await expect
    .poll(() => [...myCodes.querySelectorAll('[part="my-code"]')].map(textOf))
    .toEqual([
      `Free shipping ${code} Copy code Valid until ${validUntil} · On orders of €20.00 or more`,
    ]);
  const codesReads = apiRequests(apiBase).filter((url) => url.pathname === "/reward/codes/43");
  expect(codesReads).toHaveLength(2);
  const codesUrl = new URL(`${apiBase}/reward/codes/43`);
  codesUrl.searchParams.set("domain", identified["domain"] as string);
  codesUrl.searchParams.set("hash", identified["customer-hash"] as string);
  const { codes } = (await (await fetch(codesUrl)).json()) as {
    codes: { code: string; rewardName: string }[];
  };
  expect(codes.map(({ code, rewardName }) => [rewardName, code])).toEqual([
    ["Free shipping", code],
  ]);

  await closeByEscape(launcher);
});

it("shows a visitor the launcher's pitch, with links to join and to sign in", async () => {
  const { domain } = store.visitor as { domain: string };
  const launcher = await mount<LoyaltyLauncher>(
    `<loyalty-launcher ${attributes(store.visitor)}></loyalty-launcher>`,
  );
  expect(launcherParts(launcher).button.textContent?.trim()).toBe("Rewards");
  await openByKeyboard(launcher);

  expect(textOf(part(launcher, ".panel-body"))).toContain(
    "Join the Coffee Club: 1 point per euro, 2 on coffee, 3 on tea, and treats to spend them on.",
  );
  const join = part<HTMLAnchorElement>(launcher, '[part="join"]');
  expect([join.textContent, join.href]).toEqual(["Join", `${domain}/account/register`]);
  const signIn = part<HTMLAnchorElement>(launcher, '[part="sign-in"]');
  expect([signIn.textContent, signIn.href]).toEqual(["Sign in", `${domain}/account`]);
  // A visitor has no balance and no codes, and claims nothing.
  expect(launcher.shadowRoot!.querySelector('[part="balance"]')).toBeNull();
  expect(launcher.shadowRoot!.querySelector('[aria-labelledby="codes-title"]')).toBeNull();
  expect(launcher.shadowRoot!.querySelectorAll('[part="claim-button"]')).toHaveLength(0);

  await closeByEscape(launcher);
});

/** Points a euro earns by category, as the demo store's rules say (categories 10 and 20). */
const RATES: Record<string, number> = { "": 1, "10": 2, "20": 3, "10,20": 3 };

it("asks the points of a page of 60 products in one request, and shows each its own", async () => {
  const apiBase = store.visitor["api-base"] as string;
  const categories = Object.keys(RATES);
  // A collection page: the espresso machine (50 points an item), then 59 products of the four
  // kinds of categories, at prices of whole euros and of cents.
  const products = [
    { product: "1001", categories: "", price: 499, points: 50 },
    ...Array.from({ length: 59 }, (_, index) => {
      const kind = categories[index % categories.length] as string;
      const price = 10 + index * 3 + (index % 2 ? 0.5 : 0);
      return {
        product: String(3000 + index),
        categories: kind,
        price,
        points: Math.floor(price * (RATES[kind] as number)),
      };
    }),
  ];
  const listing = document.createElement("div");
  listing.innerHTML = products
    .map(
      ({ product, categories, price }) =>
        `<loyalty-product-points ${attributes(store.visitor)} product="${product}" categories="${categories}" price="${price}"></loyalty-product-points>`,
    )
    .join("");
  document.body.append(listing);
  const elements = [...listing.children] as LoyaltyProductPoints[];
  await Promise.all(elements.map((element) => element.updateComplete));

  expect(elements.map(textOf)).toEqual(
    products.map(({ points }) => `Earn ${points} points with this product`),
  );
  const pointsReads = apiRequests(apiBase).filter((url) => url.pathname.startsWith("/point/"));
  expect(pointsReads.map((url) => url.pathname)).toEqual(["/point/product-points/calculate-many"]);
  expect(pointsReads[0]!.searchParams.get("items")?.split(",")).toHaveLength(60);
});

it("speaks French on a French page of an English store: the merchant's texts, its words, its numbers", async () => {
  // Customer 44 after a paid order of 1 500 €; the store's default language is English, and
  // the merchant saved French texts in each widget's configuration (seed-store.ts).
  const { attributes: identified, balance } = store.customers["44"];
  expect(balance).toBe(1500);
  // French writes 1 500 with a narrow no-break space (which textOf, collapsing white space, reads
  // as a space: the numbers are read as written).
  const number = (element: Element) => part(element, "strong").textContent;
  const lang = document.documentElement.lang;
  document.documentElement.lang = "fr";
  try {
    const product = await mount(
      `<loyalty-product-points ${attributes(store.visitor)} product="2001" price="1500"></loyalty-product-points>`,
    );
    expect(textOf(product)).toBe("Gagnez 1 500 points avec ce produit");
    expect(number(product)).toBe("1\u202f500");

    const cart = await mount(
      `<loyalty-cart-widget ${attributes(store.visitor)} items='[{"product":"2001","price":1500,"quantity":1}]'></loyalty-cart-widget>`,
    );
    expect(textOf(cart)).toBe(
      "Vos points fidélité Ce panier vous rapporte 1 500 points Connectez-vous pour utiliser vos points Se connecter",
    );
    expect(number(cart)).toBe("1\u202f500");

    const programme = await mount(
      `<loyalty-program-presentation ${attributes(identified)}></loyalty-program-presentation>`,
    );
    expect(textOf(part(programme, "#history"))).toContain("Vos points Votre solde 1 500 points");
    expect(part(programme, '[part="balance"]').textContent).toBe("1\u202f500 points");

    const launcher = await mount<LoyaltyLauncher>(
      `<loyalty-launcher ${attributes(store.visitor)}></loyalty-launcher>`,
    );
    expect(launcherParts(launcher).button.textContent?.trim()).toBe("Récompenses");
    await openByKeyboard(launcher);
    expect(part(launcher, "#title").textContent).toBe("Le Club du café");
    expect(part(launcher, '[part="join"]').textContent).toBe("S’inscrire");
    expect(part(launcher, '[part="sign-in"]').textContent).toBe("Se connecter");
    expect(part(launcher, '[part="close-button"]').getAttribute("aria-label")).toBe("Fermer");
  } finally {
    document.documentElement.lang = lang;
  }
});
