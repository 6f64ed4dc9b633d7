/*
 * Which language a widget speaks, and the merchant's texts in it. A configuration holds the
 * merchant's texts in the store's default language, and may hold translations of them by BCP 47
 * tag (`translations`, set in the back-office). The widget speaks the first of the element's
 * `lang`, the page's `<html lang>` and the store's default language that the merchant has texts
 * for, so that its own words and the merchant's are never in two languages.
 */

/** Subtags of a language tag, most precise first: `fr-CA` then `fr`. */
function fallbacks(tag: string): string[] {
  const parts = tag.toLowerCase().split("-");
  return parts.map((_, index) => parts.slice(0, parts.length - index).join("-"));
}

const primary = (tag: string) => tag.toLowerCase().split("-")[0];

/** What a widget speaks: the tag (for `Intl` and the built-in words) and its translations. */
export interface Language {
  lang: string;
  /**
   * The keys of `translations` whose texts replace the default ones, most precise first
   * (`fr-CA`, then `fr`): a text missing from one is looked for in the next, then in the
   * default texts.
   */
  translations: string[];
}

/**
 * The first tag of `wanted` the merchant has texts for: translations of the same language (the
 * most precise: `fr-CA`, then `fr`; else any `fr-…`), or the store's default language. None of
 * them: the store's default language.
 */
export function chooseLanguage(
  wanted: readonly (string | null | undefined)[],
  storeLanguage: string,
  translated: readonly string[],
): Language {
  const keys = new Map(translated.map((key) => [key.toLowerCase(), key]));
  for (const tag of wanted) {
    if (!tag) continue;
    const found = fallbacks(tag).flatMap((candidate) => keys.get(candidate) ?? []);
    if (found.length) return { lang: tag, translations: found };
    if (primary(tag) === primary(storeLanguage)) return { lang: tag, translations: [] };
    const sameLanguage = translated.find((key) => primary(key) === primary(tag));
    if (sameLanguage) return { lang: tag, translations: [sameLanguage] };
  }
  return { lang: storeLanguage, translations: [] };
}

/**
 * `base` with the texts of `patch` over it: objects key by key, lists item by item (a
 * translation never adds or removes an item), a text only where the translation has one.
 */
export function overlay<T>(base: T, patch: unknown): T {
  if (patch === null || patch === undefined) return base;
  if (Array.isArray(base)) {
    if (!Array.isArray(patch)) return base;
    const items = patch as unknown[];
    return (base as unknown[]).map((item, index) => overlay(item, items[index])) as T;
  }
  if (base !== null && typeof base === "object") {
    if (typeof patch !== "object" || Array.isArray(patch)) return base;
    const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
      merged[key] = overlay(merged[key], value);
    }
    return merged as T;
  }
  return (
    typeof patch === "string" && (base === undefined || typeof base === "string") ? patch : base
  ) as T;
}
