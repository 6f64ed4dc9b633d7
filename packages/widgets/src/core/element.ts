import { LitElement, type PropertyValues } from "lit";
import type { Customer, Endpoint } from "./api.js";
import { CLAIMED_EVENT, type RewardClaimedDetail } from "./claim-event.js";
import { locale, type Locale } from "./i18n.js";
import { chooseLanguage, overlay, type Language } from "./languages.js";

/** What every configuration response has that decides the language: the store's and the texts'. */
interface Localizable {
  store: { language: string };
  config: object;
}

/** Page-wide defaults, from the script tag's `data-api-base`/`data-domain` or `configure()`. */
const defaults: { apiBase?: string | undefined; domain?: string | undefined } = {};

/** The widgets in the page, which a late `configure()` must reach. */
const connected = new Set<LoyaltyElement>();

/**
 * The page's `<html lang>` chooses the widgets' language (after their own `lang`): a page that
 * switches language (a one-page app) shows them in the new one at once.
 */
let pageLanguage: MutationObserver | undefined;
function watchPageLanguage(): void {
  pageLanguage ??= new MutationObserver(() => {
    for (const widget of connected) widget.requestUpdate();
  });
  pageLanguage.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}

/**
 * Sets the API base and store domain every widget of the page uses when it has no `api-base`
 * or `domain` attribute of its own. Widgets already in the page load again with them.
 */
export function configure(options: { apiBase?: string; domain?: string }): void {
  Object.assign(defaults, options);
  for (const widget of connected) widget.requestReload();
}

/** What a widget shows: still loading, loaded, or failed (the page goes on without it). */
export type Status = "loading" | "ready" | "error";

/**
 * What the three widgets share: where the API is, which store, which customer, and the
 * language. Each widget loads its data in `load()` whenever one of `reloadOn` changes, and
 * renders from `status`, with `previewConfig`'s draft applied over what it loaded.
 */
export abstract class LoyaltyElement extends LitElement {
  static override properties = {
    domain: { reflect: true },
    apiBase: { attribute: "api-base" },
    customerId: { attribute: "customer-id" },
    customerHash: { attribute: "customer-hash" },
    // The global attribute, made reactive: a page that switches language re-renders the widget.
    lang: { reflect: true },
    previewConfig: { attribute: false },
    status: { state: true },
  };

  /** The store's domain as declared in the back-office, e.g. `https://shop.example`. */
  declare domain: string | undefined;
  /** The API server's URL, e.g. `https://loyalty.shop.example`. */
  declare apiBase: string | undefined;
  /** The signed-in customer's id in the store; leave empty for visitors. */
  declare customerId: string | undefined;
  /** The customer's HMAC hash, computed by the store's server (`customerHash` of the SDK). */
  declare customerHash: string | undefined;
  /**
   * A draft of the widget's configuration, shown instead of the saved one: the back-office's
   * live preview sets it while the merchant edits. A new draft re-renders the data already
   * loaded, without asking the API again. Storefronts leave it unset.
   */
  declare previewConfig: object | undefined;
  declare protected status: Status;

  /**
   * How long changes settle before loading again (a variant picker, a quantity stepper); the
   * first load never waits.
   */
  protected debounceMs = 0;
  /** Ignores the answer of a load that a newer one replaced. */
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor() {
    super();
    this.status = "loading";
  }

  /** Properties whose change reloads the widget's data. */
  protected get reloadOn(): PropertyKey[] {
    return ["domain", "apiBase", "customerId", "customerHash"];
  }

  /**
   * The configuration response as the widget shows it: the saved configuration, with the draft
   * of `previewConfig` over it, in the language the widget speaks (`language`). Every read of
   * the configuration at render goes through here.
   */
  protected withDraft<R extends Localizable>(response: R): R {
    return this.shown(response).localized as R;
  }

  /**
   * The language the widget speaks: the first of its `lang`, the page's `<html lang>` and the
   * store's default language that the merchant has texts for (see core/languages.ts).
   */
  protected language(response: Localizable): Language {
    return this.shown(response).language;
  }

  /** What `withDraft` and `language` answer, worked out once until one of their inputs changes. */
  private last:
    | {
        response: Localizable;
        draft: object | undefined;
        lang: string;
        page: string;
        language: Language;
        localized: Localizable;
      }
    | undefined;

  private shown(response: Localizable): NonNullable<typeof this.last> {
    const { previewConfig: draft, lang } = this;
    const page = document.documentElement.lang;
    const last = this.last;
    if (
      last?.response === response &&
      last.draft === draft &&
      last.lang === lang &&
      last.page === page
    ) {
      return last;
    }
    const config = draft ? { ...response.config, ...draft } : response.config;
    const { translations = {} } = config as { translations?: Record<string, unknown> };
    const language = chooseLanguage(
      [lang, page],
      response.store.language,
      Object.keys(translations),
    );
    // The least precise first, for the most precise to have the last word.
    const localized =
      config === response.config && !language.translations.length
        ? response
        : {
            ...response,
            config: language.translations.reduceRight(
              (texts, key) => overlay(texts, translations[key]),
              config,
            ),
          };
    this.last = { response, draft, lang, page, language, localized };
    return this.last;
  }

  /**
   * Whether `load()` reads the data of a part the saved configuration shows or hides: a preview
   * reads every part, since the merchant's next draft may show any of them.
   */
  protected loads(shown: boolean): boolean {
    return shown || !!this.previewConfig;
  }

  protected get endpoint(): Endpoint | undefined {
    const apiBase = this.apiBase ?? defaults.apiBase;
    const domain = this.domain ?? defaults.domain;
    return apiBase && domain ? { apiBase, domain } : undefined;
  }

  /** The identified customer, or undefined for a visitor. */
  protected get customer(): Customer | undefined {
    const { customerId: id, customerHash: hash } = this;
    return id && hash ? { id, hash } : undefined;
  }

  /**
   * Words, numbers and dates in the language the widget speaks; before its configuration is
   * known, in the element's or the page's language.
   */
  protected locale(response?: Localizable): Locale {
    return locale(
      response ? this.language(response).lang : this.lang || document.documentElement.lang,
    );
  }

  override connectedCallback(): void {
    super.connectedCallback();
    connected.add(this);
    watchPageLanguage();
    // A claim in any widget of the page (the cart, the programme page) spends the same balance.
    addEventListener(CLAIMED_EVENT, this.onClaim);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    connected.delete(this);
    removeEventListener(CLAIMED_EVENT, this.onClaim);
  }

  private readonly onClaim = (event: Event) => {
    const detail = (event as CustomEvent<RewardClaimedDetail>).detail;
    if (detail.domain === this.endpoint?.domain && detail.customerId === this.customer?.id) {
      this.claimed(detail);
    }
  };

  /** This widget's customer claimed a reward, here or in another widget of the page. */
  protected claimed(_detail: RewardClaimedDetail): void {}

  protected override willUpdate(changed: PropertyValues): void {
    // A new draft is only shown (`withDraft`); a preview that starts reads more (`loads`).
    const previewStarts =
      changed.has("previewConfig") && !changed.get("previewConfig") && !!this.previewConfig;
    if (previewStarts || this.reloadOn.some((name) => changed.has(name))) this.requestReload();
  }

  /** Loads again, once changes settle; the widget shows what the newest load found. */
  requestReload(): void {
    clearTimeout(this.timer);
    if (this.debounceMs && this.generation > 0) {
      this.timer = setTimeout(() => this.reload(), this.debounceMs);
    } else {
      this.reload();
    }
  }

  private reload(): void {
    const generation = ++this.generation;
    const endpoint = this.endpoint;
    if (!endpoint) {
      this.status = "error";
      return;
    }
    this.status = "loading";
    this.pending = this.load(endpoint).then(
      (apply) => {
        if (generation !== this.generation) return;
        apply();
        this.status = "ready";
      },
      () => {
        // An unreachable API must never break the store's page: the widget shows its error state.
        if (generation === this.generation) this.status = "error";
      },
    );
  }

  /** Resolves once the data of the latest load is rendered: `await el.updateComplete`. */
  protected override async getUpdateComplete(): Promise<boolean> {
    let settled = await super.getUpdateComplete();
    for (let seen; seen !== this.pending;) {
      seen = this.pending;
      await seen;
      settled = await super.getUpdateComplete();
    }
    return settled;
  }

  /** Loads the widget's data and returns what applies it, so a stale load applies nothing. */
  protected abstract load(endpoint: Endpoint): Promise<() => void>;
}

/** Registers an element once: a second copy of the script on a page must not throw. */
export function define(name: string, element: CustomElementConstructor): void {
  if (!customElements.get(name)) customElements.define(name, element);
}
