import { html, nothing } from "lit";
import type { FormErrors } from "../../ui/field-errors.js";
import { problemMessage } from "../../ui/problem-message.js";

/** A text field's value in a form's data ("" when absent). */
export function fieldText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === "string" ? value : "";
}

/** The top of a form: what went wrong that no field shows (a refusal, a server failure). */
export function formProblem(errors: FormErrors) {
  if (errors.problem === undefined) return nothing;
  return html`<div class="alert" role="alert">
    ${problemMessage(errors.problem)}
    ${
      errors.otherIssues.length > 0
        ? html`<ul>
            ${errors.otherIssues.map((issue) => html`<li>${issue}</li>`)}
          </ul>`
        : nothing
    }
  </div>`;
}

/**
 * The "Saved" status of a form, where the focus goes after it saved: screen readers read it,
 * and the next Tab continues from there.
 */
export function savedStatus(id: string, text: string | undefined) {
  if (text === undefined) return nothing;
  return html`<p class="saved" id=${id} role="status" tabindex="-1">
    <span aria-hidden="true">✓</span><span>${text}</span>
  </p>`;
}

/** Moves the focus to the element `selector` finds in the host's shadow root, once rendered. */
export async function focusAfterUpdate(
  host: { updateComplete: Promise<boolean>; renderRoot: ParentNode },
  selector: string,
): Promise<void> {
  await host.updateComplete;
  host.renderRoot.querySelector<HTMLElement>(selector)?.focus();
}
