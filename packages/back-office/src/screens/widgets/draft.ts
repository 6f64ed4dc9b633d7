import { msg } from "@lit/localize";
import { ApiError } from "../../api/errors.js";
import type { FormErrors } from "../../ui/field-errors.js";

/*
 * The draft of a widget configuration: a plain copy of the saved one, changed at the path a
 * control names (`header.text`, `sections.faq.items.0.answer`).
 */

export type Draft = Record<string, unknown>;

type Container = Record<string | number, unknown>;

function segments(path: string): (string | number)[] {
  return path.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/**
 * Keys that lead from an object to its prototype or its class: a path through one would
 * write into every object of the page (prototype pollution), so no writer follows it.
 */
const UNSAFE_KEYS: ReadonlySet<string | number> = new Set([
  "__proto__",
  "constructor",
  "prototype",
]);

/** The segments of `path`, or undefined when one of them is unsafe to write through. */
function writableSegments(path: string): (string | number)[] | undefined {
  const keys = segments(path);
  return keys.some((key) => UNSAFE_KEYS.has(key)) ? undefined : keys;
}

/** The value of `container`'s own `key`: never one its prototype lends. */
function own(container: object, key: string | number): unknown {
  return Object.hasOwn(container, key) ? (container as Container)[key] : undefined;
}

/** The value at `path`, or undefined when there is none. */
export function valueAt(object: unknown, path: string): unknown {
  let value = object;
  for (const key of segments(path)) {
    if (value === null || typeof value !== "object") return undefined;
    value = own(value, key);
  }
  return value;
}

/**
 * A new draft with `value` at `path`. Undefined removes the value; so does "" where the saved
 * configuration has none (an optional text left empty is no change). A translated text
 * (`translations.fr.sections.faq.items.1.answer`) is written as `withText` writes it.
 */
export function withValue(draft: Draft, path: string, value: unknown, saved: unknown): Draft {
  if (path.startsWith(`${TRANSLATIONS}.`)) return withText(draft, path, value);
  const keys = writableSegments(path);
  if (!keys) return draft;
  const copy = structuredClone(draft);
  const last = keys.pop()!;
  let parent: Container = copy;
  for (const key of keys) {
    const next = own(parent, key);
    if (next === null || typeof next !== "object") return draft;
    parent = next as Container;
  }
  if (value === undefined || (value === "" && valueAt(saved, path) === undefined)) {
    delete parent[last];
  } else {
    parent[last] = value;
  }
  return copy;
}

/*
 * The merchant's texts in other languages than the store's: `translations.<tag>` holds the
 * texts of one language at the paths they have in the configuration, each optional. A language
 * the merchant added keeps its (maybe empty) object: that is what lists it.
 */

const TRANSLATIONS = "translations";

function isEmptyObject(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
}

/** The languages the draft has texts for, as it lists them. */
export function textLanguages(draft: Draft): string[] {
  const translations = draft[TRANSLATIONS];
  return translations && typeof translations === "object" ? Object.keys(translations) : [];
}

/** The texts of `language` in the draft (none yet: an empty object). */
export function textsOf(draft: Draft, language: string): Readonly<Record<string, unknown>> {
  const texts = valueAt(draft, `${TRANSLATIONS}.${language}`);
  return texts && typeof texts === "object" ? (texts as Record<string, unknown>) : {};
}

/** A new draft listing `language`, without texts yet. */
export function withLanguage(draft: Draft, language: string): Draft {
  if (UNSAFE_KEYS.has(language)) return draft;
  const copy = structuredClone(draft);
  copy[TRANSLATIONS] = { ...(copy[TRANSLATIONS] as Draft | undefined), [language]: {} };
  return copy;
}

/** A new draft without the texts of `language` (nor `translations`, when it was the last). */
export function withoutLanguage(draft: Draft, language: string): Draft {
  const copy = structuredClone(draft);
  const translations = copy[TRANSLATIONS] as Draft | undefined;
  if (!translations) return draft;
  delete translations[language];
  if (Object.keys(translations).length === 0) delete copy[TRANSLATIONS];
  return copy;
}

/**
 * A new draft with a translated text at `path` (`translations.fr.header.text`), making the
 * objects and lists on the way: a list gets `{}` for the items before (the widget takes their
 * default texts), never a hole. "" or undefined removes the text, as empty means "the default
 * text"; the objects and the items at the end of a list that it leaves empty go too, so that
 * typing a text and erasing it changes nothing.
 */
function withText(draft: Draft, path: string, value: unknown): Draft {
  const keys = writableSegments(path);
  if (!keys) return draft;
  const copy = structuredClone(draft);
  const last = keys.pop()!;
  const chain: Container[] = [copy];
  let parent: Container = copy;
  keys.forEach((key, index) => {
    if (Array.isArray(parent) && typeof key === "number") {
      while (parent.length < key) parent.push({});
    }
    let next = own(parent, key);
    if (next === null || typeof next !== "object") {
      next = typeof (keys[index + 1] ?? last) === "number" ? [] : {};
      parent[key] = next;
    }
    parent = next as Container;
    chain.push(parent);
  });
  if (value === undefined || value === "") {
    delete parent[last];
    // Up to the language's own object (chain[2]), which stays.
    prune(chain.slice(2), keys.slice(2));
  } else {
    parent[last] = value;
  }
  return copy;
}

/**
 * Removes what `chain` (containers, each inside the one before at `keys[i]`) left empty, from
 * the innermost up: an empty object, the `{}` items at a list's end, an empty list. The first
 * container stays.
 */
function prune(chain: Container[], keys: (string | number)[]): void {
  for (let index = chain.length - 1; index > 0; index -= 1) {
    const container = chain[index]!;
    const parent = chain[index - 1]!;
    if (Array.isArray(container)) {
      while (container.length > 0 && isEmptyObject(container.at(-1))) container.pop();
      if (container.length > 0) return;
    } else if (Object.keys(container).length > 0) {
      return;
    }
    // An empty item inside a list stays `{}`: the list's end is trimmed one level up.
    if (!Array.isArray(parent)) delete parent[keys[index - 1]!];
  }
}

/**
 * A new draft without the item `index` of the list at `path` (`sections.faq.items`), in the
 * default language and in every translation: the translated items stay those of their item.
 */
export function withoutItem(draft: Draft, path: string, index: number): Draft {
  const keys = writableSegments(path);
  if (!keys) return draft;
  const copy = structuredClone(draft);
  const items = valueAt(copy, path);
  if (Array.isArray(items)) items.splice(index, 1);
  for (const language of textLanguages(copy)) {
    const texts = textsOf(copy, language) as Container;
    const chain: Container[] = [texts];
    for (const key of keys) {
      const next = own(chain.at(-1)!, key);
      if (next === null || typeof next !== "object") break;
      chain.push(next as Container);
    }
    const translated = chain.at(-1);
    if (chain.length !== keys.length + 1 || !Array.isArray(translated)) continue;
    translated.splice(index, 1);
    prune(chain, keys);
  }
  return copy;
}

/** Whether two configurations say the same (key order aside). */
export function sameConfig(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)),
        )
      : inner,
  );
}

/**
 * The schema's own checks of a widget configuration (a colour, an address, a button that
 * scrolls to a hidden section) speak English: say them in the user's language.
 */
export function withWidgetMessages(errors: FormErrors, error: unknown): FormErrors {
  if (!(error instanceof ApiError)) return errors;
  const fields = { ...errors.fields };
  for (const issue of error.issues) {
    const { field, code } = issue;
    if (!(field in fields)) continue;
    if (/(^|\.)\w*[cC]olor$/.test(field) && code !== "too_big") {
      fields[field] = msg("Enter a colour such as #1a73e8, or leave it empty for the default.");
    } else if (/Url$/.test(field) && (code === "invalid_union" || code === "invalid_format")) {
      fields[field] = msg("Enter an address starting with https://, or leave it empty.");
    } else if (/ButtonAction$/.test(field) && code === "custom") {
      fields[field] = msg(
        "This button leads to a hidden section: show the section, or choose another action.",
      );
    } else if (/ButtonUrl$/.test(field) && code === "custom") {
      fields[field] = msg("Enter the address the button opens.");
    }
  }
  return { ...errors, fields };
}
