import { html, nothing, type TemplateResult } from "lit";
import type { FormErrors, OtherIssue } from "./field-errors.js";
import { inEnglish, problemMessage } from "./problem-message.js";

/**
 * The top of a form, its `role="alert"` box: what went wrong that no field shows (a refusal, a
 * server failure), and the issues of no field of the form. `lead` comes first, where the form
 * has something to say about the failure itself.
 */
export function formProblem(
  errors: FormErrors,
  { lead }: { lead?: TemplateResult | undefined } = {},
): TemplateResult | typeof nothing {
  if (errors.problem === undefined) return nothing;
  return html`<div class="alert" role="alert">
    ${lead ?? nothing} ${problemMessage(errors.problem)}
    ${
      errors.otherIssues.length > 0
        ? html`<ul>
            ${errors.otherIssues.map(issueItem)}
          </ul>`
        : nothing
    }
  </div>`;
}

function issueItem({ field, message, english }: OtherIssue): TemplateResult {
  return html`<li>${field ? `${field}: ` : nothing}${english ? inEnglish(message) : message}</li>`;
}
