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

/** The tag with its likely script and region (`zh-TW` is `zh-Hant-TW`), or itself. */
function maximized(tag: string): string {
  try {
    return new Intl.Locale(tag).maximize().toString();
  } catch {
    return tag;
  }
}

/**
 * The translations a page in `tag` reads, most precise first: a text missing from one is taken
 * from the next, then from the default texts. `fr-CA` reads `fr-CA` then `fr`; `zh-TW` reads
 * `zh-Hant` (its script) before `zh`. A language the merchant wrote only in another variant
 * (`fr-CA` for an `fr` page) reads that variant, of the same script where there is one. Empty:
 * none of the merchant's translations is in that language.
 */
export function translationChain(tag: string, translated: readonly string[]): string[] {
  const keys = new Map(translated.map((key) => [key.toLowerCase(), key]));
  const lookup = (candidates: string[]) => [
    ...new Set(candidates.flatMap((candidate) => keys.get(candidate) ?? [])),
  ];
  const found = lookup([...fallbacks(tag).slice(0, -1), ...fallbacks(maximized(tag))]);
  if (found.length) return found;
  const sameLanguage = translated.filter((key) => primary(key) === primary(tag));
  const script = new Intl.Locale(maximized(tag)).script;
  const variant =
    sameLanguage.find((key) => new Intl.Locale(maximized(key)).script === script) ??
    sameLanguage[0];
  return variant ? lookup(fallbacks(variant)) : [];
}

/** What a widget speaks: the tag (for `Intl` and the built-in words) and its translations. */
export interface Language {
  lang: string;
  /** The keys of `translations` whose texts replace the default ones, most precise first. */
  translations: string[];
}

/**
 * The first tag of `wanted` the merchant has texts for: translations of that language
 * (`translationChain`), or the store's default language. None of them: the store's default.
 */
export function chooseLanguage(
  wanted: readonly (string | null | undefined)[],
  storeLanguage: string,
  translated: readonly string[],
): Language {
  for (const tag of wanted) {
    if (!tag) continue;
    let chain: string[];
    try {
      chain = translationChain(tag, translated);
    } catch {
      // A malformed lang attribute: not a language the merchant wrote.
      continue;
    }
    if (chain.length) return { lang: tag, translations: chain };
    if (primary(tag) === primary(storeLanguage)) return { lang: tag, translations: [] };
  }
  return { lang: storeLanguage, translations: [] };
}

/**
 * `base` with the texts of `patch` over it: objects key by key, lists item by item. Only a text
 * the configuration has is replaced, by a text: a translation never adds or removes an item, a
 * setting or a key, whatever the server sent.
 */
export function overlay<T>(base: T, patch: unknown): T {
  if (patch === null || patch === undefined) return base;
  if (typeof base === "string") return (typeof patch === "string" ? patch : base) as T;
  if (Array.isArray(base)) {
    if (!Array.isArray(patch)) return base;
    const items = patch as unknown[];
    return (base as unknown[]).map((item, index) => overlay(item, items[index])) as T;
  }
  if (base === null || typeof base !== "object" || typeof patch !== "object") return base;
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (Object.hasOwn(merged, key)) merged[key] = overlay(merged[key], value);
  }
  return merged as T;
}
