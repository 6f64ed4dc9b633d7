import { afterEach, describe, expect, test } from "vitest";
import { valueAt, withLanguage, withoutItem, withValue, type Draft } from "./draft.js";

const polluted = () => (({}) as Record<string, unknown>)["polluted"];

// A guard that failed must not leave every later test's objects polluted.
afterEach(() => {
  delete (Object.prototype as Record<string, unknown>)["polluted"];
});

describe("the draft's paths", () => {
  const draft: Draft = {
    title: "Rewards",
    sections: { faq: { items: [{ question: "How?" }] } },
    translations: { fr: { title: "Avantages" } },
  };

  test("a path through __proto__, constructor or prototype writes nothing, anywhere", () => {
    for (const path of [
      "__proto__.polluted",
      "constructor.prototype.polluted",
      "sections.__proto__.polluted",
      "translations.fr.__proto__.polluted",
      "translations.__proto__.polluted",
      "translations.fr.constructor.prototype.polluted",
      "translations.fr.sections.faq.items.0.__proto__.polluted",
    ]) {
      const written = withValue(draft, path, "yes", draft);
      expect(polluted(), path).toBeUndefined();
      expect(written, path).toBe(draft);
    }
    expect(withLanguage(draft, "__proto__")).toBe(draft);
    expect(withoutItem(draft, "__proto__", 0)).toBe(draft);
    expect(polluted()).toBeUndefined();
  });

  test("reads and walks a draft's own values only", () => {
    expect(valueAt(draft, "constructor")).toBeUndefined();
    expect(valueAt(draft, "title.length")).toBeUndefined();
    expect(valueAt(draft, "sections.faq.items.0.question")).toBe("How?");
    // A key the prototype has (`toString`) is a new object of the draft's, not the prototype's.
    const written = withValue(draft, "translations.fr.toString.text", "Texte", draft);
    expect(valueAt(written, "translations.fr.toString.text")).toBe("Texte");
    expect(typeof {}.toString).toBe("function");
    expect(withValue(draft, "translations.fr.title", "", draft)).toEqual({
      ...draft,
      translations: { fr: {} },
    });
  });
});
