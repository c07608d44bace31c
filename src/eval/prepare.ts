import { cp, rm } from "node:fs/promises";
import path from "node:path";
import type { TaskSpec } from "../batch/spec.js";
import { testCommand } from "./runners.js";
import type { EvalTask, ExerciseTask } from "./types.js";

/** What the agent is told for an exercise: the instructions, the files, and how it is graded. */
function exercisePrompt(task: ExerciseTask): string {
  const files = task.solution.map((file) => `\`${file}\``).join(", ");
  const tests = task.tests.map((file) => `\`${file}\``).join(", ");
  const grading = task.hiddenTests
    ? "Hidden tests, which are not in this folder, grade the work."
    : `The tests in ${tests} grade the work; changes to them are undone before grading.`;
  return [
    task.instructions,
    `Do this in ${files}, in this folder. Keep the names of the existing functions and classes: the tests call them. Use only the language's standard library.`,
    grading,
  ].join("\n\n");
}

/** A folder name for a task id (`python/word-count` → `python-word-count`). */
export function folderFor(id: string): string {
  return id.replace(/[^\w.-]+/g, "-");
}

/**
 * The exercise as the agent gets it: its files without `.meta/` (which holds the example
 * solution), `.docs/` (the instructions are in the task) and, when hidden, the tests.
 */
async function prepareExercise(task: ExerciseTask, root: string): Promise<string> {
  const dir = path.join(root, folderFor(task.id));
  await rm(dir, { recursive: true, force: true });
  await cp(task.dir, dir, { recursive: true });
  const removed = [".meta", ".docs", ...(task.hiddenTests ? task.tests : [])];
  await Promise.all(removed.map((entry) => rm(path.join(dir, entry), { recursive: true, force: true })));
  return dir;
}

/**
 * The suite's tasks as batch tasks: an exercise runs on a prepared copy under `workspaces`
 * (with its own tests as the check when the agent may see them); an instance on its repository
 * at its base commit.
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
          task: task.problem_statement,
          mode: options.mode,
        };
      }
      return {
        id: task.id,
        repo: await prepareExercise(task, options.workspaces),
        task: exercisePrompt(task),
        mode: options.mode,
        ...(task.hiddenTests ? {} : { verify: testCommand(task) }),
      };
    }),
  );
}
