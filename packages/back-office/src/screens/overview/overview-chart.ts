import { msg } from "@lit/localize";
import type { Chart, ChartConfiguration, ChartDataset } from "chart.js";
import { css, html, type PropertyValues } from "lit";
import { intlLocale } from "../../i18n/locale.js";
import { BoElement, define } from "../../ui/element.js";
import { formatNumber } from "../../ui/format.js";
import { base } from "../../ui/styles.js";

export interface ChartSeries {
  label: string;
  values: readonly number[];
  /** At least 3:1 against the surface (WCAG 1.4.11): the bars and lines are the content. */
  color: string;
  /** A dashed line with triangles: the second series differs by more than its colour. */
  dashed?: boolean;
}

export interface ChartDay {
  /** Under the axis: short (`13 Sep`). */
  axis: string;
  /** In the table: the full day. */
  full: string;
}

function token(element: Element, name: string, fallback: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim() || fallback;
}

/**
 * A chart of figures per day (chart.js, loaded on first use), with its text alternative: the
 * canvas is an image described in words, and the same figures are in a table behind a
 * disclosure, for screen readers, keyboards and forced colours. The frame keeps its height
 * while chart.js loads and when the data changes: nothing below it moves.
 *
 * @summary A daily chart with its data table.
 */
export class OverviewChart extends BoElement {
  static override styles = [
    base,
    css`
      :host {
        display: block;
        /* In a grid or flex row, the chart takes the room it is given, never more. */
        min-inline-size: 0;
      }
      .frame {
        position: relative;
        block-size: 16rem;
        inline-size: 100%;
        /* chart.js sizes the canvas after a resize: until then it must not widen the page. */
        overflow: hidden;
      }
      .frame--loading {
        border-radius: 4px;
        background: var(--bo-skeleton);
      }
      canvas {
        display: block;
        max-inline-size: 100%;
      }
      details {
        margin-block-start: 0.75rem;
      }
      summary {
        display: inline-flex;
        align-items: center;
        min-block-size: 1.5rem;
        color: var(--bo-accent);
        font-weight: 600;
        cursor: pointer;
      }
      .table-scroll {
        max-block-size: 20rem;
        overflow: auto;
        margin-block-start: 0.5rem;
        border: 1px solid var(--bo-border);
        border-radius: var(--bo-radius);
      }
      table {
        inline-size: 100%;
        border-collapse: collapse;
        font-variant-numeric: tabular-nums;
      }
      th,
      td {
        padding: 0.35rem 0.6rem;
        border-block-end: 1px solid var(--bo-border);
        text-align: end;
      }
      th:first-child,
      td:first-child {
        text-align: start;
      }
      thead th {
        position: sticky;
        inset-block-start: 0;
        background: var(--bo-surface);
      }
      @media (forced-colors: active) {
        .frame--loading {
          border: 1px solid GrayText;
        }
      }
    `,
  ];

  static override properties = {
    type: {},
    heading: {},
    description: {},
    dayHeader: { attribute: false },
    days: { attribute: false },
    series: { attribute: false },
    drawn: { state: true },
  };

  declare type: "bar" | "line";
  /** What the chart shows ("Orders credited and claims per day"): the table's caption. */
  declare heading: string;
  /** The canvas's description for screen readers: the kind of chart, the period. */
  declare description: string;
  declare dayHeader: string;
  declare days: readonly ChartDay[];
  declare series: readonly ChartSeries[];
  declare drawn: boolean;
  #chart: Chart<"bar" | "line", number[], string> | undefined;
  #chartType: "bar" | "line" | undefined;

  constructor() {
    super();
    this.type = "bar";
    this.heading = "";
    this.description = "";
    this.dayHeader = "";
    this.days = [];
    this.series = [];
    this.drawn = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Moved in the page: drawn again on the same canvas.
    if (this.hasUpdated) void this.#draw();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#chart?.destroy();
    this.#chart = undefined;
  }

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    if (changed.has("days") || changed.has("series") || changed.has("type")) void this.#draw();
  }

  async #draw(): Promise<void> {
    const { Chart } = await import("./chart-setup.js");
    const canvas = this.renderRoot.querySelector("canvas");
    if (!this.isConnected || !canvas) return;
    Chart.defaults.font.family = token(this, "--bo-font", "system-ui, sans-serif");
    const config = this.#config();
    if (this.#chart && this.#chartType === this.type) {
      this.#chart.data = config.data;
      this.#chart.options = config.options ?? {};
      this.#chart.update();
    } else {
      this.#chart?.destroy();
      this.#chart = new Chart(canvas, config);
      this.#chartType = this.type;
    }
    this.drawn = true;
  }

  #config(): ChartConfiguration<"bar" | "line", number[], string> {
    const text = token(this, "--bo-text", "#1f2328");
    const muted = token(this, "--bo-muted", "#57606a");
    const grid = token(this, "--bo-border", "#d0d7de");
    const manyDays = this.days.length > 60;
    const datasets = this.series.map((series): ChartDataset<"bar" | "line", number[]> => ({
      label: series.label,
      data: [...series.values],
      backgroundColor: series.color,
      borderColor: series.color,
      borderWidth: this.type === "line" ? 2 : 0,
      borderDash: series.dashed ? [6, 4] : [],
      pointStyle: series.dashed ? "triangle" : "circle",
      pointRadius: this.type === "line" && !manyDays ? 3 : 0,
      pointHoverRadius: 4,
    }));
    return {
      type: this.type,
      data: { labels: this.days.map((day) => day.axis), datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: matchMedia("(prefers-reduced-motion: reduce)").matches
          ? false
          : { duration: 250 },
        locale: intlLocale(),
        interaction: { mode: "index", intersect: false },
        plugins: {
          legend: {
            position: "bottom",
            labels: { color: text, usePointStyle: true, boxHeight: 8 },
          },
          tooltip: {
            callbacks: {
              title: (items) => this.days[items[0]?.dataIndex ?? 0]?.full ?? "",
            },
          },
        },
        scales: {
          x: {
            ticks: { color: muted, maxRotation: 0, autoSkip: true, autoSkipPadding: 12 },
            grid: { display: false },
          },
          y: {
            beginAtZero: true,
            ticks: { color: muted, precision: 0 },
            grid: { color: grid },
            border: { display: false },
          },
        },
      },
    };
  }

  protected override render() {
    return html`<div class="frame ${this.drawn ? "" : "frame--loading"}">
        <canvas role="img" aria-label=${this.description}></canvas>
      </div>
      <details>
        <summary>${msg("Show the figures as a table")}</summary>
        <div class="table-scroll" role="region" tabindex="0" aria-label=${this.heading}>
          <table>
            <caption class="visually-hidden">
              ${this.heading}
            </caption>
            <thead>
              <tr>
                <th scope="col">${this.dayHeader}</th>
                ${this.series.map((series) => html`<th scope="col">${series.label}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${this.days.map(
                (day, index) =>
                  html`<tr>
                    <th scope="row">${day.full}</th>
                    ${this.series.map(
                      (series) => html`<td>${formatNumber(series.values[index] ?? 0)}</td>`,
                    )}
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </details>`;
  }
}

define("bo-overview-chart", OverviewChart);

declare global {
  interface HTMLElementTagNameMap {
    "bo-overview-chart": OverviewChart;
  }
}
