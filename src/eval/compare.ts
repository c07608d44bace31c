import { percent } from "../batch/summary.js";
import { formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { type Column, renderTable } from "../platform/table.js";
import type { EvalReport } from "./report.js";

export interface Comparison {
  a: Pick<EvalReport, "suite" | "model" | "cairn_version" | "date" | "totals">;
  b: Pick<EvalReport, "suite" | "model" | "cairn_version" | "date" | "totals">;
  /** Tasks solved by one run and not the other. */
  changed: Array<{ id: string; a: boolean; b: boolean }>;
  /** Tasks in only one of the two reports. */
  only_a: string[];
  only_b: string[];
}

export function compareReports(a: EvalReport, b: EvalReport): Comparison {
  const solvedIn = (report: EvalReport) => new Map(report.tasks.map((task) => [task.id, task.solved]));
  const inA = solvedIn(a);
  const inB = solvedIn(b);
  const changed = [...inA].flatMap(([id, solvedA]) => {
    const solvedB = inB.get(id);
    return solvedB === undefined || solvedB === solvedA ? [] : [{ id, a: solvedA, b: solvedB }];
  });
  const pick = ({ suite, model, cairn_version, date, totals }: EvalReport) => ({
    suite,
    model,
    cairn_version,
    date,
    totals,
  });
  return {
    a: pick(a),
    b: pick(b),
    changed,
    only_a: [...inA.keys()].filter((id) => !inB.has(id)),
    only_b: [...inB.keys()].filter((id) => !inA.has(id)),
  };
}

const signed = (n: number, show: (n: number) => string) =>
  `${n > 0 ? "+" : n < 0 ? "−" : "±"}${show(Math.abs(n))}`;

type Row = { what: string; a: string; b: string; change: string };

/** The two runs' figures side by side, each with how B differs from A. */
function comparisonRows(c: Comparison): Row[] {
  const ta = c.a.totals;
  const tb = c.b.totals;
  const perSolved = (n: number | null) => (n === null ? "n/a" : formatCost(n));
  return [
    { what: "suite", a: c.a.suite, b: c.b.suite, change: "" },
    { what: "model", a: c.a.model, b: c.b.model, change: "" },
    { what: "cairn", a: c.a.cairn_version, b: c.b.cairn_version, change: "" },
    { what: "date", a: c.a.date, b: c.b.date, change: "" },
    {
      what: "pass@1",
      a: `${percent(ta.pass_at_1)} (${ta.solved}/${ta.tasks})`,
      b: `${percent(tb.pass_at_1)} (${tb.solved}/${tb.tasks})`,
      change: signed(Math.round((tb.pass_at_1 - ta.pass_at_1) * 100), (n) => `${n} pts`),
    },
    ...(ta.pass_at_2 != null || tb.pass_at_2 != null
      ? [
          {
            what: "pass@2",
            a: ta.pass_at_2 == null ? "n/a" : `${percent(ta.pass_at_2)} (${ta.solved_2}/${ta.tasks})`,
            b: tb.pass_at_2 == null ? "n/a" : `${percent(tb.pass_at_2)} (${tb.solved_2}/${tb.tasks})`,
            change:
              ta.pass_at_2 == null || tb.pass_at_2 == null
                ? ""
                : signed(Math.round((tb.pass_at_2 - ta.pass_at_2) * 100), (n) => `${n} pts`),
          },
        ]
      : []),
    {
      what: "cost",
      a: formatCost(ta.cost_usd),
      b: formatCost(tb.cost_usd),
      change: signed(tb.cost_usd - ta.cost_usd, formatCost),
    },
    {
      what: "$ per solved task",
      a: perSolved(ta.cost_per_solved_usd),
      b: perSolved(tb.cost_per_solved_usd),
      change:
        ta.cost_per_solved_usd === null || tb.cost_per_solved_usd === null
          ? ""
          : signed(tb.cost_per_solved_usd - ta.cost_per_solved_usd, formatCost),
    },
    {
      what: "input tokens",
      a: formatTokens(ta.input_tokens),
      b: formatTokens(tb.input_tokens),
      change: signed(tb.input_tokens - ta.input_tokens, formatTokens),
    },
    {
      what: "output tokens",
      a: formatTokens(ta.output_tokens),
      b: formatTokens(tb.output_tokens),
      change: signed(tb.output_tokens - ta.output_tokens, formatTokens),
    },
    {
      what: "time in tasks",
      a: formatDuration(ta.task_time_ms),
      b: formatDuration(tb.task_time_ms),
      change: signed(tb.task_time_ms - ta.task_time_ms, formatDuration),
    },
  ];
}

/** The comparison for people: the two runs side by side, and the tasks whose outcome changed. */
export function comparisonMarkdown(c: Comparison): string {
  const columns: Column<Row>[] = [
    { header: "", cell: (r) => r.what },
    { header: "A", cell: (r) => r.a },
    { header: "B", cell: (r) => r.b },
    { header: "B − A", cell: (r) => r.change, align: "right" },
  ];
  const lines = [renderTable(columns, comparisonRows(c), "markdown")];
  const solved = (yes: boolean) => (yes ? "solved" : "not solved");
  if (c.changed.length) {
    lines.push(
      renderTable(
        [
          { header: "task", cell: (r: Comparison["changed"][number]) => r.id },
          { header: "A", cell: (r) => solved(r.a) },
          { header: "B", cell: (r) => solved(r.b) },
        ],
        c.changed,
        "markdown",
      ),
    );
  } else {
    lines.push("Every task common to both came out the same.");
  }
  if (c.only_a.length) lines.push(`Only in A: ${c.only_a.join(", ")}`);
  if (c.only_b.length) lines.push(`Only in B: ${c.only_b.join(", ")}`);
  return lines.join("\n\n");
}
