import { svg, type SVGTemplateResult } from "lit";

/** Decorative: the text next to an icon always says what it means. */
function icon(path: SVGTemplateResult, part = "icon") {
  return svg`<svg part=${part} viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${path}</svg>`;
}

export const ICONS = {
  points: icon(
    svg`<circle cx="12" cy="12" r="9"/><path d="M12 7l1.5 3 3.5.5-2.5 2.4.6 3.4L12 14.7 8.9 16.3l.6-3.4L7 10.5l3.5-.5z"/>`,
  ),
  order: icon(svg`<path d="M5 8h14l-1 12H6zM9 8V6a3 3 0 016 0v2"/>`),
  referral: icon(svg`<circle cx="9" cy="8" r="3"/><path d="M3 20a6 6 0 0112 0M17 8v6M14 11h6"/>`),
  club: icon(svg`<path d="M4 8l4 4 4-7 4 7 4-4-2 11H6z"/>`),
  birthday: icon(
    svg`<path d="M4 12h16v8H4zM12 12V8M12 8a2 2 0 01-2-2c0-1 2-3 2-3s2 2 2 3a2 2 0 01-2 2z"/>`,
  ),
  social: icon(svg`<path d="M12 21s-8-5-8-11a4 4 0 018-1 4 4 0 018 1c0 6-8 11-8 11z"/>`),
  custom: icon(svg`<path d="M20 12l-8 8-8-8 8-8z"/>`),
};
