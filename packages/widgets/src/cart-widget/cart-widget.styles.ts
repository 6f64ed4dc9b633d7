import { css } from "lit";

export const styles = css`
  :host {
    line-height: 1.5;
  }
  /* Loading and failed take the same space, so the cart page does not move when either ends. */
  .root {
    display: grid;
    align-content: center;
    gap: calc(var(--_gap) / 2);
    min-block-size: var(--loyalty-cart-widget-min-height, 6em);
    padding: var(--_gap);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_surface);
  }
  h2,
  h3,
  p {
    margin: 0;
  }
  /* The title's bar, as tall as the title's line (1.25em × 1.5). */
  .root > .skeleton {
    block-size: 1.25em;
    margin-block: 0.3125em;
  }
  .placeholder {
    display: grid;
    gap: calc(var(--_gap) / 2);
  }
  .placeholder.message {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5em;
  }
  .placeholder .skeleton {
    --_skeleton-width: 14em;
  }
  .failed {
    position: relative;
  }
  .failed .skeleton {
    visibility: hidden;
  }
  .failure {
    position: absolute;
    inset: 0;
    display: grid;
    align-content: center;
    padding: var(--_gap);
  }
  .skeleton.button-shape {
    --_skeleton-width: 7em;
    block-size: 2.5rem;
    border-radius: var(--_radius);
  }
  h2 {
    font-size: 1.25em;
  }
  h3 {
    font-size: 1em;
  }
  p strong {
    color: var(--_accent-color);
  }
  [part="message"] {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5em;
  }
`;
