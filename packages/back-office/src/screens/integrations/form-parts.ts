import { html, nothing } from "lit";

// platform-section.ts reads these from here.
export { formText as fieldText } from "../../ui/form-data.js";
export { formProblem } from "../../ui/form-problem.js";

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
