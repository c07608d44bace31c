import path from "node:path";
import type { Language } from "../types.js";
import { cpp } from "./cpp.js";
import { go } from "./go.js";
import { java } from "./java.js";
import type { CompiledLanguage } from "./language.js";
import { rust } from "./rust.js";
import { works } from "./toolchain.js";

/** The languages whose tests are built and run by exerciseTests.ts. */
export const COMPILED: Partial<Record<Language, CompiledLanguage>> = { go, rust, java, cpp };

const EXTENSIONS: Record<string, Language> = {
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".py": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
  ".cpp": "cpp",
  ".cc": "cpp",
  ".cxx": "cpp",
};

/**
 * The language of an exercise, by its tests' extension (as aider's harness picks the runner: a
 * Rust exercise's solution files include Cargo.toml, a C++ one's a header), then its solution's.
 */
export function languageOf(tests: readonly string[], solution: readonly string[]): Language | undefined {
  for (const file of [...tests, ...solution]) {
    const language = EXTENSIONS[path.extname(file)];
    if (language) return language;
  }
  return undefined;
}

/** What this machine lacks to grade exercises of `language`, said as what to install; undefined when nothing. */
export async function missingToolchain(language: Language): Promise<string | undefined> {
  if (language === "python")
    return (await works("python3", ["--version"]))
      ? undefined
      : "python3 is not installed (Debian: apt-get install python3)";
  // JavaScript and TypeScript run on the Node that runs cairn.
  return COMPILED[language]?.missing();
}

/** What this one exercise needs beyond its language's toolchain that is not here; undefined when nothing. */
export async function unmetNeed(language: Language, dir: string): Promise<string | undefined> {
  return COMPILED[language]?.unmet(dir);
}

/** What an exercise's reference solution needs beyond the exercise itself that is not here; undefined when nothing. */
export async function unmetByReference(language: Language, dir: string): Promise<string | undefined> {
  return COMPILED[language]?.referenceUnmet?.(dir);
}

/** What a solution to this exercise may well need that is not here (a newer Go's library); undefined when nothing. */
export async function unmetBySolutions(language: Language, dir: string): Promise<string | undefined> {
  return COMPILED[language]?.solutionMayNeed?.(dir);
}
