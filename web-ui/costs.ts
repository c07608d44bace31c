import type { Chart as ChartClass, ChartConfiguration, ChartDataset } from "chart.js";
import { api, type CostsView } from "./api.js";
import { count, dollars, fill, h, shortPath } from "./dom.js";

declare global {
  interface Window {
    Chart?: typeof ChartClass;
  }
}

/** The groupings each day's dollars are stacked by, one plot each. */
const STACKS = ["model", "phase", "agent"] as const;
const SPANS = [
  ["7d", "last 7 days"],
  ["30d", "last 30 days"],
  ["90d", "last 90 days"],
  ["", "all time"],
] as const;
const DAY_MS = 86_400_000;

/** Chart.js, loaded the first time a plot is drawn (its browser build defines `window.Chart`). */
async function chartLibrary(): Promise<typeof ChartClass> {
  if (window.Chart) return window.Chart;
  await new Promise<void>((resolve, reject) => {
    const script = h("script", { src: "/assets/chart.js" });
    script.addEventListener("load", () => resolve());
    script.addEventListener("error", () => reject(new Error("could not load the charting library")));
    document.head.append(script);
  });
  if (!window.Chart) throw new Error("the charting library did not load");
  return window.Chart;
}

function localDay(time: number): string {
  const date = new Date(time);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const shortDate = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });

/** "Nov 24" for 2026-11-24: the year is in the span chosen. */
function dayLabel(day: string): string {
  return shortDate.format(new Date(`${day}T12:00`));
}

/** Every day from the first with spending (or the span's start) to today, so quiet days show as gaps. */
function days(keys: string[], since: string): string[] {
  const first = since
    ? Date.now() - Number.parseInt(since, 10) * DAY_MS
    : keys.length
      ? Date.parse(`${keys.sort()[0]}T12:00`)
      : Date.now();
  const out: string[] = [];
  for (let time = first; localDay(time) <= localDay(Date.now()); time += DAY_MS) out.push(localDay(time));
  return [...new Set(out)];
}

/** Colours from the page's own palette, so the plots follow light and dark. */
function palette(): string[] {
  const style = getComputedStyle(document.documentElement);
  return Array.from({ length: 8 }, (_, i) => style.getPropertyValue(`--series-${i}`).trim() || "#888");
}

function axisColors() {
  const style = getComputedStyle(document.documentElement);
  return { text: style.getPropertyValue("--muted").trim(), grid: style.getPropertyValue("--line").trim() };
}

function baseOptions(yTitle: string): ChartConfiguration<"bar">["options"] {
  const { text, grid } = axisColors();
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    interaction: { mode: "index", intersect: false },
    plugins: { legend: { position: "bottom", labels: { color: text } } },
    scales: {
      x: {
        stacked: true,
        ticks: {
          color: text,
          callback(value) {
            return dayLabel(String(this.getLabelForValue(Number(value))));
          },
        },
        grid: { color: grid },
      },
      y: {
        stacked: true,
        beginAtZero: true,
        title: { display: true, text: yTitle, color: text },
        ticks: { color: text },
        grid: { color: grid },
      },
    },
  };
}

/** Dollars per day, one stacked series per model (or phase). */
function stackedDollars(costs: CostsView, labels: string[]): ChartConfiguration<"bar"> {
  const colors = palette();
  const series = [...new Set(costs.groups.map((row) => row.split ?? ""))];
  const datasets: ChartDataset<"bar">[] = series.map((name, i) => ({
    label: name,
    backgroundColor: colors[i % colors.length],
    data: labels.map((day) =>
      costs.groups
        .filter((row) => row.key === day && row.split === name)
        .reduce((sum, row) => sum + row.known_cost_usd, 0),
    ),
  }));
  return { type: "bar", data: { labels, datasets }, options: baseOptions("US dollars") };
}

/** Tokens per day (fresh input, cached input, output) and the share of input read from the cache. */
function tokens(costs: CostsView, labels: string[]): ChartConfiguration<"bar"> {
  const colors = palette();
  const row = (day: string) => costs.groups.find((r) => r.key === day);
  const { text } = axisColors();
  const config: ChartConfiguration<"bar"> = {
    type: "bar",
    data: {
      labels,
      datasets: [
        {
          label: "input (fresh)",
          backgroundColor: colors[0],
          data: labels.map((d) => (row(d)?.input_tokens ?? 0) - (row(d)?.cached_input_tokens ?? 0)),
        },
        {
          label: "input (cached)",
          backgroundColor: colors[1],
          data: labels.map((d) => row(d)?.cached_input_tokens ?? 0),
        },
        { label: "output", backgroundColor: colors[2], data: labels.map((d) => row(d)?.output_tokens ?? 0) },
      ],
    },
    options: baseOptions("tokens"),
  };
  const share = {
    type: "line" as const,
    label: "cache share of input (%)",
    yAxisID: "share",
    borderColor: colors[3],
    backgroundColor: colors[3],
    data: labels.map((d) => {
      const input = row(d)?.input_tokens ?? 0;
      return input ? Math.round((1000 * (row(d)?.cached_input_tokens ?? 0)) / input) / 10 : null;
    }),
  };
  (config.data.datasets as unknown[]).push(share);
  const scales = config.options?.scales as Record<string, unknown>;
  scales.share = {
    position: "right",
    min: 0,
    max: 100,
    title: { display: true, text: "% cached", color: text },
    ticks: { color: text },
    grid: { drawOnChartArea: false },
  };
  return config;
}

function plot(title: string, name: string): { figure: HTMLElement; canvas: HTMLCanvasElement } {
  const canvas = h("canvas", { "data-plot": name, role: "img", "aria-label": title });
  return {
    figure: h("figure", { class: "card plot" }, h("h2", {}, title), h("div", { class: "plot-area" }, canvas)),
    canvas,
  };
}

function workspaceTable(costs: CostsView): HTMLElement {
  return h(
    "table",
    { class: "costs-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "workspace"),
        h("th", {}, "calls"),
        h("th", {}, "tokens in / out"),
        h("th", {}, "cost"),
      ),
    ),
    h(
      "tbody",
      {},
      ...costs.groups.map((row) =>
        h(
          "tr",
          {},
          h("td", { title: row.key }, shortPath(row.key)),
          h("td", { class: "number" }, count(row.calls)),
          h("td", { class: "number" }, `${count(row.input_tokens)} / ${count(row.output_tokens)}`),
          h("td", { class: "number" }, dollars(row.cost_usd ?? row.known_cost_usd)),
        ),
      ),
    ),
  );
}

/** Where the money went: dollars per day by model, phase and agent, tokens and cache share, and by workspace. */
export async function costsPage(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const span = h(
    "select",
    { "aria-label": "span" },
    ...SPANS.map(([value, label]) => h("option", { value }, label)),
  );
  span.value = "30d";
  const body = h("div", { class: "plots" });
  fill(root, h("div", { class: "title-row" }, h("h1", {}, "Costs"), span), body);
  const charts: ChartClass[] = [];
  const draw = async () => {
    const Chart = await chartLibrary();
    const since: Record<string, string> = span.value ? { since: span.value } : {};
    const [byDay, byWorkspace, ...stacked] = await Promise.all([
      api.costs({ by: "day", ...since }),
      api.costs({ by: "workspace", ...since }),
      ...STACKS.map((split) => api.costs({ by: "day", split, ...since })),
    ]);
    if (signal.aborted || !byDay || !byWorkspace) return;
    for (const chart of charts.splice(0)) chart.destroy();
    const labels = days(
      byDay.groups.map((row) => row.key),
      span.value,
    );
    const total = byDay.total;
    const plots = [
      ...stacked.map((costs, i) => ({
        ...plot(`Dollars per day, by ${STACKS[i]}`, `by-${STACKS[i]}`),
        config: stackedDollars(costs, labels),
      })),
      {
        ...plot("Tokens per day, and the share of input read from the cache", "tokens"),
        config: tokens(byDay, labels),
      },
    ];
    fill(
      body,
      h(
        "p",
        { class: "facts" },
        `${dollars(total.cost_usd ?? total.known_cost_usd)} over ${count(total.calls)} model call(s) · ${count(total.input_tokens)} tokens in (${count(total.cached_input_tokens)} cached) · ${count(total.output_tokens)} out`,
        total.unknown_cost_calls ? ` · ${total.unknown_cost_calls} call(s) of unknown price not counted` : "",
      ),
      ...plots.map((p) => p.figure),
      h("section", { class: "card" }, h("h2", {}, "By workspace"), workspaceTable(byWorkspace)),
    );
    for (const p of plots) charts.push(new Chart(p.canvas, p.config));
  };
  span.addEventListener("change", () => void draw());
  const scheme = matchMedia("(prefers-color-scheme: dark)");
  const redraw = () => void draw();
  scheme.addEventListener("change", redraw);
  signal.addEventListener("abort", () => {
    scheme.removeEventListener("change", redraw);
    for (const chart of charts.splice(0)) chart.destroy();
  });
  await draw();
}
