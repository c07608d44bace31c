// The builtin suite itself: each task's hidden tests fail on the stub the agent is given and pass
// on the reference solution in .meta/, run by the same runner grading uses.
import { cp, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCommand } from "../../src/eval/runners.js";
import { loadSuite } from "../../src/eval/suite.js";
import type { ExerciseTask } from "../../src/eval/types.js";
import { runCheck } from "../../src/verify/check.js";
import { tempDir } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";

let root: string;
beforeAll(async () => {
  root = tempDir("cairn-suite-");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the builtin suite", async () => {
  const suite = await loadSuite("builtin");
  const tasks = suite.tasks as ExerciseTask[];

  it("has at least 20 tasks in JavaScript and Python, each with hidden tests and a reference solution", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(20);
    expect(new Set(tasks.map((t) => t.language))).toEqual(new Set(["javascript", "python"]));
    expect(tasks.every((t) => t.hiddenTests)).toBe(true);
  });

  it("has tests that fail on every stub and pass on every reference solution", {
    timeout: scaled(120_000),
  }, async () => {
    const outcomes: string[] = [];
    const queue = [...tasks];
    const lane = async () => {
      for (let task = queue.shift(); task; task = queue.shift()) {
        const dir = path.join(root, task.id);
        await cp(task.dir, dir, { recursive: true });
        const run = () =>
          runCheck(
            { name: "tests", command: testCommand(task!), kind: "test", source: "project" },
            { cwd: dir, timeoutMs: 30_000 },
          );
        const stub = await run();
        await cp(
          path.join(dir, ".meta", `example${path.extname(task.solution[0]!)}`),
          path.join(dir, task.solution[0]!),
        );
        const solved = await run();
        outcomes.push(
          `${task.id}: stub ${stub.passed ? "passes" : "fails"}, example ${solved.passed ? "passes" : `fails ${solved.output}`}`,
        );
      }
    };
    await Promise.all([lane(), lane()]);
    expect(outcomes.sort()).toEqual(tasks.map((t) => `${t.id}: stub fails, example passes`).sort());
  });
});
