import { updateWhenLocaleChanges } from "@lit/localize";
import { LitElement } from "lit";

/** Every element of the app: it renders again when the language changes. */
export class BoElement extends LitElement {
  constructor() {
    super();
    updateWhenLocaleChanges(this);
  }
}

/** Registers an element once, whichever modules import it. */
export function define(tag: string, element: CustomElementConstructor): void {
  if (!customElements.get(tag)) customElements.define(tag, element);
}
