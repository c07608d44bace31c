import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { COMPILED } from "./languages/index.js";
import type { ExerciseTask } from "./types.js";

/** A word for bash, quoted so that nothing in it is read as shell syntax. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A sibling module of this one, as it is here: `.ts` when running from the sources, `.js` when built. */
function sibling(name: string): string {
  const here = fileURLToPath(import.meta.url);
  return path.join(path.dirname(here), `${name}${path.extname(here)}`);
}

/** Whether the tests are unittest's (Exercism's are): then they need nothing installed, and start fast. */
function unittestStyle(dir: string, tests: readonly string[]): boolean {
  return tests.every((file) => {
    try {
      return /^\s*(import unittest|from unittest import)/m.test(readFileSync(path.join(dir, file), "utf8"));
    } catch {
      return false;
    }
  });
}

/**
 * The command that runs an exercise's tests in its folder, exit 0 when they pass.
 *
 * JavaScript and TypeScript run on Node's own test runner with a preload that gives Jest-style
 * tests (Exercism's) the globals they expect (`describe`, `test`, `expect`, and `xtest` run like
 * `test`, as every test grades), the same from `@jest/globals` when that is not installed, and
 * lets them import `./two-fer` without an extension, so no npm install is needed. Python's
 * unittest-style tests (Exercism's) run on unittest, which needs nothing installed; others on
 * pytest. Go, Rust, Java and C++ build and run in exerciseTests.ts (languages/), offline.
 */
export function testCommand(task: Pick<ExerciseTask, "language" | "tests" | "dir">): string {
  if (COMPILED[task.language]) {
    return `${shellQuote(process.execPath)} ${shellQuote(sibling("exerciseTests"))} ${task.language}`;
  }
  const tests = task.tests.map(shellQuote).join(" ");
  if (task.language === "python") {
    if (!unittestStyle(task.dir, task.tests)) return `python3 -m pytest -q -p no:cacheprovider ${tests}`;
    const modules = task.tests.map((file) => file.replace(/\.py$/, "").split("/").join("."));
    return `python3 -m unittest ${modules.map(shellQuote).join(" ")}`;
  }
  const typescript =
    task.language === "typescript"
      ? " --experimental-transform-types --disable-warning=ExperimentalWarning"
      : "";
  // One file runs as a program (its tests run, and fail the exit code); several need the runner.
  const runner = task.tests.length === 1 ? "" : " --test";
  // Exercism's package.json names no module type (Babel compiled its tests); Node finds they are
  // modules by itself, and need not say so into the output.
  const quiet = " --disable-warning=MODULE_TYPELESS_PACKAGE_JSON";
  return `${shellQuote(process.execPath)}${typescript}${quiet} --import ${shellQuote(sibling("jestCompat"))}${runner} --test-reporter=spec ${tests}`;
}
