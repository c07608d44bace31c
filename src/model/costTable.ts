import { formatCost, formatTokens } from "../platform/format.js";
import { type Column, renderTable, type TableStyle } from "../platform/table.js";
import { type CostRow, type CostTotals, sumCostTotals } from "./usage.js";

/** Dollars, saying so when some calls had no known price rather than passing off a part as the whole. */
export function costText(
  totals: Pick<CostTotals, "known_cost_usd" | "unknown_cost_calls" | "calls">,
  /** Where room is short: "≥ $0.03" alone says some calls had no price. */
  short = false,
): string {
  if (totals.unknown_cost_calls === 0) return formatCost(totals.known_cost_usd);
  if (totals.unknown_cost_calls === totals.calls) return formatCost(null);
  const atLeast = `≥ ${formatCost(totals.known_cost_usd)}`;
  return short ? atLeast : `${atLeast} (${totals.unknown_cost_calls} unpriced)`;
}

/** Cost rows with a total underneath, keyed by `keyHeader` (day, model, phase, workspace). */
export function costTable(
  rows: CostRow[],
  keyHeader: string,
  style: TableStyle = "plain",
  showKey: (key: string) => string = (key) => key,
  /** Columns the table may take: a long key (a model id, a path) is cut to fit. */
  width?: number,
): string {
  const total: CostRow = { key: "total", ...sumCostTotals(rows) };
  const number = (header: string, pick: (row: CostRow) => number): Column<CostRow> => ({
    header,
    cell: (row) => formatTokens(pick(row)),
    align: "right",
  });
  const columns: Column<CostRow>[] = [
    { header: keyHeader, cell: (row) => (row === total ? "total" : showKey(row.key)), shrink: true },
    number("calls", (row) => row.calls),
    number("input", (row) => row.input_tokens),
    number("cached", (row) => row.cached_input_tokens),
    number("output", (row) => row.output_tokens),
    { header: "cost", cell: costText, align: "right" },
  ];
  return renderTable(columns, [...rows, total], style, width);
}
