import { css, html } from "lit";
import { BoElement, define } from "./element.js";
import { base } from "./styles.js";

const ANNOUNCE_EVENT = "bo-announce";
/** How long a notice stays on screen. */
const NOTICE_MS = 5000;

/**
 * Tells the user that something happened without moving their focus: "Saved", "Copied",
 * "Key revoked". Screen readers read it (a polite live region) and it shows for a few seconds
 * at the bottom of the page. The app renders the one `<bo-live-region>` that shows it.
 *
 * The live region itself is always in the accessibility tree (hidden from sight, never
 * `display: none`): screen readers announce changes of a region they already know, not a
 * region that appears with its text. The notice seen on screen is its twin, hidden from them.
 */
export function announce(message: string): void {
  window.dispatchEvent(new CustomEvent<string>(ANNOUNCE_EVENT, { detail: message }));
}

/**
 * @summary The page's polite live region: the notices of `announce()`.
 */
export class LiveRegion extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        position: fixed;
        inset-inline: 0;
        inset-block-end: 1rem;
        display: flex;
        justify-content: center;
        pointer-events: none;
        z-index: 10;
      }
      .notice {
        max-inline-size: min(32rem, calc(100vw - 2rem));
        padding: 0.6rem 1rem;
        border-radius: var(--bo-radius);
        background: var(--bo-text);
        color: #fff;
        font-weight: 600;
        box-shadow: 0 4px 16px rgb(0 0 0 / 20%);
      }
      .notice[hidden] {
        display: none;
      }
      @media (forced-colors: active) {
        .notice {
          border: 2px solid CanvasText;
        }
      }
    `,
  ];

  static override properties = { message: { state: true } };
  declare message: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #frame: number | undefined;

  constructor() {
    super();
    this.message = "";
  }

  readonly #onAnnounce = (event: Event) => {
    const { detail } = event as CustomEvent<string>;
    this.#cancel();
    // Emptied first, so that the same words twice are announced twice.
    this.message = "";
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined;
      this.message = detail;
      this.#timer = setTimeout(() => (this.message = ""), NOTICE_MS);
    });
  };

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener(ANNOUNCE_EVENT, this.#onAnnounce);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener(ANNOUNCE_EVENT, this.#onAnnounce);
    this.#cancel();
  }

  /** A newer notice replaces the one under way: its frame and its timer go. */
  #cancel(): void {
    clearTimeout(this.#timer);
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    this.#frame = undefined;
  }

  protected override render() {
    return html`<div class="visually-hidden" role="status" aria-live="polite">${this.message}</div>
      <div class="notice" aria-hidden="true" ?hidden=${this.message === ""}>${this.message}</div>`;
  }
}

define("bo-live-region", LiveRegion);

declare global {
  interface HTMLElementTagNameMap {
    "bo-live-region": LiveRegion;
  }
}
