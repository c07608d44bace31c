import { cp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { git } from "../batch/git.js";
import type { TaskSpec } from "../batch/spec.js";
import { applyAgentPatches, exerciseProtected, TESTS_SCRIPT } from "./patches.js";
import { testCommand } from "./runners.js";
import type { EvalTask, ExerciseTask } from "./types.js";

const fileList = (files: readonly string[]) => files.map((file) => `\`${file}\``).join(", ");

/** How the agent runs the exercise's tests: the script in its folder, wherever cairn is installed. */
const RUN_TESTS = `./${TESTS_SCRIPT}`;

/**
 * The script that runs the exercise's tests as grading does. Grading's command names paths of
 * cairn's install (its Node, its test runners); the agent is given this instead, so that its
 * task and its check show the exercise's folder, not the host's layout.
 */
function testsScript(task: ExerciseTask): string {
  return `#!/bin/sh\n# This exercise's tests, run as cairn's eval grades them.\nexec ${testCommand(task)} "$@"\n`;
}

/**
 * What the agent is told for an exercise, as aider's benchmark tells the model (in cairn's words):
 * the exercise's instructions (introduction, instructions, instructions.append), the files to
 * change, to keep the names the tests call and to use only the standard library; then how it is graded.
 */
function exercisePrompt(task: ExerciseTask): string {
  const grading = task.hiddenTests
    ? "Hidden tests, which are not in this folder, grade the work."
    : `The tests in ${fileList(task.tests)} grade the work; changes to them are undone before grading. ` +
      `Run them with \`${RUN_TESTS}\`.`;
  return [
    task.instructions,
    `Do this in ${fileList(task.solution)}, in this folder. Keep the names of the existing functions and classes: the tests call them. Use only the language's standard library.`,
    grading,
  ].join("\n\n");
}

/** The second try's task, as aider's harness gives it: the failing tests' output, and to fix the code rather than the tests. */
function retryPrompt(task: ExerciseTask, output: string): string {
  return [
    output.trim(),
    `The tests failed as above. The tests are right: do not change them. Fix the code in ${fileList(task.solution)} so that they pass.`,
  ].join("\n\n");
}

/** A folder name for a task id (`python/word-count` → `python-word-count`). */
export function folderFor(id: string): string {
  return id.replace(/[^\w.-]+/g, "-");
}

/**
 * The exercise as the agent gets it: its files without `.meta/` (which holds the reference
 * solution), `.docs/` (the instructions are in the task) and, when hidden, the tests; with
 * `patches`, the work of an earlier try on it (minus its edits to tests). It is its own git
 * repository, committed, so that each task's copy is a worktree of it wherever `--out` is (in
 * another repository too), and the agent's change is what differs from that commit.
 */
async function prepareExercise(task: ExerciseTask, root: string, patches: string[] = []): Promise<string> {
  const dir = path.join(root, folderFor(task.id));
  await rm(dir, { recursive: true, force: true });
  await cp(task.dir, dir, { recursive: true });
  const removed = [".meta", ".docs", ".git", ...(task.hiddenTests ? task.tests : [])];
  await Promise.all(removed.map((entry) => rm(path.join(dir, entry), { recursive: true, force: true })));
  await git(dir, ["init", "--quiet"]);
  const applied = await applyAgentPatches(dir, patches, exerciseProtected(task));
  if (applied.failure) throw new Error(`${task.id}: ${applied.failure}`);
  if (!task.hiddenTests) await writeFile(path.join(dir, TESTS_SCRIPT), testsScript(task), { mode: 0o755 });
  await git(dir, ["add", "--all"]);
  await git(dir, [
    "commit",
    "--quiet",
    "--no-verify",
    "--allow-empty",
    "-m",
    "the exercise, as the agent gets it",
  ]);
  return dir;
}

/**
 * The suite's tasks as batch tasks: an exercise runs on a prepared copy under `workspaces`
 * (with its own tests as the check when the agent may see them); an instance on a repository
 * of its own holding its base commit and the history before it, nothing after.
 */
export async function taskSpecsFor(
  tasks: readonly EvalTask[],
  options: { workspaces: string; mode: TaskSpec["mode"] },
): Promise<TaskSpec[]> {
  return Promise.all(
    tasks.map(async (task): Promise<TaskSpec> => {
      if (task.kind === "swe") {
        return {
          id: task.id,
          repo: task.repo,
          ref: task.base_commit,
          // A repository of its own to the base commit: later ones (the fix) are not in it.
          isolation: "clone",
          task: task.problem_statement,
          mode: options.mode,
          ...(task.setup_command ? { setup: task.setup_command } : {}),
        };
      }
      return {
        id: task.id,
        repo: await prepareExercise(task, options.workspaces),
        task: exercisePrompt(task),
        mode: options.mode,
        ...(task.hiddenTests ? {} : { verify: RUN_TESTS }),
      };
    }),
  );
}

/** An exercise the first try did not solve: that try's change, and what its tests printed in grading. */
export interface Retry {
  task: ExerciseTask;
  patch: string;
  output: string;
}

/** The second try of each exercise not solved on the first: the first try's work, and its test output as the task. */
export function retrySpecsFor(
  retries: readonly Retry[],
  options: { workspaces: string; mode: TaskSpec["mode"] },
): Promise<TaskSpec[]> {
  return Promise.all(
    retries.map(async ({ task, patch, output }) => ({
      id: task.id,
      repo: await prepareExercise(task, options.workspaces, [patch]),
      task: retryPrompt(task, output),
      mode: options.mode,
      verify: RUN_TESTS,
    })),
  );
}
