import escapeHtml from "escape-html";

/** HTML built from template literals: every interpolated value is escaped unless it is `Html`. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((out, text, index) => out + render(values[index - 1]) + text));
}

/** Text already safe as HTML: the SDK's `formatAttributes` escapes what it writes. */
export function trusted(text: string): Html {
  return new Html(text);
}
