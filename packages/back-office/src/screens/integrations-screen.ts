import { msg } from "@lit/localize";
import { html } from "lit";
import { StoreScreen } from "../app/screen.js";
import { define } from "../ui/element.js";
import { base, screenStyles } from "../ui/styles.js";
import "./integrations/api-keys-section.js";
import "./integrations/platform-section.js";
import "./integrations/referral-section.js";
import "./integrations/webhooks-section.js";

/**
 * Integrations: how the store talks to the service and the service to the store: its
 * platform connection, its webhook endpoints (and their deliveries), its API keys, and the
 * referral programme. Each section loads, fails and retries on its own.
 */
export class IntegrationsScreen extends StoreScreen {
  static override styles = [base, screenStyles];

  protected override get screenTitle(): string {
    return msg("Integrations");
  }

  protected override render() {
    const storeId = this.store.id;
    return html`<h1>${this.screenTitle}</h1>
      <p class="intro">
        ${msg(
          "How the store talks to the service: its platform connection, its webhooks, its API keys and its referral programme.",
        )}
      </p>
      <bo-platform-section .storeId=${storeId}></bo-platform-section>
      <bo-webhooks-section .storeId=${storeId}></bo-webhooks-section>
      <bo-api-keys-section .storeId=${storeId}></bo-api-keys-section>
      <bo-referral-section
        .storeId=${storeId}
        .currency=${this.store.currency}
      ></bo-referral-section>`;
  }
}

define("bo-integrations-screen", IntegrationsScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-integrations-screen": IntegrationsScreen;
  }
}
