import { css } from "lit";

export const styles = css`
  :host {
    line-height: 1.5;
  }
  .root {
    display: grid;
    gap: calc(var(--_gap) * 2);
    --_height: var(--loyalty-header-height, 320px);
  }
  /* One cell holds the image and, over it, the content: the banner is as tall as the taller. */
  .header {
    position: relative;
    display: grid;
    overflow: hidden;
    background: var(--loyalty-header-background, var(--_bg));
    color: var(--loyalty-header-text-color, var(--_fg, #fff));
    --_align: center;
  }
  /* Without a text colour, white or black, whichever reads on the banner's colour. */
  @supports (color: oklch(from red l c h)) {
    .header {
      color: var(
        --loyalty-header-text-color,
        var(--_fg, oklch(from var(--_bg, #000) clamp(0, (0.62 - l) * 1000, 1) 0 0))
      );
    }
  }
  /* The merchant's left and right, as they see them, whatever the page's direction. */
  .left {
    --_align: left;
  }
  .right {
    --_align: right;
  }
  .cover,
  .placeholder {
    min-block-size: var(--_height);
  }
  .placeholder {
    place-items: center;
    padding: var(--_gap);
    background: var(--loyalty-skeleton-color, rgb(0 0 0 / 0.08));
    color: inherit;
  }
  /* A screen's height below the banner while loading: the sections grow below the fold. */
  .skeleton-sections {
    display: grid;
    align-content: start;
    gap: calc(var(--_gap) * 2);
    min-block-size: 100vh;
  }
  .skeleton-section {
    display: grid;
    gap: 0.75em;
    padding-inline: var(--_gap);
  }
  .skeleton-section .skeleton {
    --_skeleton-width: 100%;
  }
  .skeleton-section .heading {
    --_skeleton-width: 12em;
    block-size: 1.5em;
  }
  .skeleton-section .short {
    --_skeleton-width: 60%;
  }
  picture,
  .content {
    grid-area: 1 / 1;
  }
  img {
    display: block;
    inline-size: 100%;
  }
  /* Cropped: the image fills the banner and never sets its height. */
  .cover picture {
    position: absolute;
    inset: 0;
  }
  .cover img {
    block-size: 100%;
    object-fit: cover;
  }
  .content {
    position: relative;
    align-self: center;
    justify-self: var(--_align);
    display: grid;
    gap: var(--_gap);
    max-inline-size: min(36rem, 100% - 2 * var(--_gap));
    margin: var(--_gap);
    text-align: var(--_align);
  }
  .card .content {
    padding: var(--_gap);
    border-radius: var(--_radius);
    background: var(--loyalty-header-card-background, var(--_surface));
  }
  .text {
    margin: 0;
    white-space: pre-line;
    overflow-wrap: anywhere;
  }
  div.text {
    white-space: normal;
  }
  .text > :first-child {
    margin-block-start: 0;
  }
  .text > :last-child {
    margin-block-end: 0;
  }
  .text a {
    color: inherit;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    justify-content: var(--_align);
    gap: calc(var(--_gap) / 2);
  }
  @media (max-width: 599px) {
    .root {
      --_height: var(--loyalty-header-mobile-height, 240px);
    }
    .stacked picture {
      position: static;
    }
    .stacked .content {
      grid-area: 2 / 1;
    }
    .stacked.cover {
      min-block-size: 0;
    }
    .stacked.cover img {
      block-size: var(--_height);
    }
  }
  @media (min-width: 600px) {
    .mobile-only {
      display: none;
    }
  }
  section {
    padding-inline: var(--_gap);
  }
  h2 {
    margin: 0 0 var(--_gap);
    scroll-margin-block-start: var(--loyalty-scroll-margin, 1rem);
  }
  h3 {
    margin: 0.5em 0 0.25em;
    font-size: 1.1em;
  }
  ul {
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .ways {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(14rem, 100%), 1fr));
    gap: var(--_gap);
  }
  .ways li {
    padding: var(--_gap);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  [part="icon"] {
    inline-size: 2rem;
    block-size: 2rem;
    color: var(--_accent-color);
  }
  p {
    margin: 0 0 var(--_gap);
    white-space: pre-line;
  }
  dl {
    display: flex;
    flex-wrap: wrap;
    gap: var(--_gap) calc(var(--_gap) * 2);
    margin: 0 0 var(--_gap);
  }
  dd {
    margin: 0;
    font-size: 1.5em;
    font-weight: 700;
  }
  progress {
    inline-size: 100%;
    accent-color: var(--_accent-color);
  }
  .transactions {
    margin-block-end: var(--_gap);
  }
  .transactions li,
  details {
    padding: 0.5em 0;
    border-block-end: 1px solid var(--_border);
  }
  .transactions li {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 0 1em;
  }
  .transactions span {
    flex: 1 1 10em;
  }
  summary {
    font-weight: 600;
    cursor: pointer;
  }
  details p {
    margin: 0.5em 0 0;
  }
`;
