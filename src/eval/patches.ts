import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { git } from "../batch/git.js";
import type { ExerciseTask } from "./types.js";

/** The files a unified diff touches, on either side of it (a rename counts both names). */
export function filesIn(patch: string): string[] {
  const files = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(.+?) b\/(.+)$/gm)) {
    files.add(match[1]!);
    files.add(match[2]!);
  }
  return [...files].sort();
}

/** The script in an exercise's prepared folder that runs its tests (prepare.ts): not the exercise's own. */
export const TESTS_SCRIPT = "run-tests";

/**
 * What an exercise's agent may not change: its tests and helpers, its build, its reference
 * solution and instructions, and the script it runs the tests with.
 */
export function exerciseProtected(task: ExerciseTask): string[] {
  return [...task.protected, ".meta/**", ".docs/**", TESTS_SCRIPT];
}

export interface Applied {
  /** Files the patches changed that were left as they were, being protected. */
  reverted: string[];
  /** Why a patch did not apply. */
  failure?: string;
}

/**
 * Applies the agent's patches in `dir` (a git repository of its own, so that nothing above it is
 * touched), in order, without their changes to `protectedPaths` (globs), and says which files
 * those were. A patch that does not apply is a failure to report, not an error.
 */
export async function applyAgentPatches(
  dir: string,
  patches: readonly string[],
  protectedPaths: string[],
): Promise<Applied> {
  const isProtected = picomatch(protectedPaths, { dot: true });
  const reverted = [
    ...new Set(patches.flatMap((patch) => filesIn(patch).filter((file) => isProtected(file)))),
  ];
  const file = path.join(dir, "..", `${path.basename(dir)}.agent.patch`);
  try {
    for (const patch of patches) {
      if (!patch.trim()) continue;
      await writeFile(file, patch);
      const excludes = protectedPaths.map((glob) => `--exclude=${glob}`);
      await git(dir, ["apply", "--binary", "--whitespace=nowarn", ...excludes, file]);
    }
    return { reverted: reverted.sort() };
  } catch (error) {
    return {
      reverted: reverted.sort(),
      failure: `the agent's patch does not apply: ${(error as Error).message}`,
    };
  } finally {
    await rm(file, { force: true });
  }
}
