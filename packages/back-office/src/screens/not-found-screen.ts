import { msg } from "@lit/localize";
import { html } from "lit";
import { session } from "../api/session.js";
import { BASE } from "../app/navigation.js";
import { pageHeader, pageStyles } from "../app/page-header.js";
import { ScreenElement } from "../app/screen.js";
import { define } from "../ui/element.js";
import { base } from "../ui/styles.js";

/** A URL of the app that leads nowhere (an old bookmark, a typo). */
export class NotFoundScreen extends ScreenElement {
  static override styles = [base, pageStyles];

  protected override get screenTitle(): string {
    return msg("Page not found");
  }

  protected override render() {
    return html`${pageHeader({ signedIn: session.current !== undefined })}
      <main>
        <h1>${this.screenTitle}</h1>
        <p>${msg("This address leads to no page of the back-office.")}</p>
        <p><a href=${BASE}>${msg("Go to the back-office's home")}</a></p>
      </main>`;
  }
}

define("bo-not-found-screen", NotFoundScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-not-found-screen": NotFoundScreen;
  }
}
