import { afterEach, describe, expect, test, vi } from "vitest";
import {
  changeLocale,
  currentLocale,
  intlLocale,
  LOCALE_STORAGE_KEY,
  preferredLocale,
} from "./locale.js";

afterEach(async () => {
  vi.restoreAllMocks();
  localStorage.removeItem(LOCALE_STORAGE_KEY);
  await changeLocale("en", { persist: false });
});

const browserLanguages = (languages: string[]) =>
  vi.spyOn(navigator, "languages", "get").mockReturnValue(languages);

describe("the language", () => {
  test("defaults to the browser's first language the app speaks", () => {
    browserLanguages(["de-DE", "fr-CA", "en"]);
    expect(preferredLocale()).toBe("fr");
    browserLanguages(["de-DE", "es"]);
    expect(preferredLocale()).toBe("en");
  });

  test("the saved choice wins", () => {
    browserLanguages(["fr-FR"]);
    localStorage.setItem(LOCALE_STORAGE_KEY, "en");
    expect(preferredLocale()).toBe("en");
  });

  test("changing it saves it, sets <html lang> and formats with the browser's variant", async () => {
    browserLanguages(["fr-CA", "en-GB"]);
    await changeLocale("fr");
    expect(currentLocale()).toBe("fr");
    expect(localStorage.getItem(LOCALE_STORAGE_KEY)).toBe("fr");
    expect(document.documentElement.lang).toBe("fr");
    expect(intlLocale()).toBe("fr-CA");
    await changeLocale("en");
    expect(intlLocale()).toBe("en-GB");
  });
});
