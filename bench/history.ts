import { rm } from "node:fs/promises";
import path from "node:path";
import type { HistoryReport } from "../src/eval/history/report.js";
import { makeHome, runCairn } from "../test/helpers/cli.js";
import { JS_STEPS, makeHistory } from "../test/helpers/history.js";
import type { BenchResult } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";

export interface HistoryOptions {
  /** How many of the made-up JavaScript history's commits (test/helpers/history.ts). */
  commits: number;
  /** Commits mined at once, against one at a time. */
  jobs: number;
}

/**
 * What mining a history suite costs (issue 41): `cairn eval history` on the made-up JavaScript
 * history of the tests (fixes with tests, a refactor, a flaky test, a parent that does not
 * build) with `--jobs 1`, the baseline, then with `--jobs N` into a fresh store, then the same
 * again, every commit from the store. Each from the command's start to its exit. The figure for
 * this repository's own history is a documented command (docs/benchmarks.md): it takes hours.
 */
export async function benchHistory(options: HistoryOptions): Promise<BenchResult> {
  const started = nowMs();
  const history = await makeHistory(JS_STEPS.slice(0, options.commits));
  const homes: string[] = [];
  try {
    const mine = async (jobs: number, home?: string) => {
      const where = home ?? (await makeHome());
      if (!home) homes.push(where);
      const begun = nowMs();
      const run = await runCairn(
        [
          "eval",
          "history",
          history.repo,
          "--suite",
          path.join(where, "suite"),
          "--jobs",
          String(jobs),
        ].concat(["--output-format", "json"]),
        { home: where, timeoutMs: 600_000 },
      );
      if (run.code !== 0) throw new Error(`cairn eval history exited with ${run.code}: ${run.stderr}`);
      return { wall: nowMs() - begun, report: JSON.parse(run.stdout) as HistoryReport, home: where };
    };
    const one = await mine(1);
    const many = await mine(options.jobs);
    const again = await mine(options.jobs, many.home);
    const { totals } = many.report;
    const probed =
      many.report.left_out.filter(
        (row) => !["root_commit", "no_test_change", "no_source_change"].includes(row.reason),
      ).length + totals.instances;
    return {
      id: "history",
      title: "mining a history suite",
      figures: [
        {
          name: `mining ${totals.commits} commits (${probed} with tests to run), --jobs ${options.jobs}`,
          value: many.wall,
          unit: "ms",
          baseline: { name: "--jobs 1", value: one.wall },
        },
        { name: "instances found", value: totals.instances, unit: "count" },
        {
          name: "mining them again, every commit from the store",
          value: again.wall,
          unit: "ms",
          baseline: { name: `mining them, --jobs ${options.jobs}`, value: many.wall },
        },
      ],
      details: {
        commits: totals.commits,
        probed,
        instances: totals.instances,
        by_reason: totals.by_reason,
        jobs: options.jobs,
        wall_ms: { jobs_1: one.wall, jobs_n: many.wall, from_store: again.wall },
      },
      durationMs: nowMs() - started,
    };
  } finally {
    await rm(history.repo, { recursive: true, force: true });
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  }
}
