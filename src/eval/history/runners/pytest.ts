import path from "node:path";
import { shellQuote } from "../../runners.js";
import { byFile, type Outcomes, type RunnerSpec } from "./runner.js";

/** pytest's default test files (`python_files`). */
const TEST_FILE = /^(test_.*|.*_test)\.py$/;

/** A line of the short summary `-rA` prints: each test's outcome and its node id. */
const SUMMARY_LINE = /^(PASSED|FAILED|ERROR) (.+?)(?: - .*)?$/;

/**
 * pytest: tests by node id (`tests/test_calc.py::TestAdd::test_zero`). A run lists every test's
 * outcome in its short summary (`-rA`); a file that fails to import has an ERROR line without
 * `::`, and its tests are simply absent.
 */
export const pytest: RunnerSpec = {
  runnable: (files) => files.filter((file) => TEST_FILE.test(path.posix.basename(file))),
  invocations: (base, targets) => [{ command: [base, "-rA", ...targets.map(shellQuote)].join(" ") }],
  read({ output }) {
    const outcomes: Outcomes = new Map();
    for (const line of output.split("\n")) {
      const match = SUMMARY_LINE.exec(line.trimEnd());
      if (!match?.[2]?.includes("::")) continue;
      outcomes.set(match[2], match[1] === "PASSED");
    }
    return outcomes;
  },
  commands: (base, ids) =>
    [...byFile(ids).values()].map((group) => `${base} ${group.map(shellQuote).join(" ")}`),
};
