import type { TestRunner } from "./runners/index.js";

/** Why a commit is not an instance of the suite. */
export type LeftOutReason =
  | "root_commit"
  | "no_test_change"
  | "no_source_change"
  | "no_runnable_test"
  | "setup_failed"
  | "build_fails_on_parent"
  | "build_fails_on_commit"
  | "no_passing_test"
  | "no_failing_test"
  | "flaky"
  | "timed_out"
  | "error";

/** The words for each reason, in the report. */
export const REASON_TEXT: Record<LeftOutReason, string> = {
  root_commit: "the repository's first commit: no parent to start from",
  no_test_change: "changes no test",
  no_source_change: "changes tests (or docs) only: nothing to fix",
  no_runnable_test: "its test change holds no test file the runner runs (only helpers or fixtures)",
  setup_failed: "the setup command failed",
  build_fails_on_parent: "the build fails on the parent",
  build_fails_on_commit: "the build fails on the commit itself",
  no_passing_test: "none of its tests passes on the commit itself",
  no_failing_test: "its tests pass on the parent too: nothing fails before the fix",
  flaky: "flaky: a test came out differently over two runs",
  timed_out: "its tests ran past the time limit",
  error: "could not be mined",
};

/** How a commit's tests are run: what the user gave, or nothing (then found in each commit). */
export interface MiningSettings {
  /** `--test-cmd`; found per commit by the check discovery of `cairn run` when not given. */
  testCommand?: string;
  /** `--build-cmd`; false with `--no-build`; found per commit when not given. */
  buildCommand?: string | false;
  /** `--setup`: run in each checkout first; by default, the repository's node_modules linked in. */
  setupCommand?: string;
  /** For each run of a command. */
  timeoutMs: number;
}

/** What a commit's tests say, when it is an instance. */
export interface InstanceFindings {
  status: "instance";
  runner: TestRunner;
  fail_to_pass: string[];
  pass_to_pass: string[];
  setup_command: string | null;
  build_command: string | null;
}

export interface LeftOutFindings {
  status: "left_out";
  reason: LeftOutReason;
  /** What shows why: the failing build's output, the flaky test, … */
  detail: string;
}

/** What mining one commit found: the commit, and an instance or why not. Cached in the store per commit. */
export type MinedCommit = {
  sha: string;
  parent: string | null;
  date: string;
  subject: string;
  test_files: string[];
  source_files: string[];
  /** Time spent on it (0 when decided from its diff alone). */
  mined_ms: number;
} & (InstanceFindings | LeftOutFindings);
