import { msg } from "@lit/localize";
import { TaskStatus, type Task } from "@lit/task";
import { css, html, nothing, type TemplateResult } from "lit";
import { BoElement, define } from "./element.js";
import { problemMessage } from "./problem-message.js";
import { base } from "./styles.js";

export type ViewState = "loading" | "empty" | "error" | "ready";

/**
 * The place of data that is loading, failed, empty or there. It keeps the same space in each
 * state (at least `--bo-state-view-min-size`, 10rem by default: set it to the content's usual
 * height), so that data arriving does not push what follows down the page.
 *
 * Its content (light DOM, styled by the screen) shows in the "ready" and "empty" states;
 * loading shows a placeholder, error the problem and a "Try again" button (a `retry` event).
 * Most screens use `taskView()` below rather than the element itself.
 *
 * Data being fetched again over what shows (`aria-busy="true"` on the element) draws a bar
 * along its top edge: the content stays readable (no fading, which would fail its contrast).
 *
 * @summary Loading, empty, error and ready states of data, in a stable space.
 * @cssprop --bo-state-view-min-size - The space kept in every state (default: 10rem).
 * @event retry - The user asked to try again after an error.
 */
export class StateView extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        display: block;
        position: relative;
        min-block-size: var(--bo-state-view-min-size, 10rem);
      }
      :host([aria-busy="true"])::before {
        content: "";
        position: absolute;
        inset-inline: 0;
        inset-block-start: -0.5rem;
        block-size: 3px;
        border-radius: 2px;
        background: var(--bo-accent);
      }
      @media (prefers-reduced-motion: no-preference) {
        :host([aria-busy="true"])::before {
          animation: pulse 1.5s ease-in-out infinite;
        }
      }
      .loading {
        display: grid;
        gap: 0.75rem;
        padding-block: 0.25rem;
      }
      .bar {
        block-size: 1.25rem;
        border-radius: 4px;
        background: var(--bo-skeleton);
      }
      .bar:nth-child(3n + 2) {
        inline-size: 85%;
      }
      .bar:nth-child(3n + 3) {
        inline-size: 60%;
      }
      @media (prefers-reduced-motion: no-preference) {
        .bar {
          animation: pulse 1.5s ease-in-out infinite;
        }
      }
      @keyframes pulse {
        50% {
          opacity: 0.5;
        }
      }
      .error {
        border: 1px solid var(--bo-danger);
        border-inline-start-width: 4px;
        border-radius: var(--bo-radius);
        background: var(--bo-danger-soft);
        padding: 0.75rem 1rem;
      }
      :host([state="empty"]) {
        display: grid;
        place-content: center;
        text-align: center;
        color: var(--bo-muted);
      }
      @media (forced-colors: active) {
        .bar {
          border: 1px solid GrayText;
        }
        .error {
          border-color: CanvasText;
        }
        :host([aria-busy="true"])::before {
          background: Highlight;
        }
      }
    `,
  ];

  static override properties = {
    state: { reflect: true },
    error: { attribute: false },
    label: {},
  };

  declare state: ViewState;
  /** What failed (an ApiError shows the server's problem). */
  declare error: unknown;
  /** What is loading, for screen readers ("Loading rewards"); default "Loading". */
  declare label: string | undefined;

  constructor() {
    super();
    this.state = "loading";
  }

  protected override render() {
    switch (this.state) {
      case "loading":
        return html`<div class="loading" role="status">
          <span class="visually-hidden">${this.label ?? msg("Loading")}</span>
          <div class="bar" aria-hidden="true"></div>
          <div class="bar" aria-hidden="true"></div>
          <div class="bar" aria-hidden="true"></div>
        </div>`;
      case "error":
        return html`<div class="error" role="alert">
          ${problemMessage(this.error)}
          <button
            class="button"
            type="button"
            @click=${() => this.dispatchEvent(new Event("retry", { bubbles: true, composed: true }))}
          >
            ${msg("Try again")}
          </button>
        </div>`;
      default:
        return html`<slot></slot>`;
    }
  }
}

define("bo-state-view", StateView);

export interface TaskViewOptions<T> {
  /** The data, when there is some. */
  ready: (value: T) => unknown;
  /** Whether the data is empty (an empty list): then `empty` shows instead of `ready`. */
  isEmpty?: (value: T) => boolean;
  empty?: () => unknown;
  /** What is loading, for screen readers. */
  label?: string;
  /** A class for the state view, to size it (`--bo-state-view-min-size`). */
  class?: string;
}

/**
 * A Task (from `@lit/task`) in a state view: a placeholder while it runs, its error with
 * "Try again" (which runs it again), its empty state, or `ready(value)`.
 *
 * ```ts
 * taskView(this.rules, { ready: (rules) => html`…`, isEmpty: (rules) => rules.length === 0,
 *   empty: () => html`<p>${msg("No rule yet.")}</p>`, class: "rules" })
 * ```
 */
export function taskView<T>(
  task: Task<readonly unknown[], T>,
  options: TaskViewOptions<T>,
): TemplateResult {
  let state: ViewState = "loading";
  let content: unknown = nothing;
  if (task.status === TaskStatus.ERROR) {
    state = "error";
  } else if (task.status === TaskStatus.COMPLETE) {
    const value = task.value as T;
    const empty = options.isEmpty?.(value) ?? false;
    state = empty ? "empty" : "ready";
    content = empty ? options.empty?.() : options.ready(value);
  }
  return html`<bo-state-view
    class=${options.class ?? ""}
    .state=${state}
    .error=${task.error}
    .label=${options.label}
    @retry=${(event: Event) => {
      // Only this task: the shell's own state view, around the screen, must not run its own.
      event.stopPropagation();
      void task.run();
    }}
    >${content}</bo-state-view
  >`;
}

declare global {
  interface HTMLElementTagNameMap {
    "bo-state-view": StateView;
  }
}
