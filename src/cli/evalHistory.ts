import path from "node:path";
import { defaultJobs, repositoryCache } from "../batch/batch.js";
import { loadIssues } from "../eval/history/issues.js";
import { type Mining, mineHistory, type RemoteMiner } from "../eval/history/mine.js";
import { type HistoryReport, historyHeadline } from "../eval/history/report.js";
import { instanceId, repositoryName, writeSuite } from "../eval/history/suiteFiles.js";
import { type MinedCommit, type MiningSettings, REASON_TEXT } from "../eval/history/types.js";
import { ConfigError } from "../platform/errors.js";
import { firstLine, plural } from "../platform/format.js";
import { onStopSignal, signalExitCode } from "../platform/signals.js";
import { openDatabase, storePath } from "../store/db.js";

export interface EvalHistoryOptions {
  suite?: string;
  since?: string;
  until?: string;
  max?: number;
  paths?: string;
  /** Commander's `--no-first-parent`. */
  firstParent: boolean;
  issues?: string;
  testCmd?: string;
  buildCmd?: string;
  /** Commander's `--no-build`. */
  build: boolean;
  setup?: string;
  testTimeout: number;
  jobs?: number;
  queue?: string;
  outputFormat: "text" | "json";
}

function settingsOf(options: EvalHistoryOptions): MiningSettings {
  return {
    ...(options.testCmd ? { testCommand: options.testCmd } : {}),
    ...(!options.build
      ? { buildCommand: false as const }
      : options.buildCmd
        ? { buildCommand: options.buildCmd }
        : {}),
    ...(options.setup ? { setupCommand: options.setup } : {}),
    timeoutMs: options.testTimeout * 1000,
  };
}

/** A line for each commit as it is decided, on stderr (stdout is for --output-format json). */
function progressLine(
  repo: string,
  mined: MinedCommit,
  done: number,
  total: number,
  cached: boolean,
): string {
  const what =
    mined.status === "instance"
      ? `instance ${instanceId(repo, mined.sha)} (${mined.fail_to_pass.length} fail→pass, ${mined.pass_to_pass.length} pass→pass)`
      : `left out: ${REASON_TEXT[mined.reason]}`;
  return `[${done}/${total}] ${mined.sha.slice(0, 10)} ${firstLine(mined.subject, 60)}: ${what}${cached ? " (from the store)" : ""}\n`;
}

/** Why nothing was found, in one line: the commits looked at, and what left them out, most common first. */
function nothingFound(report: HistoryReport, dir: string): string {
  const reasons = Object.entries(report.totals.by_reason)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([reason, count]) => `${count} ${REASON_TEXT[reason as keyof typeof REASON_TEXT]}`);
  return `no usable commit in ${report.repo}: of ${plural(report.totals.commits, "commit")} looked at, ${reasons.join("; ")} (${path.join(dir, "report.md")}).`;
}

async function remoteMiner(
  options: EvalHistoryOptions,
  signal: AbortSignal,
): Promise<RemoteMiner | undefined> {
  if (!options.queue) return undefined;
  const { mineOnQueue } = await import("../eval/history/queue.js");
  return mineOnQueue({
    url: options.queue,
    signal,
    notice: (message) => process.stderr.write(`${message}\n`),
  });
}

async function mine(
  repo: string,
  options: EvalHistoryOptions,
  jobs: number,
  signal: AbortSignal,
): Promise<Mining> {
  const db = openDatabase(storePath());
  try {
    const remote = await remoteMiner(options, signal);
    return await mineHistory({
      repo,
      range: {
        ...(options.since ? { since: options.since } : {}),
        ...(options.until ? { until: options.until } : {}),
        ...(options.max ? { max: options.max } : {}),
        ...(options.paths
          ? {
              paths: options.paths
                .split(",")
                .map((part) => part.trim())
                .filter(Boolean),
            }
          : {}),
        firstParent: options.firstParent,
      },
      settings: settingsOf(options),
      jobs,
      cacheDir: repositoryCache(),
      db,
      signal,
      ...(remote ? { remote } : {}),
      onCommit: (mined, { done, total, cached, repo: top }) => {
        if (options.outputFormat === "text")
          process.stderr.write(progressLine(top, mined, done, total, cached));
      },
    });
  } finally {
    db.close();
  }
}

/**
 * `cairn eval history [repo] --suite DIR`: the repository's own fixes as a SWE-style suite —
 * commits whose tests fail on the parent and pass on the commit — written to DIR for `cairn
 * eval DIR`, with a report of every commit left out and why. Exit 2 when no commit is usable.
 */
export async function evalHistoryCommand(
  repoArg: string | undefined,
  options: EvalHistoryOptions,
): Promise<number> {
  const repo = repoArg ?? ".";
  const issues = options.issues ? await loadIssues(options.issues) : new Map();
  const jobs = options.jobs ?? defaultJobs();
  const controller = new AbortController();
  const release = onStopSignal((stop) => {
    if (controller.signal.aborted) process.exit(signalExitCode(stop));
    controller.abort();
    process.stderr.write(
      "stopping: what was mined is kept, and mining again goes on from there. Ctrl-C again to quit at once.\n",
    );
  });
  let mining: Mining;
  try {
    mining = await mine(repo, options, jobs, controller.signal);
  } finally {
    release();
  }
  const dir = path.resolve(options.suite ?? `${repositoryName(mining.repo)}-history`);
  const { report, instances } = await writeSuite(dir, mining, { issues, messages: mining.messages, jobs });
  if (instances === 0 && mining.complete) throw new ConfigError(nothingFound(report, dir));
  if (options.outputFormat === "json")
    process.stdout.write(`${JSON.stringify({ ...report, suite: dir }, null, 2)}\n`);
  else if (instances === 0)
    process.stdout.write(`${historyHeadline(report)}\nNo instance yet; the report is in ${dir}.\n`);
  else
    process.stdout.write(`${historyHeadline(report)}\nSuite in ${dir}: run it with \`cairn eval ${dir}\`\n`);
  return mining.complete ? 0 : 1;
}
