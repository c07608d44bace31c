// `cairn eval compare --leaderboard`: a polyglot report set beside aider's published figures for
// the same model, from the leaderboard's own data file.
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/report.js";
import { makeHome, runCairn } from "../helpers/cli.js";

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** As aider/website/_data/polyglot_leaderboard.yml writes its rows. */
const LEADERBOARD = `- dirname: 2025-01-17-19-44-33--sonnet-baseline-jan-17
  test_cases: 225
  model: claude-3-5-sonnet-20241022
  edit_format: diff
  commit_hash: 6451d59
  pass_rate_1: 22.2
  pass_rate_2: 51.6
  pass_num_1: 50
  pass_num_2: 116
  percent_cases_well_formed: 99.6
  command: aider --model claude-3-5-sonnet-20241022
  date: 2025-01-17
  versions: 0.71.2.dev
  seconds_per_case: 21.4
  total_cost: 14.4063

- dirname: 2024-12-21-18-41-18--polyglot-gpt-4o-mini
  test_cases: 225
  model: gpt-4o-mini-2024-07-18
  edit_format: whole
  pass_rate_1: 0.9
  pass_rate_2: 3.6
  command: aider --model gpt-4o-mini-2024-07-18
  date: 2024-12-21
  versions: 0.69.2.dev
  seconds_per_case: 17.3
  total_cost: 0.3236

- dirname: 2024-12-30-20-57-12--gpt-4o-2024-11-20-ex-as-sys
  test_cases: 225
  model: gpt-4o-2024-11-20
  edit_format: diff
  pass_rate_1: 4.9
  pass_rate_2: 18.2
  command: aider --model gpt-4o-2024-11-20
  date: 2024-12-30
  versions: 0.70.1.dev
  seconds_per_case: 12.1
  total_cost: 6.7435
`;

/**
 * A report as `cairn eval` writes it, without the rates in percent, as reports were written before
 * they carried them: `compare` reads both.
 */
function report(
  model: string,
  overrides: Partial<EvalReport["totals"]> & { tries?: 1 | 2 } = {},
): EvalReport {
  const { tries = 2, ...totals } = overrides;
  return {
    suite: "polyglot",
    source: "/benchmarks/polyglot-benchmark",
    tasks_filter: null,
    model,
    mode: "run",
    tries,
    grade_only: null,
    cairn_version: "0.1.0",
    date: "2026-03-02T10:00:00.000Z",
    totals: {
      tasks: 225,
      run: 224,
      skipped: 1,
      solved: 99,
      pass_at_1: 99 / 225,
      solved_2: tries === 2 ? 126 : null,
      pass_at_2: tries === 2 ? 126 / 225 : null,
      cost_usd: 22.4,
      unpriced: 0,
      cost_per_solved_usd: 22.4 / 126,
      input_tokens: 9_000_000,
      output_tokens: 400_000,
      task_time_ms: 224 * 45_000,
      wall_ms: 3_600_000,
      ...totals,
    } as EvalReport["totals"],
    tasks: [],
    skipped: [
      { id: "java/hangman", language: "java", reason: "needs the library io.reactivex.rxjava2:rxjava" },
    ],
  };
}

async function compare(...args: string[]) {
  const home = await makeHome();
  made.push(home);
  await writeFile(path.join(home, "leaderboard.yml"), LEADERBOARD);
  const files = await Promise.all(
    args
      .filter((arg) => arg.startsWith("{"))
      .map(async (json, i) => {
        const file = path.join(home, `report-${i}.json`);
        await writeFile(file, json);
        return file;
      }),
  );
  const rest = args.filter((arg) => !arg.startsWith("{"));
  return runCairn(
    ["eval", "compare", ...files, "--leaderboard", path.join(home, "leaderboard.yml"), ...rest],
    {
      home,
    },
  );
}

describe("cairn eval compare --leaderboard", () => {
  it("sets a polyglot report beside the leaderboard's row for its model, figure by figure", async () => {
    const run = await compare(JSON.stringify(report("anthropic/claude-3-5-sonnet-20241022")));
    expect(run.code, run.stderr).toBe(0);
    const row = (what: string) => run.stdout.split("\n").find((line) => line.startsWith(`| ${what} `));
    expect(row("model")).toMatch(
      /\| anthropic\/claude-3-5-sonnet-20241022 +\| claude-3-5-sonnet-20241022 \(diff edits\) +\|/,
    );
    expect(row("pass@1 (first try)")).toMatch(/\| 44\.0% \(99\/225\) +\| 22\.2% +\|/);
    expect(row("pass@2")).toMatch(/\| 56\.0% \(126\/225\) +\| 51\.6% +\|/);
    expect(row("cost per exercise")).toMatch(/\| \$0\.10 +\| \$0\.06 +\|/);
    expect(row("time per exercise")).toMatch(/\| 45\.0s +\| 21\.4s +\|/);
    expect(run.stdout).toContain("1 exercise(s) could not be graded here and count as not solved");
    // What always differs from aider's harness, the largest first: the first try's test feedback.
    const caveats = run.stdout.slice(run.stdout.indexOf("Not like for like:")).split("\n- ").slice(1);
    expect(caveats[0]).toMatch(/^test feedback in the first try: cairn's agent runs the exercise's tests/);
    expect(caveats[0]).toContain("aider's pass_rate_1 has none");
    expect(run.stdout).toContain("toolchains: cairn grades with this machine's");
    expect(run.stdout).toContain("aider's harness ran Go 1.21.5");
    expect(run.stdout).toContain("time: aider's seconds per exercise count only its model's turns");
  });

  it("says in its JSON which rates are fractions and which percents", async () => {
    const run = await compare(
      JSON.stringify(report("claude-3-5-sonnet-20241022")),
      "--output-format",
      "json",
    );
    expect(run.code, run.stderr).toBe(0);
    const [beside] = JSON.parse(run.stdout).leaderboard;
    expect(beside.report.totals).toMatchObject({
      pass_at_1: 99 / 225,
      pass_at_1_percent: 44,
      pass_at_2: 126 / 225,
      pass_at_2_percent: 56,
    });
    expect(beside.entry).toMatchObject({ pass_rate_1: 22.2, pass_rate_2: 51.6 });
  });

  it("says what is not like for like: one try, part of the benchmark", async () => {
    const oneTry = report("claude-3-5-sonnet-20241022", { tries: 1 });
    const part = {
      ...oneTry,
      tasks_filter: ["python/*"],
      totals: { ...oneTry.totals, tasks: 34, skipped: 0 },
    };
    const run = await compare(JSON.stringify(part));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("one try: the leaderboard ranks by pass@2");
    expect(run.stdout).toContain(
      "not the same exercises: this report is polyglot, 34 task(s) (--tasks python/*)",
    );
  });

  it("asks which row when the model has several, and takes the one named", async () => {
    const ambiguous = await compare(JSON.stringify(report("openai/gpt-4o")));
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("the leaderboard has 2 rows for openai/gpt-4o");
    expect(ambiguous.stderr).toContain("--leaderboard-model");
    expect(ambiguous.stderr).toContain("gpt-4o-mini-2024-07-18 (whole), 2024-12-21");

    const named = await compare(
      JSON.stringify(report("openai/gpt-4o")),
      "--leaderboard-model",
      "gpt-4o-2024-11-20",
    );
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toMatch(/\| pass@2 .*\| 18\.2% +\|/);

    const none = await compare(JSON.stringify(report("google/gemini-9")));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("the leaderboard has no row for google/gemini-9");
  });

  it("still compares two reports, with the leaderboard for each", async () => {
    const a = report("claude-3-5-sonnet-20241022");
    const b = {
      ...report("claude-3-5-sonnet-20241022"),
      totals: { ...a.totals, solved_2: 130, pass_at_2: 130 / 225 },
    };
    const run = await compare(JSON.stringify(a), JSON.stringify(b));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\| pass@2 +\| 56% \(126\/225\) +\| 58% \(130\/225\) +\| \+2 pts \|/);
    expect(run.stdout.match(/\| aider leaderboard \|/g)).toHaveLength(2);
  });
});
