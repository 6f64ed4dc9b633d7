import { msg, str } from "@lit/localize";
import { Task, TaskStatus } from "@lit/task";
import {
  OVERVIEW_MAX_DAYS,
  programOverviewQuerySchema,
  type ProgramOverview,
} from "@loyalty/shared-types";
import { css, html, nothing, type PropertyValues, type TemplateResult } from "lit";
import { api } from "../api/client.js";
import { ApiError, RequestValidationError, issuesFromZod } from "../api/errors.js";
import { StoreScreen } from "../app/screen.js";
import { storePath } from "../app/navigation.js";
import { intlLocale } from "../i18n/locale.js";
import { define } from "../ui/element.js";
import { NO_ERRORS, focusFirstProblem, type FormErrors } from "../ui/field-errors.js";
import { formText } from "../ui/form-data.js";
import { fieldStyles, inputField } from "../ui/form-field.js";
import { formProblem } from "../ui/form-problem.js";
import {
  formatCurrency,
  formatDate,
  formatNumber,
  formatPercent,
  formatPoints,
} from "../ui/format.js";
import "../ui/state-view.js";
import { base, screenStyles } from "../ui/styles.js";
import "./overview/overview-chart.js";
import type { ChartDay, ChartSeries } from "./overview/overview-chart.js";
import { fieldErrors } from "../ui/field-errors.js";

/** The periods offered in one click, in days up to today. */
const PRESETS = [7, 30, 90, 365] as const;
type Preset = (typeof PRESETS)[number];
/** What the server shows without a period: the last 30 days. */
const DEFAULT_PRESET: Preset = 30;

/** A period: the last days up to today, or two days chosen by the user (ISO dates, UTC). */
type Period = { days: Preset } | { from: string; to: string };

const DAY_MS = 86_400_000;

/*
 * Two series per chart, told apart by more than their colour (a dashed line, the legend, the
 * table). Both colours keep 3:1 against the white surface: blue 6.7:1, amber 5.0:1.
 */
const FIRST_SERIES = "#1d4ed8";
const SECOND_SERIES = "#b45309";

function isoDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The period the URL names (`?days=7`, `?from=2026-09-01&to=2026-09-30`), else 30 days. */
function periodFromUrl(): Period {
  const query = new URLSearchParams(location.search);
  const from = query.get("from");
  const to = query.get("to");
  if (from !== null || to !== null) return { from: from ?? "", to: to ?? "" };
  const days = Number(query.get("days"));
  const preset = PRESETS.find((candidate) => candidate === days);
  return { days: preset ?? DEFAULT_PRESET };
}

/** The first and last day of a period; the last days end today, as the server counts (UTC). */
function rangeOf(period: Period): { from: string; to: string } {
  if ("from" in period) return period;
  const today = Date.now();
  return { from: isoDay(today - (period.days - 1) * DAY_MS), to: isoDay(today) };
}

/** This screen's URL for a period: a reload or a shared link shows the same figures. */
function urlOf(period: Period): string {
  const query = new URLSearchParams(
    "from" in period ? { from: period.from, to: period.to } : { days: String(period.days) },
  );
  return `${location.pathname}?${query.toString()}`;
}

/** Whether an error is about the period asked for (the URL's or the server's verdict). */
function isPeriodProblem(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.reason === "validation-failed" &&
    error.issues.some((issue) => issue.location === "query")
  );
}

function dayOnAxis(date: string): string {
  return new Intl.DateTimeFormat(intlLocale(), {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  }).format(new Date(date));
}

interface ChartInputs {
  days: ChartDay[];
  orders: ChartSeries[];
  points: ChartSeries[];
}

/**
 * Overview: the programme at a glance over a period: members, points by cause, what the points
 * still owed are worth, orders and claims per day, and the most claimed rewards.
 */
export class OverviewScreen extends StoreScreen {
  static override styles = [
    base,
    screenStyles,
    fieldStyles,
    css`
      .picker {
        margin-block-end: 0.75rem;
      }
      fieldset {
        min-inline-size: 0;
        margin: 0;
        padding: 0;
        border: 0;
      }
      legend {
        padding: 0;
        margin-block-end: 0.4rem;
        font-weight: 600;
      }
      .choices {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      .choice {
        display: inline-flex;
        align-items: center;
        gap: 0.45rem;
        min-block-size: 2.5rem;
        padding: 0.35rem 0.85rem;
        border: 1px solid var(--bo-control-border);
        border-radius: 999px;
        background: var(--bo-surface);
        cursor: pointer;
      }
      .choice:has(input:checked) {
        border-color: var(--bo-accent);
        background: var(--bo-accent-soft);
        font-weight: 600;
      }
      .choice:has(input:focus-visible) {
        outline: 3px solid var(--bo-focus);
        outline-offset: 2px;
      }
      .choice input {
        inline-size: 1rem;
        block-size: 1rem;
        margin: 0;
        accent-color: var(--bo-accent);
      }
      .choice input:focus-visible {
        outline: none;
      }
      .custom {
        display: flex;
        flex-wrap: wrap;
        align-items: flex-start;
        gap: 0 1rem;
        margin-block-start: 1rem;
      }
      .custom .field {
        flex: 1 1 10rem;
        max-inline-size: 14rem;
      }
      .custom .button {
        margin-block-start: 1.8rem;
        margin-block-end: var(--bo-space);
      }
      .custom .alert {
        flex: 1 1 100%;
      }
      .period {
        min-block-size: 1.5rem;
        color: var(--bo-muted);
      }
      section {
        margin-block-end: 1.75rem;
      }
      /* Members and the points owed: two short rows side by side on a wide screen. */
      .pair {
        display: grid;
        column-gap: 1.5rem;
      }
      @media (min-width: 48rem) {
        .pair {
          grid-template-columns: repeat(2, minmax(0, 1fr));
        }
      }
      .tiles {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(min(100%, 8.5rem), 1fr));
        gap: 0.75rem;
        margin: 0;
      }
      .tile {
        display: flex;
        flex-direction: column;
        gap: 0.25rem;
        min-inline-size: 0;
        padding: 0.85rem 1rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
        background: var(--bo-surface);
      }
      .tile dt {
        color: var(--bo-muted);
        font-weight: 600;
        font-size: 0.9375rem;
      }
      .tile dd {
        margin: 0;
      }
      .tile__value {
        min-block-size: 2rem;
        font-size: 1.5rem;
        font-weight: 700;
        line-height: 2rem;
        font-variant-numeric: tabular-nums;
        overflow-wrap: anywhere;
      }
      .tile__hint {
        color: var(--bo-muted);
        font-size: 0.875rem;
      }
      /* Two lines in every state: a value per point, or the link to create a reward, wraps. */
      .tile__detail {
        min-block-size: 2lh;
      }
      .skeleton {
        display: block;
        block-size: 1.5rem;
        inline-size: 60%;
        margin-block: 0.25rem;
        border-radius: 4px;
        background: var(--bo-skeleton);
      }
      .skeleton--line {
        display: inline-block;
        vertical-align: middle;
        block-size: 1em;
        inline-size: 5rem;
        margin: 0;
      }
      .charts {
        display: grid;
        gap: 1rem;
      }
      @media (min-width: 60rem) {
        .charts {
          grid-template-columns: repeat(2, minmax(0, 1fr));
        }
      }
      .chart {
        min-inline-size: 0;
      }
      h3 {
        margin: 0 0 0.75rem;
        font-size: 1.0625rem;
      }
      /* The chart (16rem), the table's disclosure under it: the same space in every state. */
      .chart__body {
        min-block-size: 18.25rem;
      }
      .chart__placeholder {
        block-size: 16rem;
        border-radius: 4px;
        background: var(--bo-skeleton);
      }
      .chart__empty {
        display: grid;
        place-content: center;
        gap: 0.25rem;
        min-block-size: 18.25rem;
        padding: 1rem;
        border: 1px dashed var(--bo-control-border);
        border-radius: var(--bo-radius);
        text-align: center;
      }
      .chart__empty p {
        margin: 0;
      }
      .rewards {
        min-block-size: 8rem;
      }
      table {
        inline-size: 100%;
        border-collapse: collapse;
        background: var(--bo-surface);
        font-variant-numeric: tabular-nums;
      }
      th,
      td {
        padding: 0.5rem 0.75rem;
        border-block-end: 1px solid var(--bo-border);
        text-align: end;
      }
      th:first-child {
        text-align: start;
        overflow-wrap: anywhere;
      }
      tbody th {
        font-weight: 400;
      }
      @media (forced-colors: active) {
        .skeleton,
        .chart__placeholder {
          border: 1px solid GrayText;
        }
        .choice:has(input:checked) {
          border: 2px solid Highlight;
        }
      }
    `,
  ];

  static override properties = {
    ...StoreScreen.properties,
    period: { state: true },
    choice: { state: true },
    customErrors: { state: true },
  };

  /** The period shown. */
  declare period: Period;
  /** The picker's selection: a preset shows at once; "custom" waits for two days. */
  declare choice: Preset | "custom";
  declare customErrors: FormErrors;
  #chartInputs: { data: ProgramOverview; locale: string; inputs: ChartInputs } | undefined;

  constructor() {
    super();
    this.period = periodFromUrl();
    this.choice = "days" in this.period ? this.period.days : "custom";
    this.customErrors = NO_ERRORS;
  }

  readonly #overview = new Task(this, {
    task: ([storeId, from, to], { signal }) =>
      api.call("getProgramOverview", { params: { storeId }, query: { from, to }, signal }),
    args: () => {
      const { from, to } = rangeOf(this.period);
      return [this.store.id, from, to] as const;
    },
  });

  protected override get screenTitle(): string {
    return msg("Overview");
  }

  #choosePreset(days: Preset): void {
    this.choice = days;
    this.customErrors = NO_ERRORS;
    this.#show({ days });
  }

  #show(period: Period): void {
    this.period = period;
    history.replaceState(history.state, "", urlOf(period));
  }

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    // Another store in the same screen (the store switcher): its URL shows the same period.
    const chosen = !("days" in this.period && this.period.days === DEFAULT_PRESET);
    if (changed.has("store") && changed.get("store") !== undefined && chosen) {
      if (location.search === "") history.replaceState(history.state, "", urlOf(this.period));
    }
  }

  async #applyCustom(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const from = formText(data, "from").trim();
    const to = formText(data, "to").trim();
    const errors = this.#checkCustom(from, to);
    this.customErrors = errors;
    if (errors !== NO_ERRORS) {
      await this.updateComplete;
      focusFirstProblem(this.renderRoot);
      return;
    }
    this.#show({ from, to });
  }

  /** Both days given, then the operation's own query schema. */
  #checkCustom(from: string, to: string): FormErrors {
    const required = msg("This field is required.");
    if (from === "" || to === "") {
      return {
        fields: {
          ...(from === "" ? { from: required } : {}),
          ...(to === "" ? { to: required } : {}),
        },
        problem: undefined,
        otherIssues: [],
      };
    }
    const result = programOverviewQuerySchema.safeParse({ from, to });
    if (result.success) return NO_ERRORS;
    return this.#periodErrors(
      new RequestValidationError(issuesFromZod(result.error, "query")),
      from,
      to,
    );
  }

  #periodErrors(error: unknown, from: string, to: string): FormErrors {
    const day = msg("Enter a day, such as 2026-09-30.");
    // The schema refuses a start after the end, and a period longer than the server reads.
    const range =
      /^\d{4}-\d{2}-\d{2}$/.test(from) && /^\d{4}-\d{2}-\d{2}$/.test(to) && from > to
        ? msg("The first day must be on or before the last day.")
        : msg(str`Choose a period of at most ${formatNumber(OVERVIEW_MAX_DAYS)} days.`);
    return fieldErrors(
      error,
      { from: /^\d{4}-\d{2}-\d{2}$/.test(from) ? range : day, to: day },
      "query",
    );
  }

  protected override render() {
    const task = this.#overview;
    const data = task.status === TaskStatus.COMPLETE ? task.value : undefined;
    const error = task.status === TaskStatus.ERROR ? task.error : undefined;
    const range = rangeOf(this.period);
    const periodProblem = isPeriodProblem(error);
    const customErrors =
      this.customErrors !== NO_ERRORS
        ? this.customErrors
        : periodProblem
          ? this.#periodErrors(error, range.from, range.to)
          : NO_ERRORS;

    return html`<h1>${this.screenTitle}</h1>
      <p class="intro">
        ${msg(
          "The programme at a glance: members, points earned and spent, what the points still owed are worth, and the most claimed rewards.",
        )}
      </p>
      ${this.#renderPicker(range, customErrors)}
      <p class="period" role="status">
        ${
          data
            ? msg(
                str`Figures from ${formatDate(data.period.from)} to ${formatDate(data.period.to)} (days in UTC).`,
              )
            : error === undefined
              ? msg("Loading the figures…")
              : nothing
        }
      </p>
      ${
        periodProblem
          ? html`<p>${msg("Choose a valid period to see the figures.")}</p>`
          : error !== undefined
            ? html`<bo-state-view
                state="error"
                .error=${error}
                @retry=${() => void task.run()}
              ></bo-state-view>`
            : this.#renderFigures(data)
      }`;
  }

  #renderPicker(range: { from: string; to: string }, errors: FormErrors): TemplateResult {
    const custom = this.choice === "custom";
    return html`<form class="picker" novalidate @submit=${this.#applyCustom}>
      <fieldset>
        <legend>${msg("Period")}</legend>
        <div class="choices">
          ${PRESETS.map(
            (days) =>
              html`<label class="choice">
                <input
                  type="radio"
                  name="period"
                  value=${days}
                  .checked=${this.choice === days}
                  @change=${() => this.#choosePreset(days)}
                />
                <span>${msg(str`Last ${formatNumber(days)} days`)}</span>
              </label>`,
          )}
          <label class="choice">
            <input
              type="radio"
              name="period"
              value="custom"
              .checked=${custom}
              @change=${() => (this.choice = "custom")}
            />
            <span>${msg("Custom dates")}</span>
          </label>
        </div>
      </fieldset>
      ${
        custom
          ? html`<div class="custom">
              ${formProblem(errors)}
              ${inputField({
                name: "from",
                id: "period-from",
                label: msg("From"),
                type: "date",
                value: range.from,
                required: true,
                error: errors.fields["from"],
              })}
              ${inputField({
                name: "to",
                id: "period-to",
                label: msg("To"),
                type: "date",
                value: range.to,
                required: true,
                error: errors.fields["to"],
              })}
              <button class="button button--primary">${msg("Show these days")}</button>
            </div>`
          : nothing
      }
    </form>`;
  }

  #renderFigures(data: ProgramOverview | undefined): TemplateResult {
    const currency = data?.currency ?? this.store.currency;
    const rate = data?.redemptionRate;
    const liability = data?.liability;
    return html`<div aria-busy=${data ? "false" : "true"}>
      <div class="pair">
        <section aria-labelledby="members-heading">
          <h2 id="members-heading">${msg("Members")}</h2>
          <dl class="tiles">
            ${tile(msg("Members"), data && formatNumber(data.members), {
              hint: msg("Customers known to the programme."),
            })}
            ${tile(msg("Active members"), data && formatNumber(data.activeMembers), {
              hint: msg("With points activity in the last 30 days."),
            })}
          </dl>
        </section>
        <section aria-labelledby="owed-heading">
          <h2 id="owed-heading">${msg("Points still owed")}</h2>
          <dl class="tiles">
            ${tile(msg("Outstanding points"), data && formatNumber(data.outstandingPoints), {
              hint: msg("What customers can still spend, today."),
            })}
            ${tile(
              msg("Liability"),
              liability === null
                ? notAvailable()
                : liability && formatCurrency(liability.amount, currency),
              {
                // The lines the loading tile kept, with the same words: nothing below moves.
                hint: msg("At the best value per point among your fixed-amount rewards."),
                detail:
                  liability === null
                    ? html`<a href=${storePath(this.store.id, "rewards")}
                        >${msg("None yet: create one")}</a
                      >`
                    : liability
                      ? msg(
                          str`${formatNumber(liability.valuePerPoint, {
                            style: "currency",
                            currency,
                            maximumFractionDigits: 4,
                          })} a point`,
                        )
                      : false,
              },
            )}
          </dl>
        </section>
      </div>
      <section aria-labelledby="points-heading">
        <h2 id="points-heading">${msg("Points in this period")}</h2>
        <dl class="tiles">
          ${tile(msg("Earned"), data && formatNumber(data.points.earned), {
            hint: msg("On the orders credited."),
          })}
          ${tile(msg("Bonuses"), data && formatNumber(data.points.bonuses), {
            hint: msg("Referral bonuses."),
          })}
          ${tile(msg("Redeemed"), data && formatNumber(data.points.redeemed), {
            hint: msg("Spent on rewards."),
          })}
          ${tile(msg("Deducted"), data && formatNumber(data.points.deducted), {
            hint: msg("Taken back by refunds and cancellations."),
          })}
          ${tile(msg("Adjusted"), data && formatNumber(data.points.adjusted), {
            hint: msg("Manual adjustments, net."),
          })}
          ${tile(msg("Expired"), data && formatNumber(data.points.expired), {
            hint: msg("Past their validity."),
          })}
          ${tile(
            msg("Redemption rate"),
            data && (rate === null || rate === undefined ? notAvailable() : formatPercent(rate)),
            {
              hint:
                data && rate === null
                  ? msg("No points earned in this period.")
                  : msg("Redeemed out of earned and bonuses."),
            },
          )}
        </dl>
      </section>
      <section aria-labelledby="daily-heading">
        <h2 id="daily-heading">${msg("Activity per day")}</h2>
        ${this.#renderCharts(data)}
      </section>
      <section aria-labelledby="top-heading">
        <h2 id="top-heading">${msg("Most claimed rewards")}</h2>
        <div class="rewards">${this.#renderTopRewards(data)}</div>
      </section>
    </div>`;
  }

  /** The charts' data, computed once per answer and language (a new array redraws a chart). */
  #inputs(data: ProgramOverview): ChartInputs {
    const locale = intlLocale();
    const cached = this.#chartInputs;
    if (cached?.data === data && cached.locale === locale) return cached.inputs;
    const inputs: ChartInputs = {
      days: data.daily.map((day) => ({ axis: dayOnAxis(day.date), full: formatDate(day.date) })),
      orders: [
        {
          label: msg("Orders credited"),
          values: data.daily.map((day) => day.ordersCredited),
          color: FIRST_SERIES,
        },
        {
          label: msg("Rewards claimed"),
          values: data.daily.map((day) => day.claims),
          color: SECOND_SERIES,
        },
      ],
      points: [
        {
          label: msg("Points earned"),
          values: data.daily.map((day) => day.pointsEarned),
          color: FIRST_SERIES,
        },
        {
          label: msg("Points redeemed"),
          values: data.daily.map((day) => day.pointsRedeemed),
          color: SECOND_SERIES,
          dashed: true,
        },
      ],
    };
    this.#chartInputs = { data, locale, inputs };
    return inputs;
  }

  #renderCharts(data: ProgramOverview | undefined): TemplateResult {
    const inputs = data && this.#inputs(data);
    const from = data ? formatDate(data.period.from) : "";
    const to = data ? formatDate(data.period.to) : "";
    const noOrders = data?.daily.every((day) => day.ordersCredited === 0 && day.claims === 0);
    const noPoints = data?.daily.every((day) => day.pointsEarned === 0 && day.pointsRedeemed === 0);
    const ordersHeading = msg("Orders credited and rewards claimed");
    const pointsHeading = msg("Points earned and redeemed");
    return html`<div class="charts">
      <div class="chart card">
        <h3>${ordersHeading}</h3>
        <div class="chart__body">
          ${
            !inputs
              ? html`<div class="chart__placeholder"></div>`
              : noOrders
                ? html`<div class="chart__empty">
                    <p><strong>${msg("No orders credited in this period yet.")}</strong></p>
                    <p class="muted">
                      ${msg(
                        "Orders show here once your store registers them and their points are credited. Try a longer period.",
                      )}
                    </p>
                  </div>`
                : html`<bo-overview-chart
                    type="bar"
                    heading=${ordersHeading}
                    description=${msg(
                      str`Bar chart of the orders credited and the rewards claimed each day, from ${from} to ${to}. The figures are in the table below.`,
                    )}
                    .dayHeader=${msg("Day")}
                    .days=${inputs.days}
                    .series=${inputs.orders}
                  ></bo-overview-chart>`
          }
        </div>
      </div>
      <div class="chart card">
        <h3>${pointsHeading}</h3>
        <div class="chart__body">
          ${
            !inputs
              ? html`<div class="chart__placeholder"></div>`
              : noPoints
                ? html`<div class="chart__empty">
                    <p>
                      <strong>${msg("No points earned or redeemed in this period yet.")}</strong>
                    </p>
                    <p class="muted">
                      ${msg("Points show here as customers earn them and spend them on rewards.")}
                    </p>
                  </div>`
                : html`<bo-overview-chart
                    type="line"
                    heading=${pointsHeading}
                    description=${msg(
                      str`Line chart of the points earned and the points redeemed each day, from ${from} to ${to}. The figures are in the table below.`,
                    )}
                    .dayHeader=${msg("Day")}
                    .days=${inputs.days}
                    .series=${inputs.points}
                  ></bo-overview-chart>`
          }
        </div>
      </div>
    </div>`;
  }

  #renderTopRewards(data: ProgramOverview | undefined): TemplateResult {
    if (!data) {
      return html`<span class="skeleton"></span><span class="skeleton"></span>`;
    }
    if (data.topRewards.length === 0) {
      return html`<p class="muted">${msg("No reward claimed in this period yet.")}</p>`;
    }
    return html`<table aria-labelledby="top-heading">
      <thead>
        <tr>
          <th scope="col">${msg("Reward")}</th>
          <th scope="col">${msg("Claims")}</th>
          <th scope="col">${msg("Points spent")}</th>
        </tr>
      </thead>
      <tbody>
        ${data.topRewards.map(
          (reward) =>
            html`<tr>
              <th scope="row">${reward.name}</th>
              <td>${formatNumber(reward.claims)}</td>
              <td>${formatPoints(reward.points)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  }
}

/**
 * A figure with its label and a hint; `value` undefined while loading (a placeholder of the
 * value's height keeps the tile's size).
 */
/** A figure there is none of (no rate without points earned): a dash, "Not available" to hear. */
function notAvailable(): TemplateResult {
  return html`<span aria-hidden="true">—</span
    ><span class="visually-hidden">${msg("Not available")}</span>`;
}

function tile(
  label: string,
  value: string | TemplateResult | undefined,
  {
    hint,
    detail,
  }: {
    hint?: string;
    /** A line under the hint; false while loading (a placeholder keeps its line). */
    detail?: string | TemplateResult | false;
  } = {},
): TemplateResult {
  return html`<div class="tile">
    <dt>${label}</dt>
    <dd class="tile__value">
      ${value === undefined ? html`<span class="skeleton"></span>` : value}
    </dd>
    ${hint ? html`<dd class="tile__hint">${hint}</dd>` : nothing}
    ${
      detail === undefined
        ? nothing
        : html`<dd class="tile__hint tile__detail">
            ${detail === false ? html`<span class="skeleton skeleton--line"></span>` : detail}
          </dd>`
    }
  </div>`;
}

define("bo-overview-screen", OverviewScreen);

declare global {
  interface HTMLElementTagNameMap {
    "bo-overview-screen": OverviewScreen;
  }
}
