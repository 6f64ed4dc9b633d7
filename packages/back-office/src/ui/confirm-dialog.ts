import { msg, str } from "@lit/localize";
import { css, html, nothing } from "lit";
import { BoElement, define } from "./element.js";
import { fieldStyles, inputField } from "./form-field.js";
import { base } from "./styles.js";

export interface ConfirmOptions {
  heading: string;
  /** What will happen, in a sentence or two. */
  body?: string;
  /** The confirming button's text: say the action ("Revoke key"), not "OK". */
  confirmLabel: string;
  cancelLabel?: string;
  /** Paints the confirming button red: the action destroys or cannot be undone. */
  destructive?: boolean;
  /**
   * For what cannot be undone: the user types `value` (a customer id) in a field labelled
   * `label` before the confirming button does anything. The field has the focus first.
   */
  typeToConfirm?: { label: string; value: string };
}

/** The element that has the focus, inside shadow roots too. */
function deepActiveElement(): HTMLElement | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}

/**
 * Asks the user to confirm an action, in a modal native `<dialog>`: the rest of the page is
 * inert (the browser traps the focus), Escape cancels, and the focus goes back to where it was.
 * Resolves true when confirmed; a move of the browser's history (Back) cancels it, unless the
 * app holds that move back while it asks (app/navigation.ts).
 *
 * ```ts
 * if (await confirmAction({ heading: msg("Revoke this key?"), confirmLabel: msg("Revoke key"),
 *   destructive: true })) { … }
 * ```
 */
export function confirmAction(options: ConfirmOptions): Promise<boolean> {
  const dialog = document.createElement("bo-confirm-dialog");
  dialog.options = options;
  document.body.append(dialog);
  return dialog.open().finally(() => dialog.remove());
}

/**
 * @summary The confirmation dialog of `confirmAction()`.
 */
export class ConfirmDialog extends BoElement {
  static override styles = [
    base,
    fieldStyles,
    css`
      dialog {
        inline-size: min(28rem, calc(100vw - 2rem));
        padding: 1.25rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
        color: var(--bo-text);
        box-shadow: 0 12px 32px rgb(0 0 0 / 25%);
      }
      dialog::backdrop {
        background: rgb(15 23 42 / 55%);
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        justify-content: flex-end;
        gap: 0.5rem;
        margin-block-start: 1.25rem;
      }
      @media (forced-colors: active) {
        dialog {
          border: 2px solid CanvasText;
        }
      }
    `,
  ];

  static override properties = {
    options: { attribute: false },
    mistyped: { state: true },
  };
  declare options: ConfirmOptions;
  /** The text typed for `typeToConfirm` was not the expected one. */
  declare mistyped: boolean;

  constructor() {
    super();
    this.mistyped = false;
  }

  /** Shows the dialog; resolves with the user's answer once it is closed. */
  async open(): Promise<boolean> {
    const returnFocus = deepActiveElement();
    await this.updateComplete;
    const dialog = this.renderRoot.querySelector("dialog") as HTMLDialogElement;
    dialog.returnValue = "";
    dialog.showModal();
    // The safe choice has the focus first: Enter on a habit does not destroy anything (nor
    // does it in the field to type, which asks for the exact text).
    this.renderRoot
      .querySelector<HTMLElement>(this.options.typeToConfirm ? "input" : "button[value=cancel]")
      ?.focus();
    // The page moved on under it (the browser's Back): the question is gone with its screen.
    const onPopState = () => dialog.close("cancel");
    window.addEventListener("popstate", onPopState);
    return new Promise((resolve) => {
      dialog.addEventListener(
        "close",
        () => {
          window.removeEventListener("popstate", onPopState);
          returnFocus?.focus();
          resolve(dialog.returnValue === "confirm");
        },
        { once: true },
      );
    });
  }

  protected override render() {
    const { heading, body, confirmLabel, cancelLabel, destructive } = this.options;
    return html`<dialog aria-labelledby="heading" aria-describedby=${body ? "body" : nothing}>
      <form method="dialog" novalidate @submit=${this.#checkTyped}>
        <h2 id="heading">${heading}</h2>
        ${body ? html`<p id="body">${body}</p>` : nothing} ${this.#renderTypeToConfirm()}
        <div class="actions">
          <button class="button" value="cancel">${cancelLabel ?? msg("Cancel")}</button>
          <button
            class="button ${destructive ? "button--danger" : "button--primary"}"
            value="confirm"
          >
            ${confirmLabel}
          </button>
        </div>
      </form>
    </dialog>`;
  }

  #renderTypeToConfirm() {
    const typed = this.options.typeToConfirm;
    if (!typed) return nothing;
    return html`<div
      @keydown=${(event: KeyboardEvent) => {
        // Enter would submit with the form's first button, Cancel: in this field it means
        // "confirm", checked like a click on the confirming button.
        if (event.key !== "Enter") return;
        event.preventDefault();
        const form = this.renderRoot.querySelector("form");
        form?.requestSubmit(form.querySelector<HTMLButtonElement>("button[value=confirm]"));
      }}
    >
      ${inputField({
        name: "confirmation",
        label: typed.label,
        required: true,
        autocomplete: "off",
        spellcheck: false,
        error: this.mistyped ? msg(str`Type ${typed.value} to confirm.`) : undefined,
      })}
    </div>`;
  }

  /** With `typeToConfirm`, the confirming button closes the dialog only on the exact text. */
  #checkTyped(event: SubmitEvent): void {
    const typed = this.options.typeToConfirm;
    const submitter = event.submitter as HTMLButtonElement | null;
    if (!typed || submitter?.value !== "confirm") return;
    const input = this.renderRoot.querySelector<HTMLInputElement>("input[name=confirmation]");
    if (input?.value.trim() === typed.value) return;
    event.preventDefault();
    this.mistyped = true;
    void this.updateComplete.then(() => input?.focus());
  }
}

define("bo-confirm-dialog", ConfirmDialog);

declare global {
  interface HTMLElementTagNameMap {
    "bo-confirm-dialog": ConfirmDialog;
  }
}
