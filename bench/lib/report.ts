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

export interface BenchResult {
  id: string;
  title: string;
  figures: Figure[];
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

/** A plain-text table for the terminal. */
export function textTable(rows: readonly Row[]): string {
  const widths = COLUMNS.map(([key, title]) => Math.max(title.length, ...rows.map((row) => row[key].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [
    line(COLUMNS.map(([, title]) => title)),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.map((row) => line(COLUMNS.map(([key]) => row[key]))),
  ].join("\n");
}

/** The same table in Markdown, for docs/benchmarks.md. */
export function markdownTable(rows: readonly Row[]): string {
  const cellText = (cell: string) => cell.replace(/\|/g, "\\|");
  return [
    `| ${COLUMNS.map(([, title]) => title).join(" | ")} |`,
    `| ${COLUMNS.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${COLUMNS.map(([key]) => cellText(row[key])).join(" | ")} |`),
  ].join("\n");
}
