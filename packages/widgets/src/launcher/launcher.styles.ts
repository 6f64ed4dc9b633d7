import { css } from "lit";

export const styles = css`
  :host {
    display: contents;
  }
  .root {
    --_offset: var(--loyalty-launcher-offset, 1rem);
  }
  /* Fixed to the window's corner: the page's own layout never moves for it. */
  .launcher {
    position: fixed;
    z-index: var(--loyalty-launcher-z-index, 2147483000);
    inset-block-end: var(--_offset);
    inset-inline-end: var(--_offset);
    display: inline-flex;
    align-items: center;
    gap: 0.5em;
    min-block-size: 3rem;
    padding: 0.5em 1.1em;
    border: 0;
    border-radius: 999px;
    background: var(--_accent-color);
    color: var(--loyalty-accent-text-color, #fff);
    box-shadow: 0 4px 16px rgb(0 0 0 / 0.25);
    font: inherit;
    font-weight: 600;
    cursor: pointer;
  }
  @supports (color: oklch(from red l c h)) {
    .launcher {
      color: var(
        --loyalty-accent-text-color,
        oklch(from var(--_accent-color) clamp(0, (0.62 - l) * 1000, 1) 0 0)
      );
    }
  }
  .launcher svg {
    inline-size: 1.4em;
    block-size: 1.4em;
  }
  .launcher:focus-visible {
    outline: 3px solid var(--_accent-color);
    outline-offset: 3px;
  }
  .bottom-left .launcher {
    inset-inline: var(--_offset) auto;
  }
  /* The panel keeps one size while it fills: nothing in it jumps as its parts arrive. */
  .panel {
    position: fixed;
    inset: auto var(--_offset) calc(var(--_offset) + 4rem) auto;
    inline-size: min(24rem, 100vw - 2 * var(--_offset));
    block-size: min(40rem, 100dvh - var(--_offset) - 5rem);
    margin: 0;
    padding: 0;
    overflow: hidden;
    flex-direction: column;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 1.5);
    background: var(--_surface);
    color: var(--loyalty-text-color, #1f1a24);
    box-shadow: 0 12px 40px rgb(0 0 0 / 0.3);
  }
  .panel[open] {
    display: flex;
  }
  .bottom-left .panel {
    inset-inline: var(--_offset) auto;
  }
  .panel::backdrop {
    background: rgb(0 0 0 / 0.3);
  }
  @media (max-width: 599px) {
    dialog.panel {
      inset: 0;
      inline-size: 100%;
      max-inline-size: 100%;
      block-size: 100%;
      max-block-size: 100%;
      border-radius: 0;
    }
  }
  /* The back-office's preview: the button and the panel in the page, one under the other. */
  .inline .launcher,
  .inline .panel {
    position: static;
  }
  .inline .panel {
    display: flex;
    margin-block-start: 1rem;
    block-size: auto;
    max-block-size: 40rem;
  }
  .panel-head {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 1rem;
    padding: calc(var(--_gap) * 0.75) var(--_gap);
    border-block-end: 1px solid var(--_border);
  }
  .panel-head h2 {
    margin: 0;
    font-size: 1.15em;
  }
  .close {
    min-inline-size: 2.75rem;
    min-block-size: 2.75rem;
    border: 0;
    border-radius: var(--_radius);
    background: transparent;
    color: inherit;
    font-size: 1.5em;
    line-height: 1;
    cursor: pointer;
  }
  .close:focus-visible {
    outline: 3px solid var(--_accent-color);
  }
  .panel-body {
    flex: 1;
    overflow-y: auto;
    overscroll-behavior: contain;
    padding: var(--_gap);
  }
  .panel-body > p:first-child {
    margin-block-start: 0;
  }
  .loading {
    display: grid;
    gap: 0.75rem;
  }
  section {
    margin-block-start: calc(var(--_gap) * 1.25);
  }
  h3 {
    margin: 0 0 0.5em;
    font-size: 1em;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  .balance .figure {
    margin: 0;
    font-size: 1.75em;
    font-weight: 700;
  }
  .balance dl {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem 1.5rem;
    margin: 0.5em 0 0;
  }
  .balance dt {
    font-size: 0.85em;
  }
  .balance dd {
    margin: 0;
    font-weight: 600;
  }
  .balance p {
    margin: 0.5em 0 0;
  }
  .hint {
    font-size: 0.9em;
  }
  progress {
    inline-size: 100%;
    accent-color: var(--_accent-color);
  }
  .ways,
  .codes {
    display: grid;
    gap: 0.75rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .ways li {
    display: flex;
    gap: 0.75rem;
    align-items: start;
  }
  .ways svg {
    flex: none;
    inline-size: 1.5rem;
    block-size: 1.5rem;
    color: var(--_accent-color);
  }
  .ways span {
    display: block;
  }
  .codes li {
    padding-block-end: 0.75rem;
    border-block-end: 1px solid var(--_border);
  }
  .codes strong {
    flex-basis: 100%;
  }
  form {
    display: grid;
    gap: 0.4rem;
  }
  form .button {
    justify-self: start;
    margin-block-start: 0.4rem;
  }
  input {
    min-block-size: 2.5rem;
    padding: 0.4em 0.6em;
    border: 1px solid var(--loyalty-border-color, #767676);
    border-radius: var(--_radius);
    font: inherit;
  }
  input:focus-visible {
    outline: 3px solid var(--_accent-color);
    outline-offset: 1px;
  }
  #invitation-link {
    display: block;
    inline-size: 100%;
    box-sizing: border-box;
    margin-block: 0.4rem 0.6rem;
  }
  input[aria-invalid="true"] {
    border-color: #b3261e;
  }
  .message {
    margin: 0;
    color: #b3261e;
  }
`;
