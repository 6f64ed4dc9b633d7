import { css } from "lit";
import { recordStyles } from "../../ui/styles.js";

/**
 * What the sections of the integrations screen share: a section per element, lists of items
 * (keys, endpoints, deliveries) as cards and the one-time secret, on top of the record styles.
 */
export const integrationStyles = css`
  ${recordStyles}
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
  .card {
    margin-block-start: var(--bo-space);
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
    .secret {
      border-color: CanvasText;
    }
  }
`;
