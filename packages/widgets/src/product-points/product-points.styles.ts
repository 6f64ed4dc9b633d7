import { css } from "lit";

export const styles = css`
  :host {
    /* One line is reserved from the start: loading, loaded or failed, the page never moves. */
    min-block-size: var(--loyalty-product-points-min-height, 1.5em);
    line-height: 1.5;
  }
  [part="base"] {
    display: flex;
    align-items: center;
    gap: 0.4em;
    min-block-size: 1.5em;
  }
  [part="icon"] {
    inline-size: 1.1em;
    block-size: 1.1em;
    flex: none;
    color: var(--_accent-color);
  }
  strong {
    color: var(--_accent-color);
  }
`;
