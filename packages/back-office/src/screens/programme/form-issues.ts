import { ApiError, type FieldIssue } from "../../api/errors.js";
import { issueMessage, type FormErrors } from "../../ui/field-errors.js";

/** The user's words for an issue, or undefined where the app only has the schema's or server's. */
function translated(issue: FieldIssue): string | undefined {
  const message = issueMessage(issue);
  return message === issue.message ? undefined : message;
}

/** A field's message for the issues the app has no words for: one text, or one per issue. */
export type Fallback = string | ((issue: FieldIssue) => string);

/**
 * Like `formErrors()`, for the forms of the programme and the overview: their values may be
 * a query's (`location`), and their schemas speak in words the app cannot translate (a pattern,
 * a refinement, the server's `conflict`). `fields` names the form's fields with the message to
 * show for such an issue; an issue inside a field's value (`categories.1`) is the field's. A
 * conflict also keeps the server's explanation (it names the rule or club in the way) for the
 * form's alert.
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
  const otherIssues: string[] = [];
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
      const message = translated(issue) ?? issue.message;
      otherIssues.push(issue.field ? `${issue.field}: ${message}` : message);
    }
  }
  const problem = otherIssues.length > 0 || conflict ? error : undefined;
  return { fields: messages, problem, otherIssues };
}

/** A text field's value in a form's data ("" when absent), trimmed. */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === "string" ? value.trim() : "";
}
