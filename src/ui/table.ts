import os from "node:os";
import path from "node:path";
import { formatCost, formatTokens } from "../platform/format.js";
import { type CostRow, type CostTotals, sumCostTotals } from "../store/sessions.js";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => string;
  /** Numbers are right-aligned so their digits line up. */
  align?: "left" | "right";
}

export type TableStyle = "plain" | "markdown";

/** One line of at most `max` characters, whatever the text held. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Escaped, so a file name with underscores or output with `<tags>` shows as written. */
function markdownCell(text: string): string {
  return text.replace(/\n/g, " ").replace(/[\\`*_[\]<>|]/g, "\\$&");
}

/** Columns padded to fit (for a terminal), or a GitHub-flavoured Markdown table. */
export function renderTable<Row>(columns: Column<Row>[], rows: Row[], style: TableStyle = "plain"): string {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)));
  if (style === "markdown") {
    const line = (values: string[]) => `| ${values.map(markdownCell).join(" | ")} |`;
    const rule = columns.map((column) => (column.align === "right" ? "---:" : "---"));
    return [line(columns.map((c) => c.header)), `| ${rule.join(" | ")} |`, ...cells.map(line)].join("\n");
  }
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((values) => values[i]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) =>
        columns[i]?.align === "right" ? value.padStart(widths[i] ?? 0) : value.padEnd(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n");
}

/** Dollars, saying so when some calls had no known price rather than passing off a part as the whole. */
export function costText(totals: CostTotals): string {
  if (totals.unknown_cost_calls === 0) return formatCost(totals.known_cost_usd);
  if (totals.unknown_cost_calls === totals.calls) return formatCost(null);
  return `≥ ${formatCost(totals.known_cost_usd)} (${totals.unknown_cost_calls} unpriced)`;
}

/** A stored ISO time as the person's local `YYYY-MM-DD HH:MM`. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A path under the home folder as `~/…`, the way people write it. */
export function homePath(file: string, home: string = os.homedir()): string {
  const rel = path.relative(home, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? path.join("~", rel) : file;
}

/** Cost rows with a total underneath, keyed by `keyHeader` (day, model, phase, workspace). */
export function costTable(
  rows: CostRow[],
  keyHeader: string,
  style: TableStyle = "plain",
  showKey: (key: string) => string = (key) => key,
): string {
  const total: CostRow = { key: "total", ...sumCostTotals(rows) };
  const number = (header: string, pick: (row: CostRow) => number): Column<CostRow> => ({
    header,
    cell: (row) => formatTokens(pick(row)),
    align: "right",
  });
  const columns: Column<CostRow>[] = [
    { header: keyHeader, cell: (row) => (row === total ? "total" : showKey(row.key)) },
    number("calls", (row) => row.calls),
    number("input", (row) => row.input_tokens),
    number("cached", (row) => row.cached_input_tokens),
    number("output", (row) => row.output_tokens),
    { header: "cost", cell: costText, align: "right" },
  ];
  return renderTable(columns, [...rows, total], style);
}
