import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { defaultJobs, repositoryCache } from "../batch/batch.js";
import { cairnVersion } from "../batch/install.js";
import type { BatchOutputFormat, BatchRenderer } from "../batch/progress.js";
import type { TaskRecord } from "../batch/record.js";
import { type TaskSpec, taskKey } from "../batch/spec.js";
import { compareReports, comparisonMarkdown } from "../eval/compare.js";
import { type Grade, grade, type Work } from "../eval/grade.js";
import { machineLacks } from "../eval/lacks.js";
import { besideLeaderboard, leaderboardMarkdown, readLeaderboard } from "../eval/leaderboard.js";
import { folderFor, type Retry, retrySpecsFor, taskSpecsFor } from "../eval/prepare.js";
import { withGradableReferences } from "../eval/reference.js";
import {
  buildReport,
  type EvalReport,
  readReport,
  reportHeadline,
  reportMarkdown,
  type TryOutcome,
} from "../eval/report.js";
import { defaultTries, loadSuite } from "../eval/suite.js";
import type { EvalTask, Suite } from "../eval/types.js";
import { ConfigError } from "../platform/errors.js";
import { eachLimited } from "../platform/limited.js";
import { type BatchCliOptions, renderer, runTasks } from "./batch.js";
import { refuseUnreachableModels } from "./preflight.js";

export interface EvalCliOptions extends BatchCliOptions {
  mode: "do" | "run";
  tasks?: string;
  /** `cairn eval polyglot`: the benchmark's checkout. */
  source?: string;
  /** 2: a second try, with the failing tests' output, for each task the first did not solve (default: the suite's). */
  tries?: 1 | 2;
  /** Grade the exercises' reference solutions, or the exercises as given, instead of running an agent. */
  gradeOnly?: "reference" | "given";
  /** `--models a,b`: a run for each model, and one table of them. */
  models?: string;
  /** `--agents x,y`: a run for each agent, and one table of them. */
  agents?: string;
}

/** How long one grading test command may run (aider's harness gives its test runs as long). */
const GRADE_TIMEOUT_MS = 180_000;

/** Grades every task that has work to grade, `jobs` at a time, saying how each came out. */
async function gradeAll(
  tasks: readonly EvalTask[],
  workOf: (task: EvalTask) => Work | undefined,
  options: { jobs: number; view: BatchRenderer; what: string },
): Promise<Map<string, Grade>> {
  const graded = tasks.filter((task) => workOf(task));
  options.view.handle({
    type: "batch.notice",
    message: `grading ${graded.length} ${options.what} in clean checkouts…`,
  });
  const grades = new Map<string, Grade>();
  let done = 0;
  await eachLimited(graded, options.jobs, async (task) => {
    const result = await grade(task, workOf(task)!, {
      cacheDir: repositoryCache(),
      timeoutMs: GRADE_TIMEOUT_MS,
    });
    grades.set(task.id, result);
    done += 1;
    const how = result.passed ? "solved" : `not solved${result.reason ? `: ${result.reason}` : ""}`;
    options.view.handle({
      type: "batch.notice",
      message: `graded ${done}/${graded.length} ${task.id}: ${how}`,
    });
  });
  return grades;
}

/** Runs the specs through the batch engine into `out`; each task's latest record by id, or undefined when not followed to the end. */
async function runTry(
  specs: TaskSpec[],
  out: string,
  options: EvalCliOptions,
  view: BatchRenderer,
): Promise<Map<string, TaskRecord> | undefined> {
  const { outcome } = await runTasks(specs, { ...options, out, wait: Boolean(options.queue) }, view);
  if (!outcome) return undefined;
  const latest = new Map(outcome.records.map((record) => [record.key, record]));
  const records = new Map<string, TaskRecord>();
  for (const spec of specs) {
    const record = latest.get(
      taskKey({
        ...spec,
        ...(options.model ? { model: options.model } : {}),
        ...(options.agent ? { agent: options.agent } : {}),
      }),
    );
    if (record) records.set(spec.id, record);
  }
  return records;
}

/** The exercises the first try did not solve, with what their tests printed: aider's second try gets that output. */
function retriesAfter(suite: Suite, first: TryOutcome): Retry[] {
  return suite.tasks.flatMap((task) => {
    const record = first.records.get(task.id);
    const graded = first.grades.get(task.id);
    // Instances and hidden tests: their output would show the agent tests it is not to see.
    if (task.kind !== "exercise" || task.hiddenTests || !record || !graded || graded.passed) return [];
    if (graded.reason) return [];
    return [{ task, patch: record.patch, output: graded.output }];
  });
}

/** The report into `out`, as report.json and report.md. */
async function saveReport(out: string, report: EvalReport): Promise<void> {
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(out, "report.md"), `${reportMarkdown(report)}\n`);
}

async function writeReport(out: string, report: EvalReport, view: BatchRenderer): Promise<void> {
  await saveReport(out, report);
  const by = report.grade_only ? "no agent" : `Model ${report.model}`;
  view.finish({
    text: `${reportHeadline(report)}\n${by} · cairn ${report.cairn_version}\nReport in ${path.join(out, "report.md")}`,
    json: { ...report, out },
  });
}

/** What the agent did to each task, to grade: its patch, after the one of its first try for a second. */
function agentWork(outcome: ReadonlyMap<string, TaskRecord>, before?: ReadonlyMap<string, TaskRecord>) {
  return (task: EvalTask): Work | undefined => {
    const record = outcome.get(task.id);
    if (!record) return undefined;
    const earlier = before?.get(task.id)?.patch;
    return { patches: earlier === undefined ? [record.patch] : [earlier, record.patch] };
  };
}

/**
 * With --tries 2, a second try for the tasks the first did not solve, given their test output,
 * within what the first left of --max-cost; graded. `left`: tasks whose second try has no record.
 */
async function secondTry(
  suite: Suite,
  first: TryOutcome,
  out: string,
  options: EvalCliOptions,
  view: BatchRenderer,
): Promise<{ outcome: TryOutcome; left: number } | "not followed"> {
  const retries = retriesAfter(suite, first);
  // --max-cost is for the whole eval: the second tries get what the first left.
  const spent = [...first.records.values()].reduce((sum, record) => sum + (record.cost_usd ?? 0), 0);
  const budget = options.maxCost === undefined ? undefined : options.maxCost - spent;
  const runnable = budget === undefined || budget > 0 ? retries : [];
  view.handle({
    type: "batch.notice",
    message: runnable.length
      ? `second try for ${retries.length} task(s) not solved, with their test output…`
      : `no second tries: --max-cost was spent on the first (${retries.length} task(s) not solved)`,
  });
  const records = runnable.length
    ? await runTry(
        await retrySpecsFor(runnable, { workspaces: path.join(out, "workspaces-2"), mode: options.mode }),
        path.join(out, "try-2"),
        { ...options, ...(budget === undefined ? {} : { maxCost: budget }) },
        view,
      )
    : new Map<string, TaskRecord>();
  if (!records) return "not followed";
  const grades = await gradeAll(
    retries.map((retry) => retry.task),
    agentWork(records, first.records),
    { jobs: options.jobs ?? defaultJobs(), view, what: "second tries" },
  );
  return {
    outcome: { records, grades },
    left: retries.filter((retry) => !records.has(retry.task.id)).length,
  };
}

/** Says, before anything runs, what this machine lacks that the suite's exercises (and `solutions` to them) need. */
export async function sayLacks(suite: Suite, view: BatchRenderer, solutions: boolean): Promise<void> {
  for (const message of await machineLacks(suite, { solutions }))
    view.handle({ type: "batch.notice", message });
}

/**
 * `--grade-only reference|given`: no agent, no model; each exercise graded with its reference
 * solution, or as given. What a machine grades right, and that no stub passes by accident,
 * before paying for a run.
 */
async function gradeOnlyCommand(whole: Suite, options: EvalCliOptions, started: number): Promise<number> {
  const what = options.gradeOnly!;
  const suite = what === "reference" ? await withGradableReferences(whole) : whole;
  // Tasks the machine cannot grade at all are skipped and reported; a suite whose every task
  // lacks a reference solution is a mistake to say at once.
  if (suite.tasks.length === 0 && whole.tasks.length > 0) {
    throw new ConfigError(
      `no task of ${suite.name} has a reference solution graded here (an instance's is its \`patch\`): ${suite.skipped[whole.skipped.length]?.reason}.`,
    );
  }
  const out = path.resolve(options.out ?? `eval-${folderFor(suite.name)}-${what}`);
  const view = await renderer(options.outputFormat);
  await sayLacks(suite, view, false);
  const work: Work = what === "reference" ? { reference: true } : { patches: [] };
  const grades = await gradeAll(suite.tasks, () => work, {
    jobs: options.jobs ?? defaultJobs(),
    view,
    what: what === "reference" ? "reference solutions" : "exercises as given",
  });
  const report = buildReport({
    suite,
    first: { records: new Map(), grades },
    gradeOnly: what,
    model: "none",
    mode: options.mode,
    version: cairnVersion(),
    wallMs: Date.now() - started,
  });
  await writeReport(out, report, view);
  if (what === "given") return 0;
  return report.tasks.every((task) => task.solved) ? 0 : 1;
}

/** Who ran the tasks, as reports name it: the agent (with its model), else the models the sessions used. */
function runLabel(records: ReadonlyMap<string, TaskRecord>, options: EvalCliOptions): string {
  const models = [...new Set([...records.values()].map((record) => record.model).filter(Boolean))];
  const model = models.join(", ") || options.model;
  if (options.agent) return model ? `${options.agent} (${model})` : options.agent;
  return model || "default";
}

/** Where a run's results go without --out: named after the suite and who ran it. */
export function defaultEvalOut(suite: Suite, options: Pick<EvalCliOptions, "agent" | "model">): string {
  return path.resolve(
    `eval-${folderFor(suite.name)}-${folderFor(options.agent ?? options.model ?? "default")}`,
  );
}

/** One run of the suite, written to `out`: its report, or undefined when it was not followed to the end. */
export async function evalRun(
  suite: Suite,
  options: EvalCliOptions,
  out: string,
  view: BatchRenderer,
): Promise<{ report: EvalReport; complete: boolean } | undefined> {
  const started = Date.now();
  const specs = await taskSpecsFor(suite.tasks, {
    workspaces: path.join(out, "workspaces"),
    mode: options.mode,
  });
  const records = await runTry(specs, out, options, view);
  if (!records) return undefined;
  const first: TryOutcome = {
    records,
    grades: await gradeAll(suite.tasks, agentWork(records), {
      jobs: options.jobs ?? defaultJobs(),
      view,
      what: "task(s)",
    }),
  };
  const tries = options.tries ?? defaultTries(suite);
  const second = tries === 2 ? await secondTry(suite, first, out, options, view) : undefined;
  if (second === "not followed") return undefined;
  const report = buildReport({
    suite,
    first,
    ...(second ? { second: second.outcome } : {}),
    model: runLabel(records, options),
    mode: options.mode,
    version: cairnVersion(),
    wallMs: Date.now() - started,
  });
  await saveReport(out, report);
  return { report, complete: report.totals.run === suite.tasks.length && (second?.left ?? 0) === 0 };
}

/** The models a run will use here, for the pre-flight: none when an external agent brings its own. */
export function modelsToCheck(options: Pick<EvalCliOptions, "agent" | "model">): Array<string | undefined> {
  return options.agent?.startsWith("agent:") ? [] : [options.model];
}

/**
 * `cairn eval <suite>`: the suite's tasks through the batch engine (here, or on a queue, always
 * followed to the end), each graded in a clean checkout, with --tries 2 a second try for those
 * not solved, then the report: pass@1 (and pass@2), dollars per solved task, tokens and time, per
 * task and in total, to `--out` as report.json and report.md.
 */
export async function evalCommand(suiteName: string, options: EvalCliOptions): Promise<number> {
  const started = Date.now();
  // Grading alone needs no model; on a queue, the workers bring their own keys. Here, every task
  // would fail alike without one.
  if (!options.gradeOnly && !options.queue)
    await refuseUnreachableModels(modelsToCheck(options), { ...options, command: "eval" });
  const suite = await loadSuite(
    suiteName,
    options.tasks?.split(",").map((glob) => glob.trim()),
    options.source,
  );
  if (options.gradeOnly) return gradeOnlyCommand(suite, options, started);
  const out = options.out ? path.resolve(options.out) : defaultEvalOut(suite, options);
  const view = await renderer(options.outputFormat);
  await sayLacks(suite, view, true);
  const run = await evalRun(suite, options, out, view);
  if (!run) return 1;
  await writeReport(out, run.report, view);
  return run.complete ? 0 : 1;
}

/**
 * `cairn eval compare A [B] [--leaderboard file]`: two reports side by side, and the tasks whose
 * outcome changed; with a leaderboard, each report beside the leaderboard's figures for its model.
 */
export async function evalCompareCommand(
  a: string,
  b: string | undefined,
  options: { outputFormat: BatchOutputFormat; leaderboard?: string; leaderboardModel?: string },
): Promise<number> {
  if (!b && !options.leaderboard) {
    throw new ConfigError("cairn eval compare needs two reports, or one and --leaderboard <file>.");
  }
  const reports = [await readReport(a), ...(b ? [await readReport(b)] : [])];
  const comparison = b ? compareReports(reports[0]!, reports[1]!) : undefined;
  const leaderboard = options.leaderboard ? await readLeaderboard(options.leaderboard) : undefined;
  const beside = leaderboard
    ? reports.map((report) => besideLeaderboard(report, leaderboard, options.leaderboardModel))
    : [];
  if (options.outputFormat === "text") {
    const parts = [
      ...(comparison ? [comparisonMarkdown(comparison)] : []),
      ...beside.map((entry) => leaderboardMarkdown(entry)),
    ];
    process.stdout.write(`${parts.join("\n\n")}\n`);
  } else {
    const json = leaderboard ? { ...(comparison ?? {}), leaderboard: beside } : comparison;
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  }
  return 0;
}
