import { msg } from "@lit/localize";
import { ApiError } from "../../api/errors.js";
import type { FormErrors } from "../../ui/field-errors.js";

/*
 * The draft of a widget configuration: a plain copy of the saved one, changed at the path a
 * control names (`header.text`, `sections.faq.items.0.answer`).
 */

export type Draft = Record<string, unknown>;

function segments(path: string): (string | number)[] {
  return path.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** The value at `path`, or undefined when there is none. */
export function valueAt(object: unknown, path: string): unknown {
  let value = object;
  for (const key of segments(path)) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/**
 * A new draft with `value` at `path`. Undefined removes the value; so does "" where the saved
 * configuration has none (an optional text left empty is no change).
 */
export function withValue(draft: Draft, path: string, value: unknown, saved: unknown): Draft {
  const copy = structuredClone(draft);
  const keys = segments(path);
  const last = keys.pop()!;
  let parent: Record<string | number, unknown> = copy;
  for (const key of keys) {
    const next = parent[key];
    if (next === null || typeof next !== "object") return draft;
    parent = next as Record<string | number, unknown>;
  }
  if (value === undefined || (value === "" && valueAt(saved, path) === undefined)) {
    delete parent[last];
  } else {
    parent[last] = value;
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
