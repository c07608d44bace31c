import { stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { cairnRoot } from "../batch/install.js";
import { ConfigError } from "../platform/errors.js";
import { loadExercises } from "./exercises.js";
import { loadInstances } from "./swe.js";
import type { Suite } from "./types.js";

/** The suite shipped with cairn: small bugs and features in JavaScript and Python, tests hidden. */
function builtinSuitePath(): string {
  return path.join(cairnRoot(), "evals", "builtin");
}

/**
 * A suite by what it is: `builtin`, a folder of exercises, or a file of SWE-style instances
 * (.jsonl, .json or .yaml); with `only`, just the tasks whose id matches one of those globs.
 */
export async function loadSuite(suite: string, only?: string[]): Promise<Suite> {
  const loaded = await loadWhole(suite);
  if (!only?.length) return loaded;
  const wanted = picomatch(only);
  const tasks = loaded.tasks.filter((task) => wanted(task.id));
  if (tasks.length === 0) {
    throw new ConfigError(
      `no task of ${loaded.name} matches --tasks ${only.join(",")}; its ids look like ${loaded.tasks[0]?.id}.`,
    );
  }
  return { ...loaded, tasks, only };
}

async function loadWhole(suite: string): Promise<Suite> {
  if (suite === "builtin")
    return { name: "builtin", source: builtinSuitePath(), ...(await loadExercises(builtinSuitePath())) };
  const source = path.resolve(suite);
  const info = await stat(source).catch(() => undefined);
  if (!info) {
    throw new ConfigError(
      `no suite ${suite}: give \`builtin\`, a folder of exercises (Exercism layout) or a file of SWE-style instances.`,
    );
  }
  const name = path.basename(source).replace(/\.(jsonl|json|ya?ml)$/i, "");
  if (info.isDirectory()) return { name, source, ...(await loadExercises(source)) };
  return { name, source, tasks: await loadInstances(source), skipped: [] };
}
