import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TaskRecord } from "../batch/record.js";
import { dollars, percent } from "../batch/summary.js";
import { ConfigError } from "../platform/errors.js";
import { formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { type Column, renderTable } from "../platform/table.js";
import type { Grade } from "./grade.js";
import type { EvalTask, SkippedTask, Suite } from "./types.js";

/** One try at a task: how the agent's session ended, what it cost, and how it graded. */
export interface TryReport {
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

export interface TaskReport extends TryReport {
  id: string;
  language: string;
  /**
   * With --tries 2, the second try of a task the first did not solve, given the failing tests'
   * output (null when it had none: solved at once, or not run); absent with one try.
   */
  second_try?: TryReport | null;
}

export interface EvalTotals {
  /** Every task of the suite (as --tasks chose), those skipped here included. */
  tasks: number;
  /** Tasks with a record (the rest were not run: skipped, a budget reached, a Ctrl-C). */
  run: number;
  /** Tasks this machine could not grade (`skipped` says why); counted as not solved. */
  skipped: number;
  /** Solved on the first try. */
  solved: number;
  /** Solved on the first try, over all the suite's tasks: a fraction, 0 to 1. */
  pass_at_1: number;
  /**
   * `pass_at_1` in percent, to one decimal, as aider's leaderboard writes its `pass_rate_1`
   * (`pass_at_1` stays a fraction for the readers that take it so).
   */
  pass_at_1_percent: number;
  /** With --tries 2: solved on the first or the second try; null with one try. */
  solved_2: number | null;
  /** `solved_2` over all the suite's tasks, a fraction; null with one try. */
  pass_at_2: number | null;
  /** `pass_at_2` in percent, to one decimal, as the leaderboard's `pass_rate_2`; null with one try. */
  pass_at_2_percent: number | null;
  /** Every try's dollars. */
  cost_usd: number;
  /** Tasks with a try whose price was unknown: those dollars are missing from `cost_usd`. */
  unpriced: number;
  /** Over the tasks solved in the end; null when none was. */
  cost_per_solved_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  /** Time in the tasks' sessions, every try's, added up. */
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
  /** 1, or 2 when an unsolved task got a second try with its test output (aider's harness does). */
  tries: 1 | 2;
  /** Set when no agent ran: the exercises' reference solutions, or the exercises as given, were graded. */
  grade_only: "reference" | "given" | null;
  cairn_version: string;
  date: string;
  totals: EvalTotals;
  tasks: TaskReport[];
  /** What the suite holds that could not be graded here, and why. */
  skipped: SkippedTask[];
}

/** The records and grades of one try, by task id. */
export interface TryOutcome {
  records: ReadonlyMap<string, TaskRecord>;
  grades: ReadonlyMap<string, Grade>;
}

export interface ReportInput {
  suite: Suite;
  first: TryOutcome;
  /** The second try's, with --tries 2. */
  second?: TryOutcome;
  gradeOnly?: "reference" | "given";
  model: string;
  mode: "do" | "run";
  version: string;
  wallMs: number;
}

function tryReport(record: TaskRecord | undefined, grade: Grade | undefined): TryReport {
  const { passed: _passed, reverted: _reverted, ...details } = grade ?? { passed: false, reverted: [] };
  return {
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

function taskReport(task: EvalTask, input: ReportInput): TaskReport {
  const first = tryReport(input.first.records.get(task.id), input.first.grades.get(task.id));
  const report: TaskReport = {
    id: task.id,
    language: task.kind === "exercise" ? task.language : "swe",
    ...first,
  };
  if (input.second) {
    const record = input.second.records.get(task.id);
    report.second_try = record ? tryReport(record, input.second.grades.get(task.id)) : null;
  }
  return report;
}

/** A fraction in percent to one decimal, as aider's leaderboard writes its pass rates. */
function inPercent(fraction: number): number {
  return Math.round(fraction * 1000) / 10;
}

/** The report of an eval: per task and in total, with what ran it and when. */
export function buildReport(input: ReportInput): EvalReport {
  const tasks = input.suite.tasks.map((task) => taskReport(task, input));
  const all = tasks.length + input.suite.skipped.length;
  const tries = tasks.flatMap((task) => [task, ...(task.second_try ? [task.second_try] : [])]);
  const solved = tasks.filter((task) => task.solved).length;
  const solved2 = input.second ? tasks.filter((task) => task.solved || task.second_try?.solved).length : null;
  const cost = tries.reduce((total, t) => total + (t.cost_usd ?? 0), 0);
  const unpriced = tasks.filter(
    (task) => task.cost_usd === null || task.second_try?.cost_usd === null,
  ).length;
  const sum = (pick: (t: TryReport) => number) => tries.reduce((total, t) => total + pick(t), 0);
  const solvedInTheEnd = solved2 ?? solved;
  const pass1 = all ? solved / all : 0;
  const pass2 = solved2 === null ? null : all ? solved2 / all : 0;
  return {
    suite: input.suite.name,
    source: input.suite.source,
    tasks_filter: input.suite.only ?? null,
    model: input.model,
    mode: input.mode,
    tries: input.second ? 2 : 1,
    grade_only: input.gradeOnly ?? null,
    cairn_version: input.version,
    date: new Date().toISOString(),
    totals: {
      tasks: all,
      run: tasks.filter((task) => task.status !== "not run").length,
      skipped: input.suite.skipped.length,
      solved,
      pass_at_1: pass1,
      pass_at_1_percent: inPercent(pass1),
      solved_2: solved2,
      pass_at_2: pass2,
      pass_at_2_percent: pass2 === null ? null : inPercent(pass2),
      cost_usd: cost,
      unpriced,
      cost_per_solved_usd: solvedInTheEnd ? cost / solvedInTheEnd : null,
      input_tokens: sum((t) => t.input_tokens),
      output_tokens: sum((t) => t.output_tokens),
      task_time_ms: sum((t) => t.duration_ms),
      wall_ms: input.wallMs,
    },
    tasks,
    skipped: input.suite.skipped,
  };
}

/** `pass@1 48% (108/225)`, and pass@2 after it with two tries. */
export function passRates(
  t: Pick<EvalTotals, "tasks" | "solved" | "pass_at_1" | "solved_2" | "pass_at_2">,
): string {
  const second = t.pass_at_2 === null ? "" : ` · pass@2 ${percent(t.pass_at_2)} (${t.solved_2}/${t.tasks})`;
  return `pass@1 ${percent(t.pass_at_1)} (${t.solved}/${t.tasks})${second}`;
}

/** One line: what was measured and how it came out. */
export function reportHeadline(report: EvalReport): string {
  const t = report.totals;
  const skipped = t.skipped ? ` · ${t.skipped} not gradable here` : "";
  if (report.grade_only) {
    const what = report.grade_only === "reference" ? "reference solutions" : "exercises as given";
    return `${what}: ${t.solved} of ${t.tasks} graded as solved${skipped} · ${formatDuration(t.wall_ms)}`;
  }
  const perSolved = t.cost_per_solved_usd === null ? "n/a" : formatCost(t.cost_per_solved_usd);
  return (
    `${passRates(t)}${skipped} · ${dollars({ ...t, tasks: t.run })} · ${perSolved} per solved task · ` +
    `${formatTokens(t.input_tokens)} tokens in, ${formatTokens(t.output_tokens)} out · ${formatDuration(t.wall_ms)}`
  );
}

const yesNo = (solved: boolean) => (solved ? "yes" : "no");

/** A task's figure over both its tries. */
const overTries = (t: TaskReport, pick: (t: TryReport) => number | null): number | null => {
  const first = pick(t);
  const second = t.second_try ? pick(t.second_try) : 0;
  return first === null || second === null ? null : first + second;
};

/** `report.md`: the headline, what ran it, and a row per task. */
export function reportMarkdown(report: EvalReport): string {
  const columns: Column<TaskReport>[] = [
    { header: "task", cell: (t) => t.id },
    { header: "solved", cell: (t) => yesNo(t.solved) },
    ...(report.tries === 2
      ? [{ header: "2nd try", cell: (t: TaskReport) => (t.second_try ? yesNo(t.second_try.solved) : "") }]
      : []),
    { header: "agent", cell: (t) => t.status },
    { header: "cost", cell: (t) => formatCost(overTries(t, (x) => x.cost_usd)), align: "right" },
    { header: "input", cell: (t) => formatTokens(overTries(t, (x) => x.input_tokens) ?? 0), align: "right" },
    {
      header: "output",
      cell: (t) => formatTokens(overTries(t, (x) => x.output_tokens) ?? 0),
      align: "right",
    },
    { header: "time", cell: (t) => formatDuration(overTries(t, (x) => x.duration_ms) ?? 0), align: "right" },
    { header: "note", cell: (t) => note(t) },
  ];
  const by = report.grade_only
    ? "no agent: graded as they are"
    : `Model ${report.model} · \`cairn ${report.mode}\` · ${report.tries} ${report.tries === 1 ? "try" : "tries"}`;
  const lines = [
    `# cairn eval: ${report.suite}${report.tasks_filter ? ` (tasks ${report.tasks_filter.join(", ")})` : ""}`,
    `${by} · cairn ${report.cairn_version} · ${report.date}`,
    reportHeadline(report),
    renderTable(columns, report.tasks, "markdown"),
  ];
  if (report.skipped.length) {
    lines.push(
      `Not graded here (counted as not solved):\n${report.skipped.map((s) => `- ${s.id}: ${s.reason}`).join("\n")}`,
    );
  }
  return lines.join("\n\n");
}

function note(task: TaskReport): string {
  const notes = [];
  const reverted = [
    ...new Set([...task.reverted_test_edits, ...(task.second_try?.reverted_test_edits ?? [])]),
  ];
  if (reverted.length) notes.push(`edits to ${reverted.join(", ")} undone`);
  for (const reason of [task.grade?.reason, task.second_try?.grade?.reason]) if (reason) notes.push(reason);
  return notes.join("; ");
}

/**
 * A report from its file, or from the folder it was written to. One written before the totals
 * carried their rates in percent as well gets them, from the fractions.
 */
export async function readReport(where: string): Promise<EvalReport> {
  const file = where.endsWith(".json") ? where : path.join(where, "report.json");
  let report: EvalReport;
  try {
    report = JSON.parse(await readFile(file, "utf8")) as EvalReport;
  } catch (error) {
    throw new ConfigError(`cannot read an eval report from ${file}: ${(error as Error).message}`);
  }
  const t = report.totals;
  t.pass_at_1_percent ??= inPercent(t.pass_at_1);
  t.pass_at_2_percent ??= t.pass_at_2 === null ? null : inPercent(t.pass_at_2);
  return report;
}
