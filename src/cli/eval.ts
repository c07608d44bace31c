import { writeFile } from "node:fs/promises";
import path from "node:path";
import { defaultJobs, repositoryCache } from "../batch/batch.js";
import { cairnVersion } from "../batch/install.js";
import type { BatchOutputFormat } from "../batch/progress.js";
import type { TaskRecord } from "../batch/record.js";
import { taskKey } from "../batch/spec.js";
import { compareReports, comparisonMarkdown } from "../eval/compare.js";
import { type Grade, grade } from "../eval/grade.js";
import { folderFor, taskSpecsFor } from "../eval/prepare.js";
import { buildReport, readReport, reportHeadline, reportMarkdown } from "../eval/report.js";
import { loadSuite } from "../eval/suite.js";
import { type BatchCliOptions, renderer, runTasks } from "./batch.js";
import { refuseUnreachableModels } from "./preflight.js";

export interface EvalCliOptions extends BatchCliOptions {
  mode: "do" | "run";
  tasks?: string;
}

/** How long one grading test command may run. */
const GRADE_TIMEOUT_MS = 120_000;

/** Runs `work` on every item, at most `limit` at once. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/**
 * `cairn eval <suite>`: the suite's tasks through the batch engine (here, or on a queue, always
 * followed to the end), each graded in a clean checkout, then the report: pass@1, dollars per
 * solved task, tokens and time, per task and in total, to `--out` as report.json and report.md.
 */
export async function evalCommand(suiteName: string, options: EvalCliOptions): Promise<number> {
  const started = Date.now();
  // Workers on a queue bring their own keys; here, every task would fail alike without one.
  if (!options.queue) await refuseUnreachableModels([options.model], { ...options, command: "eval" });
  const suite = await loadSuite(
    suiteName,
    options.tasks?.split(",").map((glob) => glob.trim()),
  );
  const out = path.resolve(
    options.out ?? `eval-${folderFor(suite.name)}-${folderFor(options.model ?? "default")}`,
  );
  const specs = await taskSpecsFor(suite.tasks, {
    workspaces: path.join(out, "workspaces"),
    mode: options.mode,
  });
  const view = await renderer(options.outputFormat);
  const { outcome } = await runTasks(specs, { ...options, out, wait: Boolean(options.queue) }, view);
  if (!outcome) return 1;

  const latest = new Map(outcome.records.map((record) => [record.key, record]));
  const records = new Map<string, TaskRecord>();
  for (const spec of specs) {
    const record = latest.get(taskKey({ ...spec, ...(options.model ? { model: options.model } : {}) }));
    if (record) records.set(spec.id, record);
  }
  view.handle({ type: "batch.notice", message: `grading ${records.size} task(s) in clean checkouts…` });
  const grades = new Map<string, Grade>();
  await eachLimited(suite.tasks, options.jobs ?? defaultJobs(), async (task) => {
    const record = records.get(task.id);
    if (record)
      grades.set(
        task.id,
        await grade(task, record, { cacheDir: repositoryCache(), timeoutMs: GRADE_TIMEOUT_MS }),
      );
  });

  const models = [...new Set([...records.values()].map((record) => record.model).filter(Boolean))];
  const report = buildReport({
    suite,
    records,
    grades,
    model: models.join(", ") || options.model || "default",
    mode: options.mode,
    version: cairnVersion(),
    wallMs: Date.now() - started,
  });
  await writeFile(path.join(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(out, "report.md"), `${reportMarkdown(report)}\n`);
  view.finish({
    text: `${reportHeadline(report)}\nModel ${report.model} · cairn ${report.cairn_version}\nReport in ${path.join(out, "report.md")}`,
    json: { ...report, out },
  });
  return report.totals.run === report.totals.tasks ? 0 : 1;
}

/** `cairn eval compare A B`: two reports side by side, and the tasks whose outcome changed. */
export async function evalCompareCommand(
  a: string,
  b: string,
  options: { outputFormat: BatchOutputFormat },
): Promise<number> {
  const comparison = compareReports(await readReport(a), await readReport(b));
  process.stdout.write(
    options.outputFormat === "text"
      ? `${comparisonMarkdown(comparison)}\n`
      : `${JSON.stringify(comparison, null, 2)}\n`,
  );
  return 0;
}
