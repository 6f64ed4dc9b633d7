import { msg, str } from "@lit/localize";
import { Task } from "@lit/task";
import {
  DEFAULT_CLUB_POLICY,
  type AttributionRule,
  type Club,
  type ClubPolicy,
  type ProgramSettings,
  type RuleKind,
} from "@loyalty/shared-types";
import { css, html, nothing, type TemplateResult } from "lit";
import { live } from "lit/directives/live.js";
import { api } from "../api/client.js";
import { ApiError } from "../api/errors.js";
import { StoreScreen } from "../app/screen.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { define } from "../ui/element.js";
import { NO_ERRORS, focusFirstProblem, type FormErrors } from "../ui/field-errors.js";
import { fieldStyles } from "../ui/form-field.js";
import { announce } from "../ui/live-region.js";
import { problemMessage } from "../ui/problem-message.js";
import { taskView } from "../ui/state-view.js";
import { base, screenStyles } from "../ui/styles.js";
import {
  clubEarning,
  clubThreshold,
  kindLabel,
  ruleEarning,
  ruleTitle,
  targetText,
} from "./programme/describe.js";
import { fieldErrors } from "../ui/field-errors.js";
import {
  clubBody,
  clubFieldMessages,
  clubForm,
  formStyles,
  ruleCreateBody,
  ruleFieldMessages,
  ruleForm,
  ruleUpdateBody,
} from "./programme/forms.js";
import "./programme/points-preview.js";
import "./programme/settings-section.js";

/** The kinds of rule, in the order they take precedence. */
const KINDS: readonly RuleKind[] = ["product", "category", "default"];

/** A form open in a list: the create form ("new") or the edit form of an item. */
type Editing = number | "new" | undefined;

/** A rule's activation failed: what the server said, next to its switch. */
interface ToggleProblem {
  ruleId: number;
  error: unknown;
}

/**
 * Programme: how customers earn points: the attribution rules by product, category or default,
 * and the clubs and their multipliers, with a preview of what a product would earn.
 */
export class ProgrammeScreen extends StoreScreen {
  static override styles = [
    base,
    screenStyles,
    fieldStyles,
    formStyles,
    css`
      .layout {
        display: grid;
        gap: 2rem;
      }
      @media (min-width: 64rem) {
        .layout {
          grid-template-columns: minmax(0, 1fr) minmax(0, 22rem);
          align-items: start;
        }
        .preview {
          position: sticky;
          inset-block-start: 1rem;
        }
      }
      .lists {
        --bo-state-view-min-size: 24rem;
        min-inline-size: 0;
      }
      section + section {
        margin-block-start: 2rem;
      }
      .section-head {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        justify-content: space-between;
        gap: 0.5rem 1rem;
        margin-block-end: 0.5rem;
      }
      .section-head h2 {
        margin: 0;
      }
      .explain {
        max-inline-size: 42rem;
      }
      .explain ol {
        margin: 0 0 0.75rem;
        padding-inline-start: 1.5rem;
      }
      h3 {
        font-size: 1.0625rem;
        margin: 1.25rem 0 0.5rem;
      }
      ul.items {
        display: grid;
        gap: 0.5rem;
        margin: 0;
        padding: 0;
        list-style: none;
      }
      .item {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        justify-content: space-between;
        gap: 0.5rem 1rem;
        padding: 0.75rem 1rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
      }
      .item--inactive {
        background: var(--bo-page);
      }
      .item__main {
        display: grid;
        gap: 0.1rem;
        min-inline-size: min(100%, 14rem);
        flex: 1 1 14rem;
      }
      .item__title {
        margin: 0;
        font-size: 1rem;
        overflow-wrap: anywhere;
      }
      .item__main p {
        margin: 0;
      }
      .item__actions {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem;
      }
      .item .alert {
        flex: 1 1 100%;
        margin: 0;
      }
      .badge {
        display: inline-block;
        margin-inline-start: 0.5rem;
        padding: 0 0.45rem;
        border: 1px solid var(--bo-control-border);
        border-radius: 999px;
        color: var(--bo-muted);
        font-size: 0.8125rem;
        font-weight: 600;
        vertical-align: middle;
      }
      .switch {
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
        min-block-size: 2.5rem;
        padding-inline: 0.25rem;
        font-weight: 600;
        cursor: pointer;
      }
      .switch input {
        inline-size: 1.5rem;
        block-size: 1.5rem;
        margin: 0;
        accent-color: var(--bo-accent);
      }
      .button--delete {
        color: var(--bo-danger);
      }
      .empty {
        color: var(--bo-muted);
      }
      @media (forced-colors: active) {
        .badge {
          border-color: CanvasText;
        }
      }
    `,
  ];

  static override properties = {
    ...StoreScreen.properties,
    rules: { state: true },
    clubs: { state: true },
    settings: { state: true },
    ruleEditing: { state: true },
    clubEditing: { state: true },
    newKind: { state: true },
    ruleErrors: { state: true },
    clubErrors: { state: true },
    saving: { state: true },
    switching: { state: true },
    toggleProblem: { state: true },
    listProblem: { state: true },
  };

  declare rules: AttributionRule[];
  declare clubs: Club[];
  /** The programme settings: the clubs are described by their policy. */
  declare settings: ProgramSettings | undefined;
  declare ruleEditing: Editing;
  declare clubEditing: Editing;
  /** The kind chosen in the create form. */
  declare newKind: RuleKind;
  declare ruleErrors: FormErrors;
  declare clubErrors: FormErrors;
  declare saving: boolean;
  /** The rule whose activation is being saved. */
  declare switching: number | undefined;
  declare toggleProblem: ToggleProblem | undefined;
  /** A deletion failed: shown at the top of the lists. */
  declare listProblem: unknown;

  constructor() {
    super();
    this.rules = [];
    this.clubs = [];
    this.settings = undefined;
    this.ruleEditing = undefined;
    this.clubEditing = undefined;
    this.newKind = "product";
    this.ruleErrors = NO_ERRORS;
    this.clubErrors = NO_ERRORS;
    this.saving = false;
    this.switching = undefined;
    this.toggleProblem = undefined;
    this.listProblem = undefined;
  }

  // Rules, clubs and settings arrive together: the lists take their place at once, nothing
  // below moves.
  readonly #programme = new Task(this, {
    task: async ([storeId], { signal }) => {
      const [rules, clubs, settings] = await Promise.all([
        api.call("listRules", { params: { storeId }, signal }),
        api.call("listClubs", { params: { storeId }, signal }),
        api.call("getProgramSettings", { params: { storeId }, signal }),
      ]);
      this.rules = rules;
      this.clubs = clubs;
      this.settings = settings;
      return true;
    },
    args: () => [this.store.id] as const,
  });

  protected override get screenTitle(): string {
    return msg("Programme");
  }

  #find<T extends Element>(selector: string): T | null {
    return this.renderRoot.querySelector<T>(selector);
  }

  async #focus(selector: string): Promise<void> {
    await this.updateComplete;
    const target = this.#find<HTMLElement>(selector);
    if (!target) return;
    if (!target.matches("button, input, select, textarea, a[href]")) target.tabIndex = -1;
    target.focus();
  }

  /** The programme changed: the preview computes its product again. */
  #programmeChanged(): void {
    void this.#find<HTMLElementTagNameMap["bo-points-preview"]>("bo-points-preview")?.refresh();
  }

  /* ---------- Rules ---------- */

  #openRule(editing: Editing): void {
    this.ruleEditing = editing;
    this.ruleErrors = NO_ERRORS;
    this.toggleProblem = undefined;
    if (editing === "new") this.newKind = "product";
    void this.#focus(editing === "new" ? "#rule-new-kind" : `#rule-${editing}-name`);
  }

  #closeRule(): void {
    const editing = this.ruleEditing;
    this.ruleEditing = undefined;
    this.ruleErrors = NO_ERRORS;
    void this.#focus(editing === "new" ? "#add-rule" : `#rule-${editing}-edit`);
  }

  async #saveRule(event: SubmitEvent, rule: AttributionRule | undefined): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.currentTarget as HTMLFormElement;
    const params = { storeId: this.store.id };
    this.saving = true;
    try {
      if (rule) {
        const saved = await api.call("updateRule", {
          params: { ...params, ruleId: rule.id },
          body: ruleUpdateBody(form),
        });
        this.rules = this.rules.map((item) => (item.id === saved.id ? saved : item));
        this.ruleEditing = undefined;
        announce(msg("Rule saved."));
        await this.#focus(`#rule-${saved.id}-edit`);
      } else {
        const created = await api.call("createRule", { params, body: ruleCreateBody(form) });
        this.rules = [...this.rules, created];
        this.ruleEditing = undefined;
        announce(msg("Rule created."));
        await this.#focus(`#rule-${created.id}-title`);
      }
      this.ruleErrors = NO_ERRORS;
      this.#programmeChanged();
    } catch (error) {
      this.ruleErrors = fieldErrors(error, ruleFieldMessages(rule?.kind ?? this.newKind));
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
    } finally {
      this.saving = false;
    }
  }

  async #toggleRule(rule: AttributionRule, event: Event): Promise<void> {
    const input = event.target as HTMLInputElement;
    // One change at a time: the switch keeps its focus (it is not disabled) but waits.
    if (this.switching !== undefined) {
      input.checked = !input.checked;
      return;
    }
    const active = input.checked;
    this.switching = rule.id;
    this.toggleProblem = undefined;
    try {
      const saved = await api.call("updateRule", {
        params: { storeId: this.store.id, ruleId: rule.id },
        body: { active },
      });
      this.rules = this.rules.map((item) => (item.id === saved.id ? saved : item));
      announce(saved.active ? msg("Rule activated.") : msg("Rule deactivated."));
      this.#programmeChanged();
    } catch (error) {
      this.toggleProblem = { ruleId: rule.id, error };
    } finally {
      this.switching = undefined;
    }
  }

  async #deleteRule(rule: AttributionRule): Promise<void> {
    const confirmed = await confirmAction({
      heading: msg(str`Delete the rule “${ruleTitle(rule)}”?`),
      body: msg(
        "Orders already credited keep their points, and refunds still deduct what they earned. New orders no longer use this rule.",
      ),
      confirmLabel: msg("Delete the rule"),
      destructive: true,
    });
    if (!confirmed) return;
    this.listProblem = undefined;
    try {
      await api.call("deleteRule", { params: { storeId: this.store.id, ruleId: rule.id } });
      this.rules = this.rules.filter((item) => item.id !== rule.id);
      if (this.ruleEditing === rule.id) this.ruleEditing = undefined;
      announce(msg(str`Rule “${ruleTitle(rule)}” deleted.`));
      await this.#focus("#rules-heading");
      this.#programmeChanged();
    } catch (error) {
      this.listProblem = error;
      await this.#focus("#list-problem");
    }
  }

  /* ---------- Clubs ---------- */

  #openClub(editing: Editing): void {
    this.clubEditing = editing;
    this.clubErrors = NO_ERRORS;
    void this.#focus(editing === "new" ? "#club-new-name" : `#club-${editing}-name`);
  }

  #closeClub(): void {
    const editing = this.clubEditing;
    this.clubEditing = undefined;
    this.clubErrors = NO_ERRORS;
    void this.#focus(editing === "new" ? "#add-club" : `#club-${editing}-edit`);
  }

  async #saveClub(event: SubmitEvent, club: Club | undefined): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const form = event.currentTarget as HTMLFormElement;
    const params = { storeId: this.store.id };
    this.saving = true;
    try {
      if (club) {
        const saved = await api.call("updateClub", {
          params: { ...params, clubId: club.id },
          body: clubBody(form),
        });
        this.clubs = this.clubs.map((item) => (item.id === saved.id ? saved : item));
        this.clubEditing = undefined;
        announce(msg("Club saved."));
        await this.#focus(`#club-${saved.id}-edit`);
      } else {
        const created = await api.call("createClub", { params, body: clubBody(form) });
        this.clubs = [...this.clubs, created];
        this.clubEditing = undefined;
        announce(msg("Club created."));
        await this.#focus(`#club-${created.id}-title`);
      }
      this.clubErrors = NO_ERRORS;
      this.#programmeChanged();
    } catch (error) {
      this.clubErrors = fieldErrors(error, clubFieldMessages());
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
    } finally {
      this.saving = false;
    }
  }

  async #deleteClub(club: Club): Promise<void> {
    const confirmed = await confirmAction({
      heading: msg(str`Delete the club “${club.name}”?`),
      body: msg(
        "Its members belong to the highest club they still reach, if any. Points already earned do not change.",
      ),
      confirmLabel: msg("Delete the club"),
      destructive: true,
    });
    if (!confirmed) return;
    this.listProblem = undefined;
    try {
      await api.call("deleteClub", { params: { storeId: this.store.id, clubId: club.id } });
      this.clubs = this.clubs.filter((item) => item.id !== club.id);
      if (this.clubEditing === club.id) this.clubEditing = undefined;
      announce(msg(str`Club “${club.name}” deleted.`));
      await this.#focus("#clubs-heading");
      this.#programmeChanged();
    } catch (error) {
      this.listProblem = error;
      await this.#focus("#list-problem");
    }
  }

  /* ---------- Rendering ---------- */

  protected override render() {
    return html`<h1>${this.screenTitle}</h1>
      <p class="intro">
        ${msg(
          "How customers earn points: the attribution rules by product, category or default, the clubs and their multipliers, and the programme settings.",
        )}
      </p>
      <div class="layout">
        ${taskView(this.#programme, {
          class: "lists",
          label: msg("Loading the rules and clubs"),
          ready: () =>
            html`${
                this.listProblem === undefined
                  ? nothing
                  : html`<div class="alert" role="alert" id="list-problem">
                      ${problemMessage(this.listProblem)}
                    </div>`
              }
              ${this.#renderRules()} ${this.#renderClubs()}
              <bo-program-settings-section
                .storeId=${this.store.id}
                .settings=${this.settings}
                @settings-saved=${(event: CustomEvent<ProgramSettings>) => {
                  this.settings = event.detail;
                }}
              ></bo-program-settings-section>`,
        })}
        <section class="preview card" aria-labelledby="preview-heading">
          <h2 id="preview-heading">${msg("What would a product earn?")}</h2>
          <p class="muted">
            ${msg(
              "Computed with the active rules and clubs, as the storefront and the orders compute it.",
            )}
          </p>
          <bo-points-preview .store=${this.store}></bo-points-preview>
        </section>
      </div>`;
  }

  #renderRules(): TemplateResult {
    return html`<section aria-labelledby="rules-heading">
      <div class="section-head">
        <h2 id="rules-heading">${msg("Attribution rules")}</h2>
        <button
          class="button"
          id="add-rule"
          aria-expanded=${this.ruleEditing === "new" ? "true" : "false"}
          @click=${() => this.#openRule("new")}
        >
          ${msg("Add a rule")}
        </button>
      </div>
      <div class="explain">
        <p>${msg("Each product of an order earns under one rule, the first that exists of:")}</p>
        <ol>
          <li>${msg("its product rule;")}</li>
          <li>
            ${msg(
              "a rule of one of its categories: when several match, the one giving the most points;",
            )}
          </li>
          <li>${msg("the default rule.")}</li>
        </ol>
        <p class="muted">
          ${msg(
            "Inactive rules are skipped. Points are whole numbers, rounded down for each order line; a customer's club may multiply them.",
          )}
        </p>
      </div>
      ${this.ruleEditing === "new" ? this.#ruleForm(undefined) : nothing}
      ${KINDS.map((kind) => this.#renderKind(kind))}
    </section>`;
  }

  #renderKind(kind: RuleKind): TemplateResult {
    const rules = this.rules
      .filter((rule) => rule.kind === kind)
      .sort((a, b) => Number(b.active) - Number(a.active) || (a.targetId ?? 0) - (b.targetId ?? 0));
    const heading = {
      product: msg("Product rules"),
      category: msg("Category rules"),
      default: msg("Default rule"),
    }[kind];
    const empty = {
      product: msg("No product rule."),
      category: msg("No category rule."),
      default: msg("No default rule: products without a product or category rule earn no points."),
    }[kind];
    return html`<h3 id="kind-${kind}">${heading}</h3>
      ${
        rules.length === 0
          ? html`<p class="empty">${empty}</p>`
          : html`<ul class="items" aria-labelledby="kind-${kind}">
              ${rules.map((rule) => this.#renderRule(rule))}
            </ul>`
      }`;
  }

  #ruleForm(rule: AttributionRule | undefined): TemplateResult {
    return ruleForm({
      rule,
      prefix: rule ? `rule-${rule.id}` : "rule-new",
      kind: this.newKind,
      currency: this.store.currency,
      errors: this.ruleErrors,
      saving: this.saving,
      onKindChange: (kind) => (this.newKind = kind),
      onSubmit: (event) => void this.#saveRule(event, rule),
      onCancel: () => this.#closeRule(),
    });
  }

  #renderRule(rule: AttributionRule): TemplateResult {
    if (this.ruleEditing === rule.id) return html`<li>${this.#ruleForm(rule)}</li>`;
    const title = ruleTitle(rule);
    const problem = this.toggleProblem?.ruleId === rule.id ? this.toggleProblem.error : undefined;
    return html`<li class="item ${rule.active ? "" : "item--inactive"}">
      <div class="item__main">
        <h4 class="item__title" id="rule-${rule.id}-title">
          ${title}${rule.active ? nothing : html`<span class="badge">${msg("Inactive")}</span>`}
        </h4>
        ${rule.name ? html`<p class="muted">${targetText(rule)}</p>` : nothing}
        <p>${ruleEarning(rule, this.store.currency)}</p>
      </div>
      <div class="item__actions">
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            .checked=${live(rule.active)}
            aria-disabled=${this.switching === rule.id ? "true" : "false"}
            @change=${(event: Event) => void this.#toggleRule(rule, event)}
          />
          ${msg("Active")}<span class="visually-hidden"> ${title}</span>
        </label>
        <button class="button" id="rule-${rule.id}-edit" @click=${() => this.#openRule(rule.id)}>
          ${msg("Edit")}<span class="visually-hidden"> ${title}</span>
        </button>
        <button
          class="button button--quiet button--delete"
          @click=${() => void this.#deleteRule(rule)}
        >
          ${msg("Delete")}<span class="visually-hidden"> ${title}</span>
        </button>
      </div>
      ${problem === undefined ? nothing : this.#toggleAlert(rule, problem)}
    </li>`;
  }

  #toggleAlert(rule: AttributionRule, error: unknown): TemplateResult {
    const conflict =
      error instanceof ApiError && error.issues.some((issue) => issue.code === "conflict");
    return html`<div class="alert" role="alert">
      ${
        conflict
          ? html`<p>
              <strong
                >${msg(
                  str`${kindLabel(rule.kind)} not activated: another active rule has the same target. Deactivate it first.`,
                )}</strong
              >
            </p>`
          : nothing
      }
      ${problemMessage(error)}
    </div>`;
  }

  #renderClubs(): TemplateResult {
    const clubs = [...this.clubs].sort((a, b) => a.threshold - b.threshold);
    return html`<section aria-labelledby="clubs-heading">
      <div class="section-head">
        <h2 id="clubs-heading">${msg("Clubs")}</h2>
        <button
          class="button"
          id="add-club"
          aria-expanded=${this.clubEditing === "new" ? "true" : "false"}
          @click=${() => this.#openClub("new")}
        >
          ${msg("Add a club")}
        </button>
      </div>
      <p class="explain">
        ${msg(
          "A customer belongs to the highest club whose threshold they reach, counted as the programme settings below say. The club's multiplier applies to the points of their next orders.",
        )}
      </p>
      ${this.clubEditing === "new" ? this.#clubForm(undefined) : nothing}
      ${
        clubs.length === 0
          ? html`<p class="empty">${msg("No club: every customer earns the same points.")}</p>`
          : html`<ul class="items" aria-labelledby="clubs-heading">
              ${clubs.map((club) => this.#renderClub(club))}
            </ul>`
      }
    </section>`;
  }

  /** How the store counts its clubs' thresholds (the spec's way until its settings load). */
  get #clubPolicy(): ClubPolicy {
    return this.settings?.clubs ?? DEFAULT_CLUB_POLICY;
  }

  #clubForm(club: Club | undefined): TemplateResult {
    return clubForm({
      club,
      policy: this.#clubPolicy,
      prefix: club ? `club-${club.id}` : "club-new",
      errors: this.clubErrors,
      saving: this.saving,
      onSubmit: (event) => void this.#saveClub(event, club),
      onCancel: () => this.#closeClub(),
    });
  }

  #renderClub(club: Club): TemplateResult {
    if (this.clubEditing === club.id) return html`<li>${this.#clubForm(club)}</li>`;
    return html`<li class="item">
      <div class="item__main">
        <h3 class="item__title" id="club-${club.id}-title">${club.name}</h3>
        <p class="muted">${clubThreshold(club, this.#clubPolicy, this.store.currency)}</p>
        <p>${clubEarning(club)}</p>
      </div>
      <div class="item__actions">
        <button class="button" id="club-${club.id}-edit" @click=${() => this.#openClub(club.id)}>
          ${msg("Edit")}<span class="visually-hidden"> ${club.name}</span>
        </button>
        <button
          class="button button--quiet button--delete"
          @click=${() => void this.#deleteClub(club)}
        >
          ${msg("Delete")}<span class="visually-hidden"> ${club.name}</span>
        </button>
      </div>
    </li>`;
  }
}

define("bo-programme-screen", ProgrammeScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-programme-screen": ProgrammeScreen;
  }
}
