import { percent } from "../batch/summary.js";
import { formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { renderTable, type TableStyle } from "../platform/table.js";
import type { EvalReport } from "./report.js";

/** A run of a suite, by who ran it, and its report. */
export interface RunRow {
  /** The model or agent given for the run. */
  run: string;
  out: string;
  report: EvalReport;
}

/**
 * Several runs of one suite in one table, a row each: pass@1 (and pass@2 when any run had two
 * tries), dollars, dollars per solved task, tokens, and the time spent in tasks.
 */
export function runsTable(rows: readonly RunRow[], style: TableStyle = "plain"): string {
  const twoTries = rows.some((row) => row.report.totals.pass_at_2 !== null);
  const totals = (row: RunRow) => row.report.totals;
  return renderTable(
    [
      { header: "run", cell: (row: RunRow) => row.run, shrink: true },
      {
        header: "pass@1",
        cell: (row) => `${percent(totals(row).pass_at_1)} (${totals(row).solved}/${totals(row).tasks})`,
        align: "right",
      },
      ...(twoTries
        ? [
            {
              header: "pass@2",
              cell: (row: RunRow) =>
                totals(row).pass_at_2 === null
                  ? "n/a"
                  : `${percent(totals(row).pass_at_2)} (${totals(row).solved_2}/${totals(row).tasks})`,
              align: "right" as const,
            },
          ]
        : []),
      { header: "cost", cell: (row) => formatCost(totals(row).cost_usd), align: "right" },
      {
        header: "$ per solved",
        cell: (row) =>
          totals(row).cost_per_solved_usd === null ? "n/a" : formatCost(totals(row).cost_per_solved_usd),
        align: "right",
      },
      { header: "tokens in", cell: (row) => formatTokens(totals(row).input_tokens), align: "right" },
      { header: "tokens out", cell: (row) => formatTokens(totals(row).output_tokens), align: "right" },
      { header: "time in tasks", cell: (row) => formatDuration(totals(row).task_time_ms), align: "right" },
    ],
    [...rows],
    style,
  );
}
