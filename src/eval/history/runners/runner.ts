/**
 * The test runners whose single tests cairn can select and read the outcome of. `command` is any
 * other test command (make test, cargo test, a script): run whole, it is the one test.
 */
export type RunnerKind = "pytest" | "go" | "vitest" | "jest" | "node" | "command";

/** A test command as cairn runs it: the runner, and the command that starts it before any test is named. */
export interface TestRunner {
  kind: RunnerKind;
  base: string;
}

/** One run of a runner: its command, and the test file it is limited to when it runs one at a time. */
export interface Invocation {
  command: string;
  file?: string;
}

/** What one invocation left: its output, its result file's text, whether it exited 0, where it ran. */
export interface RunOutput {
  invocation: Invocation;
  output: string;
  results: string | undefined;
  passed: boolean;
  cwd: string;
}

/** Each test's outcome in one run, by its id (`tests/test_x.py::test_y`): true when it passed. */
export type Outcomes = Map<string, boolean>;

/** What cairn knows of one runner: which tests it runs, how to run them, how to read what they did. */
export interface RunnerSpec {
  /** Of a commit's test files, those this runner runs as tests (not fixtures or helpers). */
  runnable(files: readonly string[]): string[];
  /** The runs that give the outcome of each test in `targets` (from `runnable`), writing to `resultFile` where the runner can. */
  invocations(base: string, targets: readonly string[], resultFile: string): Invocation[];
  /** The outcomes a run gave: from its output, or from what it wrote to its result file. */
  read(run: RunOutput): Outcomes;
  /** Commands that run just these tests, one per file (or package): each passes when all of its tests do. */
  commands(base: string, ids: readonly string[]): string[];
}

/** The file part of a test id (`test/a.test.ts::math > adds` → `test/a.test.ts`). */
export function idFile(id: string): string {
  const at = id.indexOf("::");
  return at === -1 ? id : id.slice(0, at);
}

/** The test part of a test id, after its file. */
export function idName(id: string): string {
  const at = id.indexOf("::");
  return at === -1 ? "" : id.slice(at + 2);
}

/** Ids grouped by their file, in the order the files first come. */
export function byFile(ids: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const file = idFile(id);
    groups.set(file, [...(groups.get(file) ?? []), id]);
  }
  return groups;
}

/** Text matched literally in a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
