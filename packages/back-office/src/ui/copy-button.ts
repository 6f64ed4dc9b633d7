import { msg } from "@lit/localize";
import { css, html } from "lit";
import { BoElement, define } from "./element.js";
import { announce } from "./live-region.js";
import { base } from "./styles.js";

/** How long the button says "Copied". */
const COPIED_MS = 2000;

/**
 * Copies `value` to the clipboard: an API key, a webhook secret, a code snippet. It says
 * "Copied" for a moment (and to screen readers); when the browser refuses, it says so and the
 * user copies the text by hand.
 *
 * @summary A button that copies a text to the clipboard.
 */
export class CopyButton extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        display: inline-block;
      }
    `,
  ];

  static override properties = {
    value: {},
    label: {},
    copied: { state: true },
  };

  declare value: string;
  /** The button's text: say what is copied ("Copy the key"); default "Copy". */
  declare label: string | undefined;
  declare copied: boolean;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.value = "";
    this.copied = false;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#timer);
  }

  async #copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.value);
    } catch {
      announce(msg("The browser refused to copy: select the text and copy it by hand."));
      return;
    }
    this.copied = true;
    announce(msg("Copied to the clipboard."));
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => (this.copied = false), COPIED_MS);
  }

  protected override render() {
    return html`<button class="button" type="button" @click=${() => void this.#copy()}>
      ${this.copied ? msg("Copied") : (this.label ?? msg("Copy"))}
    </button>`;
  }
}

define("bo-copy-button", CopyButton);

declare global {
  interface HTMLElementTagNameMap {
    "bo-copy-button": CopyButton;
  }
}
