import { css } from "lit";

/**
 * What every widget's styles start from. The documented custom properties are read here, each
 * with the configuration's value (`--_accent`, `--_text`, set by the widget) as its fallback,
 * so a merchant's CSS always wins over the back-office, and the back-office over our defaults.
 */
export const base = css`
  :host {
    display: block;
    box-sizing: border-box;
    font-family: var(--loyalty-font-family, inherit);
  }
  /* Each widget's outermost element carries the configuration's colours as --_accent, --_text. */
  .root {
    color: var(--loyalty-text-color, var(--_text, inherit));
    --_accent-color: var(--loyalty-accent-color, var(--_accent, #1a73e8));
    --_radius: var(--loyalty-radius, 8px);
    --_gap: var(--loyalty-spacing, 1rem);
    --_surface: var(--loyalty-surface-color, #fff);
    --_border: var(--loyalty-border-color, rgb(0 0 0 / 0.15));
  }
  :host([hidden]) {
    display: none;
  }
  *,
  *::before,
  *::after {
    box-sizing: inherit;
  }
  .skeleton {
    display: inline-block;
    inline-size: var(--_skeleton-width, 12em);
    max-inline-size: 100%;
    block-size: 1em;
    vertical-align: middle;
    border-radius: 4px;
    background: var(--loyalty-skeleton-color, rgb(0 0 0 / 0.08));
  }
  @media (prefers-reduced-motion: no-preference) {
    .skeleton {
      animation: pulse 1.2s ease-in-out infinite alternate;
    }
  }
  @keyframes pulse {
    to {
      opacity: 0.4;
    }
  }
  .button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.4em;
    min-block-size: 2.5rem;
    padding: 0.5em 1em;
    border: 2px solid var(--_accent-color);
    border-radius: var(--_radius);
    background: var(--_accent-color);
    color: var(--loyalty-accent-text-color, #fff);
    font: inherit;
    font-weight: 600;
    text-decoration: none;
    cursor: pointer;
  }
  /* White or black, whichever reads on the accent colour (relative colours: 2023+ browsers). */
  @supports (color: oklch(from red l c h)) {
    .button {
      color: var(
        --loyalty-accent-text-color,
        oklch(from var(--_accent-color) clamp(0, (0.62 - l) * 1000, 1) 0 0)
      );
    }
  }
  .button.secondary {
    background: transparent;
    color: inherit;
  }
  .button:focus-visible {
    outline: 3px solid var(--_accent-color);
    outline-offset: 2px;
  }
  .button[disabled],
  .button[aria-disabled="true"] {
    opacity: 0.6;
    cursor: progress;
  }
  .sr-only {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;

const COLOR = /^(#[0-9a-f]{3,8}|(rgb|hsl)a?\([0-9.%,\s/]+\))$/i;

/**
 * A configuration colour as a custom property declaration, or nothing when it is unset ("") or
 * not a colour (the API validates them; this keeps a bad one from injecting CSS anyway). Bind it
 * as a property, `.style=${…}`: the CSSOM is allowed under a Content Security Policy that
 * refuses inline style attributes.
 */
export function colorVar(name: string, ...candidates: (string | undefined)[]): string {
  const color = candidates.find((value) => value && COLOR.test(value));
  return color ? `${name}:${color};` : "";
}

/** The rewards list shared by the cart widget and the programme page. */
export const rewardsStyles = css`
  .rewards {
    display: grid;
    gap: calc(var(--_gap) / 2);
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .reward {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: calc(var(--_gap) / 2);
    padding: calc(var(--_gap) / 2) 0;
    border-block-end: 1px solid var(--_border);
  }
  .reward-text {
    display: grid;
    flex: 1 1 12em;
  }
  .reward-text p {
    margin: 0;
  }
  .reward-action {
    display: grid;
    justify-items: end;
    gap: 0.25em;
  }
  .code {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5em;
  }
  .code code {
    padding: 0.25em 0.5em;
    border: 1px dashed var(--_accent-color);
    border-radius: 4px;
    font-size: 1.1em;
    user-select: all;
  }
  .message {
    flex-basis: 100%;
    margin: 0;
  }
  .confirm {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: end;
    gap: 0.5em;
  }
  .confirm p {
    flex-basis: 100%;
    margin: 0;
    text-align: end;
  }
`;
