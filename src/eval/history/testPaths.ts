import path from "node:path";

/** Folders whose files are tests or what tests use (fixtures, snapshots, test data). */
const TEST_FOLDERS = new Set([
  "test",
  "tests",
  "__tests__",
  "__snapshots__",
  "spec",
  "specs",
  "testing",
  "testdata",
  "e2e",
]);

/** Test files by their own names, in the conventions of pytest, Go, Jest/Vitest, JUnit, RSpec. */
const TEST_NAMES = [
  /^test_.*\.py$/,
  /_test\.py$/,
  /^conftest\.py$/,
  /_test\.go$/,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /Tests?\.(java|kt|cs|scala)$/,
  /_spec\.rb$/,
];

const DOC_EXTENSIONS = /\.(md|mdx|markdown|rst|adoc|asciidoc|txt)$/i;
const DOC_NAMES = /^(license|licence|copying|authors|notice|changelog|changes|contributors|readme)(\.\w+)?$/i;
/** Files a fix does not consist of: lock files, editor and CI settings. */
const NOT_SOURCE =
  /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum|poetry\.lock|\.github\/.*|\.vscode\/.*)$/;

/** Whether a changed file belongs to the tests: a test, or something only tests use. */
export function isTestPath(file: string): boolean {
  const parts = file.split("/");
  if (parts.slice(0, -1).some((part) => TEST_FOLDERS.has(part))) return true;
  const name = path.posix.basename(file);
  return TEST_NAMES.some((pattern) => pattern.test(name));
}

/** Whether a changed file (not a test) is part of what the program is: not its prose, locks or CI. */
export function isSourcePath(file: string): boolean {
  if (isTestPath(file)) return false;
  const name = path.posix.basename(file);
  return !DOC_EXTENSIONS.test(name) && !DOC_NAMES.test(name) && !NOT_SOURCE.test(file);
}

export interface ChangeSplit {
  /** The files of the test change, withheld from the agent. */
  tests: string[];
  /** The rest: the reference solution. */
  rest: string[];
  /** Of the rest, what is source (not docs, locks or CI). */
  source: string[];
}

/** A commit's changed files, split into the test change and the rest. */
export function splitChange(files: readonly string[]): ChangeSplit {
  const tests = files.filter(isTestPath);
  const rest = files.filter((file) => !isTestPath(file));
  return { tests, rest, source: rest.filter(isSourcePath) };
}
