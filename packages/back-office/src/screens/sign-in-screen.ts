import { msg } from "@lit/localize";
import { css, html, nothing } from "lit";
import { api } from "../api/client.js";
import { session } from "../api/session.js";
import { pageHeader, pageStyles } from "../app/page-header.js";
import { ScreenElement } from "../app/screen.js";
import { define } from "../ui/element.js";
import { formErrors, focusFirstProblem, NO_ERRORS, type FormErrors } from "../ui/field-errors.js";
import { formText } from "../ui/form-data.js";
import { fieldStyles, inputField } from "../ui/form-field.js";
import { formProblem } from "../ui/form-problem.js";
import { base } from "../ui/styles.js";

const FIELDS = ["email", "password"] as const;

/**
 * Email and password for an access token (POST /admin/token). The app shows it for every URL
 * while signed out: once signed in, the admin is where the URL says.
 */
export class SignInScreen extends ScreenElement {
  static override styles = [
    base,
    fieldStyles,
    pageStyles,
    css`
      main {
        max-inline-size: 26rem;
      }
      form {
        margin-block-start: 1.5rem;
      }
      .submit {
        inline-size: 100%;
      }
    `,
  ];

  static override properties = {
    expired: { type: Boolean },
    errors: { state: true },
    busy: { state: true },
  };

  /** The previous session expired: say so. */
  declare expired: boolean;
  declare errors: FormErrors;
  declare busy: boolean;

  constructor() {
    super();
    this.expired = false;
    this.errors = NO_ERRORS;
    this.busy = false;
  }

  protected override get screenTitle(): string {
    return msg("Sign in");
  }

  protected override render() {
    const { fields, problem } = this.errors;
    return html`${pageHeader({ signedIn: false })}
      <main>
        <h1>${this.screenTitle}</h1>
        ${
          this.expired && problem === undefined
            ? html`<div class="alert alert--info" role="alert">
                <p>${msg("Your session expired, sign in again.")}</p>
              </div>`
            : nothing
        }
        ${formProblem(this.errors)}
        <form novalidate @submit=${this.#submit}>
          ${inputField({
            name: "email",
            label: msg("Email"),
            type: "email",
            autocomplete: "username",
            spellcheck: false,
            required: true,
            error: fields["email"],
          })}
          ${inputField({
            name: "password",
            label: msg("Password"),
            type: "password",
            autocomplete: "current-password",
            required: true,
            error: fields["password"],
          })}
          <button
            class="button button--primary submit"
            type="submit"
            aria-disabled=${this.busy ? "true" : "false"}
          >
            ${this.busy ? msg("Signing in…") : msg("Sign in")}
          </button>
        </form>
      </main>`;
  }

  async #submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.busy) return;
    const data = new FormData(event.target as HTMLFormElement);
    this.busy = true;
    try {
      const token = await api.call("createAdminToken", {
        body: { email: formText(data, "email").trim(), password: formText(data, "password") },
      });
      // The app replaces this screen: nothing here changes first, or the form would move
      // under the shopkeeper's eyes (the refusal of a previous attempt going away).
      session.start(token);
    } catch (error) {
      this.busy = false;
      this.errors = formErrors(error, FIELDS);
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
    }
  }
}

define("bo-sign-in-screen", SignInScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-sign-in-screen": SignInScreen;
  }
}
