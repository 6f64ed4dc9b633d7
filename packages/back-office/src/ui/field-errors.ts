import { msg, str } from "@lit/localize";
import { ApiError, type FieldIssue } from "../api/errors.js";
import { formatNumber } from "./format.js";

/**
 * The message of one issue, in the user's language where the app knows the kind of problem
 * (from zod's code and details); else the schema's or the server's own words.
 */
export function issueMessage(issue: FieldIssue): string {
  const details = issue.details ?? {};
  const minimum = Number(details["minimum"]);
  const maximum = Number(details["maximum"]);
  switch (issue.code) {
    case "invalid_type":
      if (details["expected"] === "number") return msg("Enter a number.");
      // `.int()` of zod: a number with decimals.
      if (details["expected"] === "int") return msg("Enter a whole number.");
      return msg("This field is required.");
    case "too_small":
      if (details["origin"] === "string") {
        return minimum <= 1
          ? msg("This field is required.")
          : msg(str`Enter at least ${formatNumber(minimum)} characters.`);
      }
      if (details["origin"] === "number") return msg(str`Enter ${formatNumber(minimum)} or more.`);
      break;
    case "too_big":
      if (details["origin"] === "string") {
        return msg(str`Enter at most ${formatNumber(maximum)} characters.`);
      }
      if (details["origin"] === "number") return msg(str`Enter ${formatNumber(maximum)} or less.`);
      break;
    case "invalid_format":
      if (details["format"] === "email")
        return msg("Enter an email address, such as name@shop.example.");
      if (details["format"] === "url")
        return msg("Enter a web address, such as https://shop.example.");
      break;
    case "not_multiple_of":
      return msg("Enter a value with fewer decimals.");
    case "invalid_value":
      return msg("Choose one of the proposed values.");
  }
  return issue.message;
}

/** An issue of a refused request that no field of the form shows. */
export interface OtherIssue {
  /** Its path (`storeId`, `voucher.kind`), "" for the request as a whole. */
  field: string;
  message: string;
  /** The message is the schema's or the server's own words (English): the app has none. */
  english: boolean;
}

/** What a failed submission tells a form. */
export interface FormErrors {
  /** The message to show next to each field of the form, by field name. */
  fields: Readonly<Record<string, string>>;
  /**
   * What cannot be shown next to a field (a wrong password, a server failure, an issue about a
   * value the form does not show), with `otherIssues`: show them with `formProblem()`.
   */
  problem: unknown;
  otherIssues: readonly OtherIssue[];
}

export const NO_ERRORS: FormErrors = { fields: {}, problem: undefined, otherIssues: [] };

/**
 * Sorts what a failed submission threw (an ApiError, a RequestValidationError, anything) into
 * messages per field of the form (`fieldNames`: the issues' paths, `email`, `voucher.value`),
 * and the rest.
 */
export function formErrors(error: unknown, fieldNames: readonly string[]): FormErrors {
  const asIs = (issue: FieldIssue) => issue.message;
  return fieldErrors(error, Object.fromEntries(fieldNames.map((name) => [name, asIs])));
}

/** The user's words for an issue, or undefined where the app only has the schema's or server's. */
function translated(issue: FieldIssue): string | undefined {
  const message = issueMessage(issue);
  return message === issue.message ? undefined : message;
}

/** A field's message for the issues the app has no words for: one text, or one per issue. */
export type Fallback = string | ((issue: FieldIssue) => string);

/**
 * The issues of a refused request, by the form's fields. `fields` names them with the message to
 * show for an issue the app has no words of its own for (a pattern, a refinement, the server's
 * `conflict`); an issue inside a field's value (`categories.1`) is the field's. The values may be
 * a query's (`location`). Issues of no field of the form, and a conflict (whose explanation names
 * what is in the way), are for the form's alert.
 */
export function fieldErrors(
  error: unknown,
  fields: Readonly<Record<string, Fallback>>,
  location: FieldIssue["location"] = "body",
): FormErrors {
  if (!(error instanceof ApiError) || error.issues.length === 0) {
    return { fields: {}, problem: error, otherIssues: [] };
  }
  const messages: Record<string, string> = {};
  const otherIssues: OtherIssue[] = [];
  let conflict = false;
  for (const issue of error.issues) {
    const field = Object.hasOwn(fields, issue.field)
      ? issue.field
      : (issue.field.split(".")[0] ?? "");
    const fallback = fields[field];
    if (issue.location === location && fallback !== undefined) {
      messages[field] ??=
        translated(issue) ?? (typeof fallback === "string" ? fallback : fallback(issue));
      conflict ||= issue.code === "conflict";
    } else {
      const message = translated(issue);
      otherIssues.push({
        field: issue.field,
        message: message ?? issue.message,
        english: message === undefined,
      });
    }
  }
  const problem = otherIssues.length > 0 || conflict ? error : undefined;
  return { fields: messages, problem, otherIssues };
}

/**
 * Focuses the first field marked invalid in `root` (a form's shadow root), else its alert: after
 * a refused submission, where the user has something to fix. Says whether it found one.
 */
export function focusFirstProblem(root: ParentNode): boolean {
  const target = root.querySelector<HTMLElement>('[aria-invalid="true"], [role="alert"]');
  if (!target) return false;
  if (target.getAttribute("role") === "alert") target.tabIndex = -1;
  target.focus();
  return true;
}
