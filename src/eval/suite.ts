import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { cairnRoot } from "../batch/install.js";
import { ConfigError } from "../platform/errors.js";
import { loadExercises } from "./exercises.js";
import { INSTANCES_FILE } from "./history/suiteFiles.js";
import { loadInstances } from "./swe.js";
import type { Suite } from "./types.js";

/** The suite shipped with cairn: small bugs and features in JavaScript and Python, tests hidden. */
function builtinSuitePath(): string {
  return path.join(cairnRoot(), "evals", "builtin");
}

/** The languages of aider's polyglot benchmark, each a folder of its checkout. */
const POLYGLOT_LANGUAGES = ["cpp", "go", "java", "javascript", "python", "rust"];
const POLYGLOT_CLONE = "git clone https://github.com/Aider-AI/polyglot-benchmark";
/** Where a checkout is looked for without --source: what that clone makes, in the current folder. */
const DEFAULT_CHECKOUTS = ["polyglot-benchmark", "polyglot"];

/**
 * `polyglot`: aider's polyglot benchmark, from a checkout of github.com/Aider-AI/polyglot-benchmark
 * (the same exercises as its folder given as the suite, named `polyglot` so that reports say
 * what they measured, and checked to be that checkout).
 */
async function polyglotSuite(given: string | undefined): Promise<Suite> {
  const source = given ?? DEFAULT_CHECKOUTS.find((folder) => existsSync(folder));
  if (!source) {
    throw new ConfigError(
      `cairn eval polyglot needs --source <folder>, a checkout of aider's benchmark (or one named polyglot-benchmark here): ${POLYGLOT_CLONE}`,
    );
  }
  const root = path.resolve(source);
  const present = await Promise.all(
    POLYGLOT_LANGUAGES.map((language) =>
      stat(path.join(root, language, "exercises", "practice")).catch(() => undefined),
    ),
  );
  if (!present.some((info) => info?.isDirectory())) {
    throw new ConfigError(
      `--source ${source} is not a checkout of the polyglot benchmark: it has none of ` +
        `${POLYGLOT_LANGUAGES.map((language) => `${language}/exercises/practice`).join(", ")}. Get one with: ${POLYGLOT_CLONE}`,
    );
  }
  return { name: "polyglot", source: root, ...(await loadExercises(root)) };
}

/**
 * How many tries a suite's tasks get unless --tries says: aider's polyglot benchmark gives each
 * exercise two (the second with the failing tests' output) and ranks by the second, so its
 * figure is comparable only so; any other suite one.
 */
export function defaultTries(suite: Pick<Suite, "name">): 1 | 2 {
  return suite.name === "polyglot" ? 2 : 1;
}

/**
 * A suite by what it is: `builtin`, `polyglot` (with `source`, its checkout), a folder of
 * exercises, or a file of SWE-style instances (.jsonl, .json or .yaml); with `only`, just the
 * tasks whose id matches one of those globs (and just those skipped here that match).
 */
export async function loadSuite(suite: string, only?: string[], source?: string): Promise<Suite> {
  if (source && suite !== "polyglot") {
    throw new ConfigError(
      `--source is for \`cairn eval polyglot\`; give the folder ${source} as the suite itself.`,
    );
  }
  const loaded = await loadWhole(suite, source);
  if (!only?.length) return loaded;
  const wanted = picomatch(only);
  const tasks = loaded.tasks.filter((task) => wanted(task.id));
  const skipped = loaded.skipped.filter((task) => wanted(task.id));
  if (tasks.length === 0 && skipped.length === 0) {
    throw new ConfigError(
      `no task of ${loaded.name} matches --tasks ${only.join(",")}; its ids look like ${(loaded.tasks[0] ?? loaded.skipped[0])?.id}.`,
    );
  }
  return { ...loaded, tasks, skipped, only };
}

async function loadWhole(suite: string, checkout: string | undefined): Promise<Suite> {
  if (suite === "builtin")
    return { name: "builtin", source: builtinSuitePath(), ...(await loadExercises(builtinSuitePath())) };
  if (suite === "polyglot") return polyglotSuite(checkout);
  const source = path.resolve(suite);
  const info = await stat(source).catch(() => undefined);
  if (!info) {
    throw new ConfigError(
      `no suite ${suite}: give \`builtin\`, \`polyglot --source <checkout>\`, a folder of exercises (Exercism layout), a file of SWE-style instances, or a folder \`cairn eval history\` wrote.`,
    );
  }
  const name = path.basename(source).replace(/\.(jsonl|json|ya?ml)$/i, "");
  // A suite `cairn eval history` wrote: its instances, with their patches and report beside them.
  const instances = path.join(source, INSTANCES_FILE);
  if (info.isDirectory() && existsSync(instances))
    return { name, source, tasks: await loadInstances(instances), skipped: [] };
  if (info.isDirectory()) return { name, source, ...(await loadExercises(source)) };
  return { name, source, tasks: await loadInstances(source), skipped: [] };
}
