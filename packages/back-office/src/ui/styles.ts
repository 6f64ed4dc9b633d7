import { css } from "lit";

/**
 * What every element's shadow root starts with: box sizing, focus rings, buttons, links and
 * the visually-hidden helper. The tokens (`--bo-*`) are declared in src/global.css.
 */
export const base = css`
  :host {
    box-sizing: border-box;
  }
  *,
  *::before,
  *::after {
    box-sizing: inherit;
  }
  [hidden] {
    display: none !important;
  }
  :focus-visible {
    outline: 3px solid var(--bo-focus);
    outline-offset: 2px;
  }
  /* Headings receive focus on navigation (for screen readers), not as a control. */
  [tabindex="-1"]:focus {
    outline: none;
  }
  a {
    color: var(--bo-accent);
    text-underline-offset: 0.15em;
  }
  a:hover {
    color: var(--bo-accent-strong);
  }
  h1 {
    font-size: 1.625rem;
    line-height: 1.25;
    margin: 0 0 var(--bo-space);
  }
  h2 {
    font-size: 1.25rem;
    line-height: 1.3;
    margin: 0 0 0.75rem;
  }
  p {
    margin: 0 0 0.75rem;
  }
  code {
    font-family: var(--bo-mono);
    font-size: 0.9em;
    background: var(--bo-page);
    border: 1px solid var(--bo-border);
    border-radius: 4px;
    padding: 0.05em 0.3em;
    overflow-wrap: anywhere;
  }
  .visually-hidden {
    position: absolute !important;
    inline-size: 1px;
    block-size: 1px;
    margin: -1px;
    padding: 0;
    border: 0;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  .muted {
    color: var(--bo-muted);
  }

  .button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.4em;
    min-block-size: 2.5rem;
    padding: 0.45rem 1rem;
    border: 1px solid var(--bo-control-border);
    border-radius: var(--bo-radius);
    background: var(--bo-surface);
    color: var(--bo-text);
    font: inherit;
    font-weight: 600;
    line-height: 1.2;
    text-decoration: none;
    cursor: pointer;
  }
  .button:hover {
    background: var(--bo-page);
  }
  .button--primary {
    background: var(--bo-accent);
    border-color: var(--bo-accent);
    color: #fff;
  }
  .button--primary:hover {
    background: var(--bo-accent-strong);
    border-color: var(--bo-accent-strong);
    color: #fff;
  }
  .button--danger {
    background: var(--bo-danger);
    border-color: var(--bo-danger);
    color: #fff;
  }
  .button--danger:hover {
    background: #8f1515;
    color: #fff;
  }
  .button--quiet {
    border-color: transparent;
    background: transparent;
    color: var(--bo-accent);
  }
  .button--quiet:hover {
    background: var(--bo-accent-soft);
  }
  .button[aria-disabled="true"] {
    opacity: 0.7;
    cursor: progress;
  }

  .alert {
    border: 1px solid var(--bo-danger);
    border-inline-start-width: 4px;
    border-radius: var(--bo-radius);
    background: var(--bo-danger-soft);
    padding: 0.75rem 1rem;
    margin: 0 0 var(--bo-space);
  }
  .alert--info {
    border-color: var(--bo-accent);
    background: var(--bo-accent-soft);
  }
  .alert > :last-child {
    margin-block-end: 0;
  }

  .card {
    background: var(--bo-surface);
    border: 1px solid var(--bo-border);
    border-radius: var(--bo-radius);
    padding: var(--bo-space);
  }

  @media (forced-colors: active) {
    :focus-visible {
      outline-color: Highlight;
    }
    .button,
    .button--quiet {
      border-color: ButtonText;
    }
    .alert {
      border-color: CanvasText;
    }
  }
`;

/** A screen's layout: the content column inside the shell's main area. */
export const screenStyles = css`
  :host {
    display: block;
  }
  .intro {
    max-inline-size: 42rem;
    color: var(--bo-muted);
  }
`;

/**
 * What the record screens share (customers, integrations): facts as label/value pairs, badges,
 * the "Saved" status that takes focus after a change, and the "Load more" row of paged lists.
 */
export const recordStyles = css`
  .facts {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(100%, 10rem), 1fr));
    gap: 0.5rem 1rem;
    margin: 0;
  }
  .facts > div {
    min-inline-size: 0;
  }
  .facts dt {
    color: var(--bo-muted);
    font-size: 0.875rem;
  }
  .facts dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .badge {
    display: inline-block;
    padding: 0.05rem 0.5rem;
    border: 1px solid currentColor;
    border-radius: 999px;
    font-size: 0.8125rem;
    font-weight: 600;
    white-space: nowrap;
  }
  .badge--muted {
    color: var(--bo-muted);
  }
  .badge--ok {
    color: var(--bo-success);
  }
  .badge--bad {
    color: var(--bo-danger);
  }
  .negative {
    color: var(--bo-danger);
  }
  .saved {
    display: flex;
    gap: 0.5rem;
    align-items: baseline;
    margin: 0 0 var(--bo-space);
    padding: 0.6rem 1rem;
    border: 1px solid var(--bo-success);
    border-inline-start-width: 4px;
    border-radius: var(--bo-radius);
    background: var(--bo-success-soft);
    color: var(--bo-success);
    font-weight: 600;
  }
  .saved:focus-visible,
  .saved:focus {
    outline: 3px solid var(--bo-focus);
    outline-offset: 2px;
  }
  .load-more {
    display: grid;
    justify-items: start;
    gap: 0.5rem;
    margin-block-start: var(--bo-space);
  }
  @media (forced-colors: active) {
    .saved,
    .badge {
      border-color: CanvasText;
    }
  }
`;
