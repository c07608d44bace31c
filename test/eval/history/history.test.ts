import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { HistoryReport } from "../../../src/eval/history/report.js";
import { makeHome, runCairn } from "../../helpers/cli.js";
import { type History, JS_STEPS, makeHistory, PYTHON_STEPS } from "../../helpers/history.js";
import { byTask, declines, runEval, toolResultsIn } from "../../helpers/tasks.js";
import { type ScriptedServer, startScriptedServer } from "../../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MINING_MS = 240_000;

/** `cairn eval history <repo> --suite <dir>` as a user runs it, and the report it printed. */
async function mine(repo: string, suite: string, home: string, extra: string[] = []): Promise<HistoryReport> {
  const run = await runCairn(
    ["eval", "history", repo, "--suite", suite, "--jobs", "2", "--output-format", "json", ...extra],
    { home, timeoutMs: MINING_MS },
  );
  if (run.code !== 0) throw new Error(`cairn eval history exited with ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as HistoryReport;
}

/** `cairn eval <suite> --grade-only reference`, checked to exit 0: whether each instance was solved. */
async function gradedWithReference(suite: string, home: string): Promise<boolean[]> {
  const out = path.join(home, "reference");
  const run = await runCairn(
    ["eval", suite, "--grade-only", "reference", "--out", out, "--output-format", "json"],
    {
      home,
      timeoutMs: MINING_MS,
    },
  );
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { tasks: Array<{ solved: boolean }> }).tasks.map((task) => task.solved);
}

/** The instances file of a suite, a line each. */
async function instancesOf(suite: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path.join(suite, "instances.jsonl"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const reasonsBy = (report: HistoryReport, history: History) =>
  Object.fromEntries(
    report.left_out.map((row) => [
      Object.keys(history.commits).find((name) => history.commits[name] === row.commit),
      row.reason,
    ]),
  );

/** Why each commit of either made-up history (test/helpers/history.ts) but its two fixes is left out. */
const LEFT_OUT = {
  initial: "root_commit",
  refactor: "no_test_change",
  flaky: "flaky",
  breaks: "no_test_change",
  fixAfterBreak: "build_fails_on_parent",
};

/** The run_command result the model got back for the task marked `marker`. */
function commandOutput(marker: string): string {
  const request = server!.requests.find((each) => each.rawBody.includes(marker) && toolResultsIn(each) === 1);
  const body = request?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  const messages = body?.messages ?? [];
  return String(messages.find((message) => message.role === "tool")?.content ?? "");
}

describe("cairn eval history", () => {
  it("mines a JavaScript history into exactly its fixes, which grade solved with the reference and not with nothing, and whose agent cannot reach the fix", async () => {
    const history = await makeHistory(JS_STEPS);
    const home = await makeHome();
    const suite = path.join(home, "suite");
    // As `gh issue list --json number,title,body` prints them; #4 is named by no commit.
    const issues = path.join(home, "issues.json");
    await writeFile(
      issues,
      JSON.stringify([
        {
          number: 3,
          title: "median([10, 9, 2]) is 10",
          body: "It should be 9.",
          url: "https://example.com/3",
        },
        { number: 4, title: "Unrelated", body: null },
      ]),
    );
    const report = await mine(history.repo, suite, home, ["--issues", issues]);

    expect(report.instances.map((row) => row.commit).sort()).toEqual(
      [history.commits.fixMedian, history.commits.fixMean].sort(),
    );
    expect(reasonsBy(report, history)).toEqual(LEFT_OUT);
    const [median, mean] = await instancesOf(suite);
    expect(median).toMatchObject({
      base_commit: history.commits.initial,
      commit: history.commits.fixMedian,
      test_runner: "node",
      FAIL_TO_PASS: ["test/median.test.js::median > of numbers with more than one digit"],
      PASS_TO_PASS: ["test/median.test.js::median > of one number"],
      problem_statement:
        "Fix median of numbers sorted as text (#3)\n\nThe median sorted its numbers as strings.\n\n## #3: median([10, 9, 2]) is 10\n\nIt should be 9.",
    });
    expect(mean).toMatchObject({
      FAIL_TO_PASS: ["test/mean.test.js::mean of none"],
      PASS_TO_PASS: ["test/mean.test.js::mean of three"],
    });
    // The reference change holds the source, the withheld tests the tests: each beside the instance too.
    expect(String(median!.patch)).toContain("diff --git a/src/stats.js b/src/stats.js");
    expect(String(median!.patch)).not.toContain("test/");
    expect(String(median!.test_patch)).toContain("diff --git a/test/median.test.js b/test/median.test.js");
    const folder = path.join(suite, "instances", String(median!.instance_id));
    expect(await readFile(path.join(folder, "tests.patch"), "utf8")).toBe(median!.test_patch);
    expect(await readFile(path.join(folder, "reference.patch"), "utf8")).toBe(median!.patch);
    expect(await readFile(path.join(suite, "report.md"), "utf8")).toContain("the build fails on the parent");

    expect(await gradedWithReference(suite, home)).toEqual([true, true]);

    // A model that changes nothing; for one task it first looks for the future through git.
    const fix = history.commits.fixMedian!;
    const probe = `git log --all --format=%H | tr '\\n' ' '; echo; git cat-file -t ${fix} 2>&1; echo "cat-file exit $?"`;
    server = await startScriptedServer(
      byTask({
        "Fix median of numbers": (turn) =>
          turn === 0
            ? { toolCalls: [{ name: "run_command", args: { command: probe } }] }
            : { text: "Looked around; changed nothing." },
        "mean() of no numbers": declines,
      }),
    );
    const out = path.join(home, "eval");
    const idle = await runEval(suite, out, { home, server, timeoutMs: MINING_MS });
    expect(idle.tasks.map((task) => task.solved)).toEqual([false, false]);
    const seen = commandOutput("Fix median of numbers");
    // git works in the agent's copy, and holds the base commit and nothing after it.
    expect(seen).not.toContain("not a git repository");
    expect(seen).toContain("could not get object info");
    expect(seen).toContain("cat-file exit 128");
    const listed = seen.slice(seen.indexOf(history.commits.initial!)).split("\n")[0]!.trim();
    expect(listed).toBe(history.commits.initial);
  }, 600_000);

  it("mines a Python history (pytest node ids) and resumes from the store", async () => {
    const history = await makeHistory(PYTHON_STEPS);
    const home = await makeHome();
    const suite = path.join(home, "suite");
    const report = await mine(history.repo, suite, home);
    expect(report.instances.map((row) => row.commit).sort()).toEqual(
      [history.commits.fixSub, history.commits.fixAdd].sort(),
    );
    expect(reasonsBy(report, history)).toEqual(LEFT_OUT);
    const [sub] = await instancesOf(suite);
    expect(sub).toMatchObject({
      test_runner: "pytest",
      FAIL_TO_PASS: ["tests/test_sub.py::test_sub", "tests/test_sub.py::test_sub_self[1]"],
      PASS_TO_PASS: ["tests/test_sub.py::test_sub_self[0]"],
    });

    const again = await mine(history.repo, suite, home);
    expect(again.cached).toBe(again.totals.commits);
    expect(again.instances).toEqual(report.instances);

    expect(await gradedWithReference(suite, home)).toEqual([true, true]);
    server = await startScriptedServer(byTask({ "sub()": declines, "add() takes": declines }));
    const idle = await runEval(suite, path.join(home, "eval"), { home, server, timeoutMs: MINING_MS });
    expect(idle.tasks.map((task) => task.solved)).toEqual([false, false]);
  }, 600_000);

  it("says in one line that a history has no usable commit, and exits 2", async () => {
    const history = await makeHistory(
      JS_STEPS.filter((step) => ["initial", "refactor", "breaks"].includes(step.name)),
    );
    const home = await makeHome();
    const suite = path.join(home, "suite");
    const run = await runCairn(["eval", "history", history.repo, "--suite", suite], {
      home,
      timeoutMs: MINING_MS,
    });
    expect(run.code).toBe(2);
    const said = run.stderr.trim().split("\n");
    expect(said.at(-1)).toMatch(
      /^cairn: no usable commit in .*: of 3 commits looked at, 2 changes no test; 1 the repository's first commit/,
    );
    expect(said.filter((line) => line.startsWith("cairn:"))).toHaveLength(1);
    expect(existsSync(path.join(suite, "instances.jsonl"))).toBe(false);
    expect(existsSync(path.join(suite, "report.md"))).toBe(true);
  }, 120_000);
});
