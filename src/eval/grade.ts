import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { git } from "../batch/git.js";
import { isolate } from "../batch/isolate.js";
import { truncateHeadTail } from "../platform/truncate.js";
import { runCheck } from "../verify/check.js";
import { applyAgentPatches, exerciseProtected, filesIn } from "./patches.js";
import { placeReference } from "./reference.js";
import { testCommand } from "./runners.js";
import type { EvalTask, ExerciseTask, SweTask } from "./types.js";

export interface Grade {
  passed: boolean;
  /** Files the agent changed that grading put back as they were: the tests, and files it may not touch. */
  reverted: string[];
  /** Each command run, and whether it passed. */
  checks: Array<{ command: string; passed: boolean; kind?: "fail_to_pass" | "pass_to_pass" }>;
  /** The head and tail of what the failing command printed (or of the last one, when all passed). */
  output: string;
  /** Why it could not be graded the usual way (the patch did not apply). */
  reason?: string;
}

export interface GradeOptions {
  /** Where URL repositories are cloned once. */
  cacheDir: string;
  /** For each test command. */
  timeoutMs: number;
}

const OUTPUT_LIMITS = { headBytes: 1_500, tailBytes: 2_500 };

/**
 * What is graded: the agent's work (its patches, the first try's then the second's, each without
 * its edits to protected files), the exercise as given (no patches), or its reference solution.
 */
export type Work = { patches: string[] } | { reference: true };

async function runChecks(
  dir: string,
  commands: Array<{ command: string; kind?: "fail_to_pass" | "pass_to_pass" }>,
  timeoutMs: number,
): Promise<Pick<Grade, "passed" | "checks" | "output">> {
  const results = [];
  for (const { command, kind } of commands) {
    const result = await runCheck(
      { name: "grade", command, kind: "test", source: "project" },
      { cwd: dir, timeoutMs },
    );
    results.push({ command, kind, passed: result.passed, output: result.output });
  }
  const failing = results.find((result) => !result.passed);
  const output = failing ? `$ ${failing.command}\n${failing.output}` : (results.at(-1)?.output ?? "");
  return {
    passed: results.length > 0 && !failing,
    checks: results.map(({ command, kind, passed }) => ({ command, passed, ...(kind ? { kind } : {}) })),
    output: truncateHeadTail(output, OUTPUT_LIMITS).text,
  };
}

/** An exercise in a fresh copy of itself, tests included, with the work to grade minus its edits to tests. */
async function gradeExercise(task: ExerciseTask, work: Work, options: GradeOptions): Promise<Grade> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-grade-"));
  const dir = path.join(root, "exercise");
  try {
    await cp(task.dir, dir, { recursive: true });
    // Its own repository, so that `git apply` applies here and nowhere above it.
    await git(dir, ["init", "--quiet"]);
    let reverted: string[] = [];
    if ("reference" in work) await placeReference(task, dir);
    else {
      const applied = await applyAgentPatches(dir, work.patches, exerciseProtected(task));
      if (applied.failure)
        return { passed: false, reverted: applied.reverted, checks: [], output: "", reason: applied.failure };
      reverted = applied.reverted;
    }
    return { ...(await runChecks(dir, [{ command: testCommand(task) }], options.timeoutMs)), reverted };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The instance's setup and build, run in the grading checkout before its tests: a failure is a
 * grade that failed, saying which and with its output.
 */
async function readyForTests(
  task: SweTask,
  dir: string,
  timeoutMs: number,
): Promise<Omit<Grade, "reverted"> | undefined> {
  for (const [what, command] of [
    ["setup", task.setup_command],
    ["build", task.build_command],
  ] as const) {
    if (!command) continue;
    const result = await runCheck(
      { name: what, command, kind: "build", source: "project" },
      { cwd: dir, timeoutMs },
    );
    if (result.passed) continue;
    return {
      passed: false,
      checks: [{ command, passed: false }],
      output: truncateHeadTail(`$ ${command}\n${result.output}`, OUTPUT_LIMITS).text,
      reason: `the instance's ${what} command failed`,
    };
  }
  return undefined;
}

/**
 * An instance in a clean checkout at its base commit: the agent's patch minus what touches the
 * tests, then the test patch, then PASS_TO_PASS and FAIL_TO_PASS, all of which must pass.
 */
async function gradeInstance(task: SweTask, patches: string[], options: GradeOptions): Promise<Grade> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-grade-"));
  const copy = await isolate(
    { id: task.id, repo: task.repo, ref: task.base_commit },
    { root, cacheDir: options.cacheDir },
  );
  try {
    const testPatch = task.test_patch ?? "";
    const applied = await applyAgentPatches(copy.dir, patches, [...filesIn(testPatch), ...task.test_files]);
    if (applied.failure)
      return { passed: false, reverted: applied.reverted, checks: [], output: "", reason: applied.failure };
    if (testPatch.trim()) {
      const file = path.join(root, "test.patch");
      await writeFile(file, testPatch);
      const applies = await git(copy.dir, ["apply", "--binary", "--whitespace=nowarn", file]).then(
        () => true,
        () => false,
      );
      if (!applies) {
        const reason = `the instance's test_patch does not apply at ${task.base_commit}: the suite is wrong`;
        return { passed: false, reverted: applied.reverted, checks: [], output: "", reason };
      }
    }
    const unready = await readyForTests(task, copy.dir, options.timeoutMs);
    if (unready) return { ...unready, reverted: applied.reverted };
    const commands = [
      ...task.pass_to_pass.map((command) => ({ command, kind: "pass_to_pass" as const })),
      ...task.fail_to_pass.map((command) => ({ command, kind: "fail_to_pass" as const })),
    ];
    return { ...(await runChecks(copy.dir, commands, options.timeoutMs)), reverted: applied.reverted };
  } finally {
    await copy.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * Grades a task: the agent's change (or the exercise's reference solution, or nothing), in a
 * clean checkout, against the tests it could not edit. What stops grading (a repository out of
 * reach, an instance with no reference) is a failed grade that says why.
 */
export async function grade(task: EvalTask, work: Work, options: GradeOptions): Promise<Grade> {
  try {
    if (task.kind === "exercise") return await gradeExercise(task, work, options);
    if ("reference" in work) {
      if (task.reference_patch !== undefined)
        return await gradeInstance(task, [task.reference_patch], options);
      return {
        passed: false,
        reverted: [],
        checks: [],
        output: "",
        reason: "an instance has no reference solution",
      };
    }
    return await gradeInstance(task, work.patches, options);
  } catch (error) {
    return {
      passed: false,
      reverted: [],
      checks: [],
      output: "",
      reason: `could not grade: ${(error as Error).message}`,
    };
  }
}
