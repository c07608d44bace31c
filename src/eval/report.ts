import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TaskRecord } from "../batch/record.js";
import { dollars, percent } from "../batch/summary.js";
import { ConfigError } from "../platform/errors.js";
import { formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { type Column, renderTable } from "../platform/table.js";
import type { Grade } from "./grade.js";
import type { EvalTask, Suite } from "./types.js";

export interface TaskReport {
  id: string;
  language: string;
  /** Its tests passed in the grading checkout. */
  solved: boolean;
  /** How the agent's session ended; `not run` when it has no record. */
  status: string;
  cost_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number;
  /** Files the agent changed that grading put back: edits to tests do not count. */
  reverted_test_edits: string[];
  session_id: string | null;
  grade: Omit<Grade, "passed" | "reverted"> | null;
}

export interface EvalTotals {
  tasks: number;
  /** Tasks with a record (the rest were not run: a budget reached, a Ctrl-C). */
  run: number;
  solved: number;
  /** Solved over all the suite's tasks, on the first try each. */
  pass_at_1: number;
  cost_usd: number;
  /** Tasks whose price was unknown: their dollars are missing from `cost_usd`. */
  unpriced: number;
  /** Null when nothing was solved. */
  cost_per_solved_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  /** Time in the tasks' sessions, added up. */
  task_time_ms: number;
  /** From the eval's start to its end, this run. */
  wall_ms: number;
}

export interface EvalReport {
  suite: string;
  source: string;
  /** The --tasks globs the tasks were chosen by; null for the whole suite. */
  tasks_filter: string[] | null;
  model: string;
  mode: "do" | "run";
  cairn_version: string;
  date: string;
  totals: EvalTotals;
  tasks: TaskReport[];
  /** What the suite holds that could not be run here. */
  skipped: string[];
}

export interface ReportInput {
  suite: Suite;
  records: ReadonlyMap<string, TaskRecord>;
  grades: ReadonlyMap<string, Grade>;
  model: string;
  mode: "do" | "run";
  version: string;
  wallMs: number;
}

function taskReport(task: EvalTask, record: TaskRecord | undefined, grade: Grade | undefined): TaskReport {
  const { passed: _passed, reverted: _reverted, ...details } = grade ?? { passed: false, reverted: [] };
  return {
    id: task.id,
    language: task.kind === "exercise" ? task.language : "swe",
    solved: grade?.passed ?? false,
    status: record?.status ?? "not run",
    cost_usd: record ? record.cost_usd : 0,
    input_tokens: record?.usage.input_tokens ?? 0,
    output_tokens: record?.usage.output_tokens ?? 0,
    duration_ms: record?.duration_ms ?? 0,
    reverted_test_edits: grade?.reverted ?? [],
    session_id: record?.session_id ?? null,
    grade: grade ? (details as TaskReport["grade"]) : null,
  };
}

/** The report of an eval: per task and in total, with what ran it and when. */
export function buildReport(input: ReportInput): EvalReport {
  const tasks = input.suite.tasks.map((task) =>
    taskReport(task, input.records.get(task.id), input.grades.get(task.id)),
  );
  const solved = tasks.filter((task) => task.solved).length;
  const priced = tasks.flatMap((task) => (task.cost_usd === null ? [] : [task.cost_usd]));
  const cost = priced.reduce((a, b) => a + b, 0);
  const sum = (pick: (task: TaskReport) => number) => tasks.reduce((total, task) => total + pick(task), 0);
  return {
    suite: input.suite.name,
    source: input.suite.source,
    tasks_filter: input.suite.only ?? null,
    model: input.model,
    mode: input.mode,
    cairn_version: input.version,
    date: new Date().toISOString(),
    totals: {
      tasks: tasks.length,
      run: tasks.filter((task) => task.status !== "not run").length,
      solved,
      pass_at_1: tasks.length ? solved / tasks.length : 0,
      cost_usd: cost,
      unpriced: tasks.length - priced.length,
      cost_per_solved_usd: solved ? cost / solved : null,
      input_tokens: sum((task) => task.input_tokens),
      output_tokens: sum((task) => task.output_tokens),
      task_time_ms: sum((task) => task.duration_ms),
      wall_ms: input.wallMs,
    },
    tasks,
    skipped: input.suite.skipped,
  };
}

/** One line: what was measured and how it came out. */
export function reportHeadline(report: EvalReport): string {
  const t = report.totals;
  const perSolved = t.cost_per_solved_usd === null ? "n/a" : formatCost(t.cost_per_solved_usd);
  return (
    `pass@1 ${percent(t.pass_at_1)} (${t.solved}/${t.tasks}) · ${dollars(t)} · ${perSolved} per solved task · ` +
    `${formatTokens(t.input_tokens)} tokens in, ${formatTokens(t.output_tokens)} out · ${formatDuration(t.wall_ms)}`
  );
}

/** `report.md`: the headline, what ran it, and a row per task. */
export function reportMarkdown(report: EvalReport): string {
  const columns: Column<TaskReport>[] = [
    { header: "task", cell: (t) => t.id },
    { header: "solved", cell: (t) => (t.solved ? "yes" : "no") },
    { header: "agent", cell: (t) => t.status },
    { header: "cost", cell: (t) => formatCost(t.cost_usd), align: "right" },
    { header: "input", cell: (t) => formatTokens(t.input_tokens), align: "right" },
    { header: "output", cell: (t) => formatTokens(t.output_tokens), align: "right" },
    { header: "time", cell: (t) => formatDuration(t.duration_ms), align: "right" },
    { header: "note", cell: (t) => note(t) },
  ];
  const lines = [
    `# cairn eval: ${report.suite}${report.tasks_filter ? ` (tasks ${report.tasks_filter.join(", ")})` : ""}`,
    `Model ${report.model} · cairn ${report.cairn_version} · \`cairn ${report.mode}\` · ${report.date}`,
    reportHeadline(report),
    renderTable(columns, report.tasks, "markdown"),
  ];
  if (report.skipped.length) lines.push(`Not run here:\n${report.skipped.map((s) => `- ${s}`).join("\n")}`);
  return lines.join("\n\n");
}

function note(task: TaskReport): string {
  const notes = [];
  if (task.reverted_test_edits.length) notes.push(`edits to ${task.reverted_test_edits.join(", ")} undone`);
  if (task.grade?.reason) notes.push(task.grade.reason);
  return notes.join("; ");
}

/** A report from its file, or from the folder it was written to. */
export async function readReport(where: string): Promise<EvalReport> {
  const file = where.endsWith(".json") ? where : path.join(where, "report.json");
  try {
    return JSON.parse(await readFile(file, "utf8")) as EvalReport;
  } catch (error) {
    throw new ConfigError(`cannot read an eval report from ${file}: ${(error as Error).message}`);
  }
}
