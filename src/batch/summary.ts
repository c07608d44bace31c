import { costText } from "../model/costTable.js";
import { formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { type Column, renderTable, type TableStyle } from "../platform/table.js";
import { outcomeOf, type TaskRecord } from "./record.js";

export interface Totals {
  tasks: number;
  completed: number;
  /** Tasks whose change was made and nothing checked: neither completed nor failed. */
  unverified: number;
  /** Tasks that ended any other way (failed, stuck, a cap, no result). */
  failed: number;
  /** Completed over all; null with no tasks. */
  pass_rate: number | null;
  /** Dollars of the tasks whose price is known. */
  cost_usd: number;
  /** Tasks with a call of unknown price: their dollars are missing from `cost_usd`. */
  unpriced: number;
  median_cost_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** Time spent in tasks, added up; less than wall time when tasks run side by side. */
  task_time_ms: number;
  median_time_ms: number | null;
}

export interface BatchSummary extends Totals {
  batch_id: string;
  /** From the batch's start to its end, this run. */
  wall_ms: number;
  /** One row per model, when the tasks ran on several. */
  by_model: Array<Totals & { model: string }>;
  /** Tasks found finished in the results folder and not run again. */
  skipped: number;
  /** Tasks left unstarted because the batch's --max-cost was reached. */
  not_started: number;
  /** Tasks interrupted (Ctrl-C): not recorded, so that a re-run does them. */
  cancelled: number;
  /** Tasks still on the queue when following it stopped: `cairn batch status` collects them later. */
  pending: number;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function totalsOf(records: readonly TaskRecord[]): Totals {
  // Every try's dollars: a task tried twice cost what both tries spent.
  const priced = records.flatMap((r) =>
    r.cost_usd === null ? [] : [r.cost_usd + (r.earlier_tries_cost_usd ?? 0)],
  );
  const sum = (pick: (r: TaskRecord) => number) => records.reduce((total, r) => total + pick(r), 0);
  const count = (outcome: ReturnType<typeof outcomeOf>) =>
    records.filter((r) => outcomeOf(r) === outcome).length;
  const completed = count("completed");
  return {
    tasks: records.length,
    completed,
    unverified: count("unverified"),
    failed: count("failed"),
    pass_rate: records.length ? completed / records.length : null,
    cost_usd: priced.reduce((a, b) => a + b, 0),
    unpriced: records.length - priced.length,
    median_cost_usd: median(priced),
    input_tokens: sum((r) => r.usage.input_tokens),
    output_tokens: sum((r) => r.usage.output_tokens),
    cached_input_tokens: sum((r) => r.usage.cached_input_tokens),
    task_time_ms: sum((r) => r.duration_ms),
    median_time_ms: median(records.map((r) => r.duration_ms)),
  };
}

/** `unrecordedCostUsd`: dollars of tries no record carries (see `Collection`), in the batch's cost. */
export function summarize(
  records: readonly TaskRecord[],
  run: Pick<BatchSummary, "batch_id" | "wall_ms" | "skipped" | "not_started" | "cancelled" | "pending">,
  unrecordedCostUsd = 0,
): BatchSummary {
  const models = [...new Set(records.map((r) => r.model ?? "default"))].sort();
  const totals = totalsOf(records);
  return {
    ...run,
    ...totals,
    cost_usd: totals.cost_usd + unrecordedCostUsd,
    by_model:
      models.length > 1
        ? models.map((model) => ({
            model,
            ...totalsOf(records.filter((r) => (r.model ?? "default") === model)),
          }))
        : [],
  };
}

export function percent(rate: number | null): string {
  return rate === null ? "n/a" : `${Math.round(rate * 100)}%`;
}

/** Dollars, saying so when some tasks' prices were unknown rather than passing off a part as the whole. */
export function dollars(totals: Pick<Totals, "cost_usd" | "unpriced" | "tasks">): string {
  return costText({
    known_cost_usd: totals.cost_usd,
    unknown_cost_calls: totals.unpriced,
    calls: totals.tasks,
  });
}

const optional = (value: number | null, show: (n: number) => string) =>
  value === null ? "n/a" : show(value);

function totalsTable(summary: BatchSummary, style: TableStyle): string {
  type Row = Totals & { model: string };
  const columns: Column<Row>[] = [
    { header: "model", cell: (row) => row.model },
    { header: "tasks", cell: (row) => String(row.tasks), align: "right" },
    { header: "completed", cell: (row) => String(row.completed), align: "right" },
    { header: "unverified", cell: (row) => String(row.unverified), align: "right" },
    { header: "failed", cell: (row) => String(row.failed), align: "right" },
    { header: "pass rate", cell: (row) => percent(row.pass_rate), align: "right" },
    { header: "cost", cell: dollars, align: "right" },
    { header: "median cost", cell: (row) => optional(row.median_cost_usd, formatCost), align: "right" },
    { header: "input", cell: (row) => formatTokens(row.input_tokens), align: "right" },
    { header: "output", cell: (row) => formatTokens(row.output_tokens), align: "right" },
    { header: "median time", cell: (row) => optional(row.median_time_ms, formatDuration), align: "right" },
  ];
  const single = summary.by_model.length === 0;
  const rows: Row[] = [...summary.by_model, { ...summary, model: single ? "all" : "total" }];
  return renderTable(columns, rows, style);
}

function tasksTable(records: readonly TaskRecord[], style: TableStyle): string {
  const columns: Column<TaskRecord>[] = [
    { header: "task", cell: (r) => r.id },
    { header: "model", cell: (r) => r.model ?? "default" },
    { header: "status", cell: (r) => r.status },
    { header: "cost", cell: (r) => formatCost(r.cost_usd), align: "right" },
    {
      header: "tokens",
      cell: (r) => formatTokens(r.usage.input_tokens + r.usage.output_tokens),
      align: "right",
    },
    { header: "time", cell: (r) => formatDuration(r.duration_ms), align: "right" },
    { header: "files", cell: (r) => String(r.files_changed.length), align: "right" },
  ];
  return renderTable(columns, [...records], style);
}

/** One line: how the batch went. */
function headline(summary: BatchSummary): string {
  const parts = [
    `${summary.completed}/${summary.tasks} completed (${percent(summary.pass_rate)})`,
    ...(summary.unverified ? [`${summary.unverified} unverified (changed, not checked)`] : []),
    `${dollars(summary)} total`,
    `${formatTokens(summary.input_tokens)} tokens in, ${formatTokens(summary.output_tokens)} out`,
    `${formatDuration(summary.wall_ms)}`,
  ];
  if (summary.skipped) parts.push(`${summary.skipped} already done before`);
  if (summary.not_started) parts.push(`${summary.not_started} not started (--max-cost reached)`);
  if (summary.cancelled) parts.push(`${summary.cancelled} cancelled (not recorded)`);
  if (summary.pending)
    parts.push(
      `${summary.pending} still on the queue (cairn batch status ${summary.batch_id} collects them)`,
    );
  return parts.join(" · ");
}

/** The summary as printed at the end of a batch: the totals table, then what did not complete. */
export function summaryText(summary: BatchSummary, records: readonly TaskRecord[]): string {
  const lines = [headline(summary), "", totalsTable(summary, "plain")];
  const listed = (title: string, outcome: ReturnType<typeof outcomeOf>) => {
    const these = records.filter((r) => outcomeOf(r) === outcome);
    if (these.length === 0) return;
    lines.push("", title);
    for (const r of these)
      lines.push(
        `  ${r.id} (${r.model ?? "default"}): ${r.status}${r.error ? ` — ${r.error.split("\n")[0]}` : ""}`,
      );
  };
  listed("Unverified (changed, nothing checked the change; give the task a verify command):", "unverified");
  listed("Not completed:", "failed");
  return lines.join("\n");
}

/** `summary.md` in the results folder: the totals, by model when several, and a row per task. */
export function summaryMarkdown(summary: BatchSummary, records: readonly TaskRecord[]): string {
  return [
    `# cairn batch ${summary.batch_id}`,
    headline(summary),
    totalsTable(summary, "markdown"),
    "## Tasks",
    tasksTable(records, "markdown"),
  ].join("\n\n");
}
