import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { unmetByReference } from "./languages/index.js";
import { REFERENCE_MANIFEST } from "./languages/rust.js";
import type { EvalTask, ExerciseTask, SkippedTask, Suite } from "./types.js";

/** Java's reference solutions mirror the source tree: `.meta/src/reference/java/X.java` is `src/main/java/X.java`. */
const JAVA_REFERENCE = ".meta/src/reference/";

/**
 * Where each file of the reference solution goes in the exercise: over the solution file it
 * stands for (same name, else the same extension: `.meta/example.py` → `word_count.py`,
 * `.meta/proof.ci.js` → `two-fer.js`, `.meta/example.rs` → `src/lib.rs`), or, for files the stub
 * has no counterpart of (helper classes), beside the solution.
 */
export function referencePlaces(task: Pick<ExerciseTask, "examples" | "solution">): Array<[string, string]> {
  const unused = [...task.solution];
  return task.examples.map((example) => {
    if (example === REFERENCE_MANIFEST) return [example, "Cargo.toml"];
    if (example.startsWith(JAVA_REFERENCE))
      return [example, `src/main/${example.slice(JAVA_REFERENCE.length)}`];
    const byName = unused.find((file) => path.basename(file) === path.basename(example));
    const byExtension = unused.find((file) => path.extname(file) === path.extname(example));
    const target = byName ?? byExtension;
    if (target) unused.splice(unused.indexOf(target), 1);
    return [example, target ?? path.join(path.dirname(task.solution[0] ?? ""), path.basename(example))];
  });
}

/** Puts the exercise's reference solution over its stub, in `dir` (a copy of the exercise). */
export async function placeReference(task: ExerciseTask, dir: string): Promise<void> {
  for (const [example, target] of referencePlaces(task)) {
    await mkdir(path.dirname(path.join(dir, target)), { recursive: true });
    await copyFile(path.join(dir, example), path.join(dir, target));
  }
}

/**
 * The suite for grading its reference solutions: an exercise whose reference solution cannot be
 * built here (it needs a crate no Debian package holds), or that has none, and an instance with
 * no `patch`, is skipped with the reason, rather than graded as a failure of the grading.
 */
export async function withGradableReferences(suite: Suite): Promise<Suite> {
  const tasks: EvalTask[] = [];
  const skipped: SkippedTask[] = [];
  for (const task of suite.tasks) {
    if (task.kind !== "exercise") {
      if (task.reference_patch !== undefined) tasks.push(task);
      else skipped.push({ id: task.id, language: null, reason: "has no reference solution (no `patch`)" });
      continue;
    }
    const reason = task.examples.length
      ? await unmetByReference(task.language, task.dir)
      : "is not there (no files.example in .meta/config.json)";
    if (reason)
      skipped.push({ id: task.id, language: task.language, reason: `its reference solution ${reason}` });
    else tasks.push(task);
  }
  return { ...suite, tasks, skipped: [...suite.skipped, ...skipped] };
}
