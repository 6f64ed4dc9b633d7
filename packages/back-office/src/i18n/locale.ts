import { configureLocalization } from "@lit/localize";
import { allLocales, sourceLocale, targetLocales } from "../generated/locale-codes.js";

/**
 * The app's languages. English is written in the source (`msg("…")`); the others are
 * generated from xliff/<locale>.xlf into src/generated/locales (see the README).
 */
export type Locale = (typeof allLocales)[number];

/** Each language in its own name, as language pickers show them. */
export const LANGUAGES: readonly { locale: Locale; name: string }[] = [
  { locale: "en", name: "English" },
  { locale: "fr", name: "Français" },
];

const STORAGE_KEY = "loyalty.back-office.locale";

const { getLocale, setLocale } = configureLocalization({
  sourceLocale,
  targetLocales,
  // One chunk per language, fetched when it is chosen.
  loadLocale: () => import("../generated/locales/fr.js"),
});

function isLocale(value: unknown): value is Locale {
  return (allLocales as readonly unknown[]).includes(value);
}

export function currentLocale(): Locale {
  const locale = getLocale();
  return isLocale(locale) ? locale : sourceLocale;
}

/** The saved choice, else the browser's first language we speak, else English. */
export function preferredLocale(): Locale {
  const saved = readStorage();
  if (isLocale(saved)) return saved;
  for (const language of navigator.languages ?? [navigator.language]) {
    const primary = language.split("-")[0]?.toLowerCase();
    if (isLocale(primary)) return primary;
  }
  return sourceLocale;
}

/** Switches every element of the app to `locale` (and remembers it when `persist`). */
export async function changeLocale(locale: Locale, { persist = true } = {}): Promise<void> {
  if (persist) writeStorage(locale);
  await setLocale(locale);
  document.documentElement.lang = locale;
}

/**
 * The locale Intl formats with: the browser's own variant of the chosen language when it has
 * one (en-GB writes 26/11/2026, en-US 11/26/2026), else the bare language.
 */
export function intlLocale(): string {
  const locale = currentLocale();
  const variant = (navigator.languages ?? []).find(
    (language) => language.split("-")[0]?.toLowerCase() === locale,
  );
  return variant ?? locale;
}

// Storage can be refused (privacy modes); the choice then lasts until the page is left.
function readStorage(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function writeStorage(locale: Locale): void {
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // See readStorage.
  }
}

export const LOCALE_STORAGE_KEY = STORAGE_KEY;
