import { shellQuote } from "../../runners.js";
import { fullNamePattern } from "./jsonReport.js";
import { byFile, type Outcomes, type RunnerSpec } from "./runner.js";

/** The files `node --test` runs when given none (Node 22's default patterns). */
const TEST_FILE =
  /(^|\/)(test|[^/]*[._-]test|test-[^/]*)\.[cm]?[jt]s$|(^|\/)test\/.+\.[cm]?[jt]s$|\.(test|spec)\.[cm]?[jt]sx?$/;

/** `# Subtest: name` and `ok 3 - name`, indented four spaces a level. */
const SUBTEST = /^( *)# Subtest: (.*)$/;
const RESULT = /^( *)(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/;

/** TAP escapes `#` and backslashes in names. */
const unescapeName = (name: string) => name.replace(/\\([#\\])/g, "$1");

/**
 * The tests of one file's TAP: a test that has subtests is a suite (or a test made of steps) and
 * counts through them; skipped and todo tests are left out.
 */
function readTap(output: string, file: string): Outcomes {
  const outcomes: Outcomes = new Map();
  const names: string[] = [];
  const hasChildren: boolean[] = [];
  for (const line of output.split("\n")) {
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const depth = subtest[1]!.length / 4;
      names.length = depth;
      names.push(unescapeName(subtest[2]!));
      if (depth > 0) hasChildren[depth - 1] = true;
      hasChildren[depth] = false;
      continue;
    }
    const result = RESULT.exec(line);
    if (!result) continue;
    const depth = result[1]!.length / 4;
    if (hasChildren[depth] || result[4] || names.length <= depth) continue;
    outcomes.set(`${file}::${names.slice(0, depth + 1).join(" > ")}`, !result[2]);
  }
  return outcomes;
}

/** Node's own test runner: one file a run, read from its TAP; a single test chosen with `--test-name-pattern`. */
export const nodeTest: RunnerSpec = {
  runnable: (files) => files.filter((file) => TEST_FILE.test(file)),
  invocations: (base, targets) =>
    targets.map((file) => ({ command: `${base} --test-reporter=tap ${shellQuote(file)}`, file })),
  read: ({ output, invocation }) => readTap(output, invocation.file ?? ""),
  commands: (base, ids) =>
    [...byFile(ids)].map(
      ([file, group]) =>
        `${base} --test-name-pattern=${shellQuote(fullNamePattern(group))} ${shellQuote(file)}`,
    ),
};

/** Any other test command: run whole, it is the one test, passing when it exits 0. */
export const wholeCommand: RunnerSpec = {
  runnable: (files) => [...files],
  invocations: (base) => [{ command: base }],
  read: ({ invocation, passed }) => new Map([[invocation.command, passed]]),
  commands: (base) => [base],
};
