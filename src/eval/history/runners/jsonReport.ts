import { realpathSync } from "node:fs";
import path from "node:path";
import { shellQuote } from "../../runners.js";
import { byFile, escapeRegExp, idName, type Outcomes, type RunnerSpec, type RunOutput } from "./runner.js";

/** Vitest's and Jest's default test files. */
const TEST_FILE = /(\.(test|spec)\.[cm]?[jt]sx?$)|(^|\/)__tests__\/.+\.[cm]?[jt]sx?$/;

/** The report Jest writes with `--json`, and Vitest with its `json` reporter, in the same shape. */
interface JsonReport {
  testResults?: Array<{
    name?: string;
    assertionResults?: Array<{ ancestorTitles?: string[]; title?: string; status?: string }>;
  }>;
}

/** A file the report names (absolute), relative to where the run was: the worktree, seen through links or not. */
function relativeFile(file: string, cwd: string): string {
  for (const root of [cwd, realpathSync(cwd)]) {
    const relative = path.relative(root, file);
    if (!relative.startsWith("..")) return relative.split(path.sep).join("/");
  }
  return file;
}

/** Each test's outcome in a Jest-shaped report: `file::describe > test`; skipped and todo tests left out. */
function readReport({ results, cwd }: RunOutput): Outcomes {
  const outcomes: Outcomes = new Map();
  let report: JsonReport;
  try {
    report = JSON.parse(results ?? "") as JsonReport;
  } catch {
    return outcomes;
  }
  for (const file of report.testResults ?? []) {
    if (!file.name) continue;
    const relative = relativeFile(file.name, cwd);
    for (const test of file.assertionResults ?? []) {
      if (test.status !== "passed" && test.status !== "failed") continue;
      const name = [...(test.ancestorTitles ?? []), test.title ?? ""].join(" > ");
      outcomes.set(`${relative}::${name}`, test.status === "passed");
    }
  }
  return outcomes;
}

/**
 * A pattern matching a test's full name exactly, as `-t` reads it: Vitest joins the titles with
 * ` > `, Jest (and older Vitest) with a space.
 */
export function fullNamePattern(ids: readonly string[]): string {
  const names = ids.map((id) => idName(id).split(" > ").map(escapeRegExp).join("(?: > | )"));
  return `^(?:${names.join("|")})$`;
}

/** Vitest: `file::describe > test`, read from its JSON reporter; a single test chosen with `-t`. */
export const vitest: RunnerSpec = {
  runnable: (files) => files.filter((file) => TEST_FILE.test(file)),
  invocations: (base, targets, resultFile) => [
    {
      command: [
        base,
        "--reporter=json",
        `--outputFile=${shellQuote(resultFile)}`,
        ...targets.map(shellQuote),
      ].join(" "),
    },
  ],
  read: readReport,
  commands: (base, ids) =>
    [...byFile(ids)].map(
      ([file, group]) => `${base} ${shellQuote(file)} -t ${shellQuote(fullNamePattern(group))}`,
    ),
};

/** Jest: as Vitest, from `--json`; files given by path, not as patterns. */
export const jest: RunnerSpec = {
  runnable: vitest.runnable,
  invocations: (base, targets, resultFile) => [
    {
      command: [
        base,
        "--json",
        `--outputFile=${shellQuote(resultFile)}`,
        "--runTestsByPath",
        ...targets.map(shellQuote),
      ].join(" "),
    },
  ],
  read: readReport,
  commands: (base, ids) =>
    [...byFile(ids)].map(
      ([file, group]) =>
        `${base} --runTestsByPath ${shellQuote(file)} -t ${shellQuote(fullNamePattern(group))}`,
    ),
};
