import { css } from "lit";

/**
 * What the sections of the integrations screen share: a section per element, lists of items
 * (keys, endpoints, deliveries) as cards, badges, the "Saved" status and the one-time secret.
 */
export const integrationStyles = css`
  :host {
    display: block;
    margin-block-start: calc(var(--bo-space) * 2);
    padding-block-start: calc(var(--bo-space) * 1.5);
    border-block-start: 1px solid var(--bo-border);
  }
  .intro {
    max-inline-size: 42rem;
    color: var(--bo-muted);
  }
  h3 {
    font-size: 1.0625rem;
    margin: 0 0 0.75rem;
  }
  .items {
    display: grid;
    gap: 0.5rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .item {
    display: grid;
    gap: 0.5rem;
    min-inline-size: 0;
    padding: 0.75rem 1rem;
    border: 1px solid var(--bo-border);
    border-radius: var(--bo-radius);
    background: var(--bo-surface);
  }
  .item:focus {
    outline: 3px solid var(--bo-focus);
    outline-offset: 2px;
  }
  .item--inactive {
    background: var(--bo-page);
  }
  .item__head {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem 0.75rem;
    align-items: center;
    min-inline-size: 0;
  }
  .item__title {
    font-weight: 700;
    overflow-wrap: anywhere;
  }
  .item p {
    margin: 0;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
  }
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
  .badge--ok {
    color: var(--bo-success);
  }
  .badge--bad {
    color: var(--bo-danger);
  }
  .badge--muted {
    color: var(--bo-muted);
  }
  .card {
    margin-block-start: var(--bo-space);
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
  .saved:focus {
    outline: 3px solid var(--bo-focus);
    outline-offset: 2px;
  }
  .secret {
    display: grid;
    gap: 0.75rem;
    margin-block-end: var(--bo-space);
    padding: var(--bo-space);
    border: 2px solid var(--bo-accent);
    border-radius: var(--bo-radius);
    background: var(--bo-accent-soft);
  }
  .secret:focus {
    outline: 3px solid var(--bo-focus);
    outline-offset: 2px;
  }
  .secret h3,
  .secret p {
    margin: 0;
  }
  .secret__value {
    display: block;
    padding: 0.5rem 0.75rem;
    background: var(--bo-surface);
    font-size: 0.9375rem;
    overflow-wrap: anywhere;
    word-break: break-all;
  }
  .danger-text {
    color: var(--bo-danger);
  }
  .load-more {
    display: grid;
    justify-items: start;
    gap: 0.5rem;
    margin-block-start: var(--bo-space);
  }
  fieldset {
    margin: 0 0 var(--bo-space);
    padding: 0.75rem 1rem 0;
    border: 1px solid var(--bo-border);
    border-radius: var(--bo-radius);
    min-inline-size: 0;
  }
  legend {
    padding: 0 0.25rem;
    font-weight: 600;
  }
  .check {
    display: flex;
    gap: 0.5rem;
    align-items: center;
    min-block-size: 2rem;
  }
  .check input {
    inline-size: 1.25rem;
    block-size: 1.25rem;
    margin: 0;
    accent-color: var(--bo-accent);
  }
  .checks {
    display: grid;
    grid-template-columns: repeat(auto-fill, minmax(min(100%, 14rem), 1fr));
    gap: 0 1rem;
    margin-block-end: 0.75rem;
  }
  @media (forced-colors: active) {
    .saved,
    .badge,
    .secret {
      border-color: CanvasText;
    }
  }
`;
