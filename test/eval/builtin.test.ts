import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSuite } from "../../src/eval/suite.js";
import type { ExerciseTask } from "../../src/eval/types.js";
import { makeHome, runCairn } from "../helpers/cli.js";
import { byTask, declines, readResults, runEval, writes } from "../helpers/tasks.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What marks an exercise's requests: the prompt names its file. */
const marker = (task: ExerciseTask) => `Do this in \`${task.solution[0]}\``;

describe("cairn eval builtin", () => {
  it("runs every task, grades it on hidden tests, and reports pass@1 and cost as they were; an edit to a test file does not count", {
    timeout: scaled(180_000),
  }, async () => {
    // A few tasks of each language keep the test short; the whole suite's grading is checked apart.
    const chosen =
      "javascript/median,javascript/slugify,javascript/range,python/leap,python/flatten,python/word-wrap";
    const suite = await loadSuite("builtin", chosen.split(","));
    const tasks = suite.tasks as ExerciseTask[];
    expect(tasks).toHaveLength(6);
    const examples = new Map(
      await Promise.all(
        tasks.map(async (t) => {
          const example = path.join(t.dir, ".meta", `example${path.extname(t.solution[0]!)}`);
          return [t.id, await readFile(example, "utf8")] as const;
        }),
      ),
    );
    // Solved with the reference solution: a few of each language.
    const solved = ["javascript/median", "javascript/slugify", "python/leap"];
    // This one writes a test of its own where the hidden test goes, one that always passes.
    const cheat = tasks.find((t) => t.id === "python/word-wrap")!;
    server = await startScriptedServer(
      byTask(
        Object.fromEntries(
          tasks.map((t) => {
            if (solved.includes(t.id)) return [marker(t), writes(t.solution[0]!, examples.get(t.id)!)];
            if (t === cheat) {
              return [
                marker(t),
                writes(
                  t.tests[0]!,
                  "import unittest\n\nclass T(unittest.TestCase):\n    def test(self):\n        pass\n",
                ),
              ];
            }
            return [marker(t), declines];
          }),
        ),
      ),
    );
    const home = await makeHome();
    const out = path.join(home, "eval-a");
    const report = await runEval("builtin", out, { home, server, extra: ["--tasks", chosen, "--jobs", "2"] });
    expect(report).toMatchObject({
      suite: "builtin",
      model: "openai/gpt-4o",
      mode: "do",
      cairn_version: "0.1.0",
    });
    expect(report.tasks_filter).toEqual(chosen.split(","));
    expect(
      report.tasks
        .filter((t) => t.solved)
        .map((t) => t.id)
        .sort(),
    ).toEqual(solved.sort());
    // Solved is the grade's word, not the agent's: a do that wrote the solution with no check of
    // its own ended unverified, and its hidden tests passed.
    expect(new Set(report.tasks.filter((t) => t.solved).map((t) => t.status))).toEqual(
      new Set(["unverified"]),
    );
    expect(report.totals.tasks).toBe(tasks.length);
    expect(report.totals.pass_at_1).toBeCloseTo(solved.length / tasks.length, 10);
    // Dollars as the sessions spent them.
    const records = await readResults(out);
    expect(records).toHaveLength(tasks.length);
    const spent = records.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
    expect(report.totals.cost_usd).toBeCloseTo(spent, 10);
    expect(report.totals.cost_per_solved_usd).toBeCloseTo(spent / solved.length, 10);
    expect(report.totals.input_tokens).toBe(records.reduce((sum, r) => sum + r.usage.input_tokens, 0));
    // The test it wrote was put back: the hidden tests graded the untouched stub.
    const cheated = report.tasks.find((t) => t.id === cheat.id);
    expect(cheated).toMatchObject({
      solved: false,
      status: "unverified",
      reverted_test_edits: [cheat.tests[0]],
    });
    const markdown = await readFile(path.join(out, "report.md"), "utf8");
    expect(markdown).toContain(
      `pass@1 ${Math.round((solved.length / tasks.length) * 100)}% (${solved.length}/${tasks.length})`,
    );
    expect(markdown).toContain("edits to wrap\\_test.py undone");

    // Compared with a run that solved one task more.
    const better = structuredClone(report);
    better.model = "openai/gpt-5";
    better.tasks.find((t) => t.id === "python/flatten")!.solved = true;
    better.totals.solved += 1;
    better.totals.pass_at_1 = better.totals.solved / better.totals.tasks;
    await writeFile(path.join(home, "better.json"), JSON.stringify(better));
    const compare = await runCairn(["eval", "compare", out, path.join(home, "better.json")], { home });
    expect(compare.code, compare.stderr).toBe(0);
    expect(compare.stdout).toMatch(/\| pass@1 \| 50% \(3\/6\) \| 67% \(4\/6\) \| \+17 pts \|/);
    expect(compare.stdout).toMatch(/\| python\/flatten \| not solved \| solved \|/);
  });
});
