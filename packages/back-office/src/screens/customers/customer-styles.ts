import { css } from "lit";

/** What the customers' screens share: facts as label/value pairs, badges, the "Saved" status. */
export const customerStyles = css`
  .facts {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr));
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
