import { msg } from "@lit/localize";
import { css, html, nothing } from "lit";
import "../ui/language-select.js";
import { signOut } from "./sign-out.js";

/**
 * The header of the pages outside a store (sign-in, store picker, not found): the product's
 * name, the language, and sign-out when signed in.
 */
export function pageHeader({ signedIn }: { signedIn: boolean }) {
  return html`<header class="page-header">
    <span class="product">${msg("Loyalty back-office")}</span>
    <div class="page-header__controls">
      <bo-language-select></bo-language-select>
      ${
        signedIn
          ? html`<button class="button button--quiet" type="button" @click=${() => void signOut()}>
              ${msg("Sign out")}
            </button>`
          : nothing
      }
    </div>
  </header>`;
}

export const pageStyles = css`
  :host {
    display: block;
    min-block-size: 100vh;
  }
  .page-header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem 1rem;
    padding: 0.75rem var(--bo-space);
    background: var(--bo-surface);
    border-block-end: 1px solid var(--bo-border);
  }
  .product {
    font-weight: 700;
    font-size: 1.125rem;
  }
  .page-header__controls {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem;
  }
  main {
    display: block;
    max-inline-size: 40rem;
    margin-inline: auto;
    padding: 2rem var(--bo-space) 4rem;
  }
`;
