import { type Dirent, existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../platform/errors.js";
import { languageOf, missingToolchain, unmetNeed } from "./languages/index.js";
import { REFERENCE_MANIFEST } from "./languages/rust.js";
import type { ExerciseTask, SkippedTask } from "./types.js";

/** `.meta/config.json` of an exercise: which files are what. */
const exerciseConfigSchema = z.object({
  files: z.object({
    solution: z.array(z.string()).min(1),
    test: z.array(z.string()).min(1),
    /** The reference solution. */
    example: z.array(z.string()).optional(),
    /** Read-only helpers the tests use. */
    editor: z.array(z.string()).optional(),
    /** Files that define the build (go.mod, build.gradle). */
    invalidator: z.array(z.string()).optional(),
  }),
});

/** `suite.yaml` at a suite's root: whether the agent sees the tests. */
const suiteSettingsSchema = z.object({ tests: z.enum(["visible", "hidden"]).default("visible") });

/**
 * Files that define an exercise's build whatever its config says: not the agent's to change (as in
 * aider's harness, which never hands them to the model), and put back before grading.
 */
const BUILD_FILES = ["CMakeLists.txt", "Cargo.toml"];

const INSTRUCTION_FILES = ["introduction.md", "instructions.md", "instructions.append.md"];
const SKIPPED_DIRS = new Set(["node_modules", ".git", "__pycache__", ".venv"]);
const MAX_DEPTH = 6;

export interface LoadedExercises {
  tasks: ExerciseTask[];
  /** Exercises this machine cannot grade, and why: said rather than silently left out. */
  skipped: SkippedTask[];
}

async function exerciseDirs(root: string, depth = 0): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  if (entries.some((entry) => entry.isDirectory() && entry.name === ".meta")) return [root];
  if (depth >= MAX_DEPTH) return [];
  const nested = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !SKIPPED_DIRS.has(entry.name))
      .map((entry) => exerciseDirs(path.join(root, entry.name), depth + 1)),
  );
  return nested.flat().sort();
}

/** `python/exercises/practice/word-count` → `python/word-count`. */
function exerciseId(root: string, dir: string): string {
  const relative = path.relative(root, dir).split(path.sep).join("/");
  return (
    relative.replace(/(^|\/)exercises\/(practice|concept)\//, "$1").replace(/(^|\/)exercises\//, "$1") ||
    path.basename(dir)
  );
}

async function suiteSettings(root: string): Promise<z.infer<typeof suiteSettingsSchema>> {
  let text: string;
  try {
    text = await readFile(path.join(root, "suite.yaml"), "utf8");
  } catch {
    return { tests: "visible" };
  }
  const parsed = suiteSettingsSchema.safeParse(parseYaml(text) ?? {});
  if (!parsed.success)
    throw new ConfigError(`${path.join(root, "suite.yaml")}: \`tests\` must be visible or hidden.`);
  return parsed.data;
}

async function readInstructions(dir: string): Promise<string> {
  const parts = await Promise.all(
    INSTRUCTION_FILES.map((name) => readFile(path.join(dir, ".docs", name), "utf8").catch(() => "")),
  );
  return parts
    .map((part) => part.trim())
    .filter(Boolean)
    .join("\n\n");
}

/** The exercises under `root`: every folder with a `.meta/config.json`, however deep the layout nests them. */
export async function loadExercises(root: string): Promise<LoadedExercises> {
  const settings = await suiteSettings(root);
  const tasks: ExerciseTask[] = [];
  const skipped: SkippedTask[] = [];
  for (const dir of await exerciseDirs(root)) {
    const id = exerciseId(root, dir);
    const configFile = path.join(dir, ".meta", "config.json");
    let config: z.infer<typeof exerciseConfigSchema>;
    try {
      config = exerciseConfigSchema.parse(JSON.parse(await readFile(configFile, "utf8")));
    } catch (error) {
      throw new ConfigError(
        `${configFile}: expected {"files": {"solution": [...], "test": [...]}} (${(error as Error).message.split("\n")[0]}).`,
      );
    }
    const { files } = config;
    const language = languageOf(files.test, files.solution);
    if (!language) {
      const extension = path.extname(files.test[0] ?? "") || "its files";
      skipped.push({ id, language: null, reason: `no runner for ${extension}` });
      continue;
    }
    const cannot = (await missingToolchain(language)) ?? (await unmetNeed(language, dir));
    if (cannot) {
      skipped.push({ id, language, reason: cannot });
      continue;
    }
    const instructions = await readInstructions(dir);
    if (!instructions) throw new ConfigError(`${dir}: no instructions in .docs/ (instructions.md).`);
    const build = [...BUILD_FILES, ...(files.invalidator ?? [])];
    tasks.push({
      kind: "exercise",
      id,
      language,
      dir,
      instructions,
      solution: files.solution.filter((file) => !build.includes(file)),
      examples: [
        ...(files.example ?? []),
        ...(existsSync(path.join(dir, REFERENCE_MANIFEST)) ? [REFERENCE_MANIFEST] : []),
      ],
      tests: files.test,
      protected: [...files.test, ...(files.editor ?? []), ...build],
      hiddenTests: settings.tests === "hidden",
    });
  }
  if (tasks.length === 0 && skipped.length === 0) {
    throw new ConfigError(
      `no exercises in ${root}: expected folders holding .docs/instructions.md and .meta/config.json (the Exercism layout).`,
    );
  }
  return { tasks, skipped };
}
