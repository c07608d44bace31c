export type Unit = "ms" | "MB" | "%" | "×" | "count" | "tokens";

/** A limit on the figure itself, or on its ratio to the baseline. */
export interface Target {
  on: "value" | "ratio";
  op: "<=" | ">=";
  limit: number;
}

export interface Figure {
  name: string;
  /** Null when it could not be measured here; `note` says why. */
  value: number | null;
  unit: Unit;
  baseline?: { name: string; value: number | null };
  target?: Target;
  note?: string;
}

/** A table of counts behind the figures (per kind of case, say), printed after the main table. */
export interface Breakdown {
  title: string;
  columns: string[];
  rows: string[][];
}

/** How one kind of case came out for one harness. */
export interface KindCounts {
  right: number;
  /** Should have worked and was sent back. */
  missed: number;
  wrong: number;
  total: number;
}

/** A row of a per-kind table: what names the kind, then cairn's right / wrongly refused / wrong, then the baseline's right. */
export function kindRow(label: readonly string[], cairn: KindCounts, baseline: KindCounts): string[] {
  const right = (counts: KindCounts) => `${counts.right}/${counts.total}`;
  return [...label, right(cairn), String(cairn.missed), String(cairn.wrong), right(baseline)];
}

export interface BenchResult {
  id: string;
  title: string;
  figures: Figure[];
  breakdowns?: Breakdown[];
  /** Everything behind the figures (per-category counts, per-pattern timings…), for the JSON file. */
  details: Record<string, unknown>;
  durationMs: number;
}

export function ratioOf(figure: Figure): number | null {
  const base = figure.baseline?.value;
  if (figure.value === null || base === null || base === undefined || base === 0) return null;
  return figure.value / base;
}

/** True or false against the target; null when there is no target or nothing to compare. */
export function meetsTarget(figure: Figure): boolean | null {
  if (!figure.target) return null;
  const subject = figure.target.on === "ratio" ? ratioOf(figure) : figure.value;
  if (subject === null) return null;
  return figure.target.op === "<=" ? subject <= figure.target.limit : subject >= figure.target.limit;
}

export function formatValue(value: number | null, unit: Unit): string {
  if (value === null) return "n/a";
  switch (unit) {
    case "ms":
      return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
    case "MB":
      return `${value.toFixed(1)} MB`;
    case "%":
      return `${value.toFixed(1)}%`;
    case "×":
      return `${value.toFixed(2)}×`;
    case "count":
      return String(Math.round(value));
    case "tokens":
      return `${Math.round(value).toLocaleString("en-US")} tok`;
  }
}

function formatTarget(figure: Figure): string {
  const target = figure.target;
  if (!target) return "";
  const op = target.op === "<=" ? "≤" : "≥";
  return target.on === "ratio"
    ? `${op} ${target.limit}× baseline`
    : `${op} ${formatValue(target.limit, figure.unit)}`;
}

export interface Row {
  bench: string;
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  ok: string;
}

export function rowsOf(results: readonly BenchResult[]): Row[] {
  return results.flatMap((result) =>
    result.figures.map((figure, index) => {
      const ratio = ratioOf(figure);
      const ok = meetsTarget(figure);
      const baseline = figure.baseline
        ? `${formatValue(figure.baseline.value, figure.unit)} ${figure.baseline.name}`
        : "";
      return {
        bench: index === 0 ? result.title : "",
        figure: figure.note ? `${figure.name} (${figure.note})` : figure.name,
        value: formatValue(figure.value, figure.unit),
        baseline,
        ratio: ratio === null ? "" : `${ratio.toFixed(2)}×`,
        target: formatTarget(figure),
        ok: ok === null ? "" : ok ? "yes" : "NO",
      };
    }),
  );
}

const COLUMNS: Array<[keyof Row, string]> = [
  ["bench", "benchmark"],
  ["figure", "figure"],
  ["value", "value"],
  ["baseline", "baseline"],
  ["ratio", "ratio"],
  ["target", "target"],
  ["ok", "ok"],
];

function gridText(headers: readonly string[], rows: readonly string[][]): string {
  const widths = headers.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

function gridMarkdown(headers: readonly string[], rows: readonly string[][]): string {
  const cellText = (cell: string) => cell.replace(/\|/g, "\\|");
  return [
    `| ${headers.join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(cellText).join(" | ")} |`),
  ].join("\n");
}

const cellsOf = (rows: readonly Row[]) => rows.map((row) => COLUMNS.map(([key]) => row[key]));
const TITLES = COLUMNS.map(([, title]) => title);

/** A plain-text table for the terminal. */
export function textTable(rows: readonly Row[]): string {
  return gridText(TITLES, cellsOf(rows));
}

/** The same table in Markdown, for docs/benchmarks.md. */
export function markdownTable(rows: readonly Row[]): string {
  return gridMarkdown(TITLES, cellsOf(rows));
}

/** Every breakdown of the results, as plain text or Markdown, each under its title. */
export function breakdowns(results: readonly BenchResult[], format: "text" | "markdown"): string {
  return results
    .flatMap((result) => result.breakdowns ?? [])
    .map((table) =>
      format === "text"
        ? `${table.title}\n${gridText(table.columns, table.rows)}`
        : `**${table.title}**\n\n${gridMarkdown(table.columns, table.rows)}`,
    )
    .join("\n\n");
}
