import { afterEach, describe, expect, it } from "vitest";
import { userEvent } from "vitest/browser";
import { API, HttpResponse, http, serve, useApiMock } from "../../test/support/api-mock.js";
import {
  CUSTOMER,
  DOMAIN,
  cartResponse,
  launcherResponse,
  presentationResponse,
  productPointsResponse,
} from "../../test/support/fixtures.js";
import { expectAccessible, mount, part, textOf } from "../../test/support/dom.js";
import { clearCache } from "./api.js";
import { chooseLanguage, overlay, translationChain } from "./languages.js";
import "../index.js";
import type { LoyaltyCartWidget, LoyaltyLauncher, LoyaltyProductPoints } from "../index.js";

useApiMock();

const pageLanguage = document.documentElement.lang;
afterEach(() => {
  document.documentElement.lang = pageLanguage;
  document.body.replaceChildren();
  clearCache();
});

const endpoint = `api-base="${API}" domain="${DOMAIN}"`;
const identified = `${endpoint} customer-id="${CUSTOMER.id}" customer-hash="${CUSTOMER.hash}"`;
const cartTag = (attributes = "") =>
  `<loyalty-cart-widget ${identified} ${attributes} items='[{"price":12345,"quantity":1}]'></loyalty-cart-widget>`;

/** An English store whose merchant added French (and Canadian French for one text). */
function serveFrenchCart() {
  serve(
    http.get(`${API}/store/widget/cart`, () =>
      HttpResponse.json(
        cartResponse({
          translations: {
            fr: {
              title: "Points fidélité",
              earnTemplate: "Ce panier vous rapporte {points} points",
              balanceTemplate: "Vous avez {points} points",
              claimButtonText: "Obtenir mon code",
            },
            "fr-CA": { title: "Points de fidélité" },
          },
        }),
      ),
    ),
  );
}

describe("the language a widget speaks", () => {
  it("follows the page's <html lang> when the merchant wrote texts in it", async () => {
    serveFrenchCart();
    document.documentElement.lang = "fr";
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    const text = textOf(cart);
    // The merchant's French texts, the widget's own French words, French numbers.
    expect(text).toContain("Points fidélité");
    expect(text).toContain("Ce panier vous rapporte 12 345 points");
    expect(text).toContain("Vous avez 620 points");
    expect(text).toContain("Récompenses disponibles");
    // Screen readers read it in French too.
    expect(part(cart, '[part="base"]').lang).toBe("fr");
    await expectAccessible();
  });

  it("follows a page that switches its language", async () => {
    serveFrenchCart();
    document.documentElement.lang = "en";
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    expect(textOf(cart)).toContain("This cart earns you 12,345 points");
    document.documentElement.lang = "fr";
    await expect.poll(() => textOf(cart)).toContain("Ce panier vous rapporte 12 345 points");
    expect(part(cart, '[part="base"]').lang).toBe("fr");
  });

  it("shows a translated banner as text when the banner is not raw HTML", async () => {
    const response = presentationResponse({ text: "Join the club.", isRawHtml: false });
    response.config.translations = {
      fr: { header: { text: "<b>Rejoignez</b> le club <img src=x onerror=alert(1)>" } },
    };
    serve(http.get(`${API}/store/widget/program-presentation`, () => HttpResponse.json(response)));
    const programme = await mount(
      `<loyalty-program-presentation ${endpoint} lang="fr"></loyalty-program-presentation>`,
    );
    await expect.poll(() => textOf(programme)).toContain("<b>Rejoignez</b> le club");
    expect(programme.shadowRoot!.querySelector('b, img[src="x"]')).toBeNull();
  });

  it("puts the element's lang before the page's", async () => {
    serveFrenchCart();
    document.documentElement.lang = "fr";
    const cart = await mount<LoyaltyCartWidget>(cartTag('lang="en"'));
    const text = textOf(cart);
    expect(text).toContain("Loyalty points");
    expect(text).toContain("This cart earns you 12,345 points");
    expect(text).toContain("Rewards you can claim");
  });

  it("takes the most precise translation, then the language's, then the default text", async () => {
    serveFrenchCart();
    document.documentElement.lang = "fr-CA";
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    const text = textOf(cart);
    // fr-CA's own title; the rest of fr's texts; Canadian French numbers.
    expect(text).toContain("Points de fidélité");
    expect(text).toContain("Ce panier vous rapporte 12 345 points");
    // A text the merchant did not translate reads in the store's language.
    serve(
      http.get(`${API}/store/widget/cart`, () =>
        HttpResponse.json(cartResponse({ translations: { fr: { title: "Points fidélité" } } })),
      ),
    );
    clearCache();
    document.body.replaceChildren();
    document.documentElement.lang = "fr";
    const partial = await mount<LoyaltyCartWidget>(cartTag());
    expect(textOf(partial)).toContain("Points fidélité");
    expect(textOf(partial)).toContain("This cart earns you 12 345 points");
  });

  it("stays in the store's language on a page in a language the merchant did not write", async () => {
    serveFrenchCart();
    document.documentElement.lang = "de";
    const cart = await mount<LoyaltyCartWidget>(cartTag());
    const text = textOf(cart);
    expect(text).toContain("This cart earns you 12,345 points");
    expect(text).toContain("Rewards you can claim");
    expect(text).not.toMatch(/Récompenses|Belohnung/);
  });

  it("takes any BCP 47 tag for the merchant's texts, its own words then in English", async () => {
    serve(
      http.get(`${API}/store/widget/product-points`, () =>
        HttpResponse.json(
          productPointsResponse({
            translations: { "de-CH": { template: "Sammeln Sie {points} Punkte" } },
          }),
        ),
      ),
    );
    document.documentElement.lang = "de-CH";
    const product = await mount<LoyaltyProductPoints>(
      `<loyalty-product-points ${endpoint} price="12345"></loyalty-product-points>`,
    );
    // Swiss German groups thousands with an apostrophe.
    expect(textOf(product)).toBe("Sammeln Sie 12'345 Punkte");
  });

  it("translates the programme page's lists item by item", async () => {
    const response = presentationResponse();
    response.config.translations = {
      fr: {
        header: { primaryButtonText: "Gagner des points", text: "Rejoignez le club." },
        sections: {
          howToEarn: { title: "Comment gagner des points", items: [{}, { title: "Parrainer" }] },
          faq: { items: [{ question: "Les points expirent-ils ?" }] },
        },
      },
    };
    serve(http.get(`${API}/store/widget/program-presentation`, () => HttpResponse.json(response)));
    const programme = await mount(
      `<loyalty-program-presentation ${endpoint} lang="fr"></loyalty-program-presentation>`,
    );
    await expect.poll(() => textOf(programme)).toContain("Comment gagner des points");
    const text = textOf(programme);
    expect(text).toContain("Gagner des points");
    expect(text).toContain("Rejoignez le club.");
    // The first way to earn has no French: its English stays; the second is translated.
    expect(text).toContain("Shop 1 point per euro spent.");
    expect(text).toContain("Parrainer 200 points per friend.");
    expect(text).toContain("Les points expirent-ils ?");
    expect(text).toContain("After 12 months without an order.");
    expect(text).toContain("Se connecter");
    await expectAccessible();
  });

  it("labels the launcher and its panel in the page's language", async () => {
    serve(
      http.get(`${API}/store/widget/launcher`, () =>
        HttpResponse.json(
          launcherResponse({
            translations: {
              fr: {
                label: "Fidélité",
                title: "Le club",
                visitorText: "Rejoignez le club : des points à chaque commande.",
                waysToEarn: [{ title: "Commander", text: "1 point par euro." }],
              },
            },
          }),
        ),
      ),
    );
    document.documentElement.lang = "fr";
    const launcher = await mount<LoyaltyLauncher>(
      `<loyalty-launcher ${endpoint}></loyalty-launcher>`,
    );
    const button = part<HTMLButtonElement>(launcher, '[part="button"]');
    expect(button.textContent?.trim()).toBe("Fidélité");
    button.focus();
    await userEvent.keyboard("{Enter}");
    await expect.poll(() => textOf(launcher)).toContain("Rejoignez le club");
    const text = textOf(launcher);
    expect(text).toContain("Le club");
    expect(text).toContain("Commander 1 point par euro.");
    expect(text).toContain("Refer a friend 200 points per friend.");
    expect(text).toContain("Se connecter");
    await expectAccessible();
  });

  it("shows the back-office's draft in the language it edits", async () => {
    const cart = await mount<LoyaltyCartWidget>(cartTag('lang="nl"'));
    expect(textOf(cart)).toContain("This cart earns you 12,345 points");
    cart.previewConfig = {
      ...cartResponse().config,
      translations: { nl: { earnTemplate: "Deze winkelwagen levert {points} punten op" } },
    };
    await cart.updateComplete;
    expect(textOf(cart)).toContain("Deze winkelwagen levert 12.345 punten op");
  });
});

describe("chooseLanguage", () => {
  it("takes the first wanted language the merchant has texts for", () => {
    expect(chooseLanguage(["de", "fr-BE", undefined], "en", ["fr", "es"])).toEqual({
      lang: "fr-BE",
      translations: ["fr"],
    });
    expect(chooseLanguage(["", "en-GB"], "en", ["fr"])).toEqual({
      lang: "en-GB",
      translations: [],
    });
    expect(chooseLanguage(["fr"], "en", ["fr-CA"])).toEqual({
      lang: "fr",
      translations: ["fr-CA"],
    });
    expect(chooseLanguage(["PT-br"], "en", ["pt", "pt-BR"])).toEqual({
      lang: "PT-br",
      translations: ["pt-BR", "pt"],
    });
    expect(chooseLanguage(["de", "it"], "fr", ["en"])).toEqual({ lang: "fr", translations: [] });
  });
});

describe("translationChain", () => {
  it("reads a page's script before its language: Taiwan in Traditional Chinese", () => {
    const keys = ["zh-Hans", "zh-Hant"];
    expect(translationChain("zh-TW", keys)).toEqual(["zh-Hant"]);
    expect(translationChain("zh-HK", keys)).toEqual(["zh-Hant"]);
    expect(translationChain("zh-CN", keys)).toEqual(["zh-Hans"]);
    expect(translationChain("zh", keys)).toEqual(["zh-Hans"]);
    expect(translationChain("zh-TW", ["zh", "zh-Hant"])).toEqual(["zh-Hant", "zh"]);
    expect(translationChain("sr-Latn-RS", ["sr-Cyrl", "sr-Latn"])).toEqual(["sr-Latn"]);
  });

  it("goes from the most precise translation to the language's", () => {
    expect(translationChain("fr-CA", ["fr", "fr-CA", "de"])).toEqual(["fr-CA", "fr"]);
    expect(translationChain("fr", ["fr-CA"])).toEqual(["fr-CA"]);
    expect(translationChain("de", ["fr"])).toEqual([]);
  });
});

describe("overlay", () => {
  it("replaces the configuration's texts and nothing else, whatever it is sent", () => {
    const base = {
      title: "Rewards",
      loginUrl: "https://shop.example/login",
      showRewards: true,
      items: [{ title: "Shop", text: "1 point per euro" }],
    };
    const patch = JSON.parse(
      '{"title":"Récompenses","loginUrl":7,"showRewards":"no","isRawHtml":"yes","signUpUrl":"javascript:alert(1)","items":[{"title":"Acheter"},{"title":"Extra"}],"__proto__":{"polluted":true},"constructor":"x"}',
    ) as unknown;
    const merged = overlay(base, patch) as Record<string, unknown>;
    expect(merged).toEqual({
      title: "Récompenses",
      loginUrl: "https://shop.example/login",
      showRewards: true,
      items: [{ title: "Acheter", text: "1 point per euro" }],
    });
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});
