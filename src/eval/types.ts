export type Language = "javascript" | "typescript" | "python" | "go" | "rust" | "java" | "cpp";

/**
 * An exercise in the Exercism / aider-polyglot layout: instructions in `.docs/`, the files to
 * complete, and tests graded by the language's runner. The agent may see the tests or not
 * (`hiddenTests`); either way, what it does to them is undone before grading.
 */
export interface ExerciseTask {
  kind: "exercise";
  id: string;
  language: Language;
  /** The exercise's own folder, as the suite ships it. */
  dir: string;
  instructions: string;
  /** Files to complete, relative to `dir`: the exercise's solution files but those the build is defined by. */
  solution: string[];
  /** The exercise's reference solution (`.meta/example.py`, `.meta/proof.ci.js`…), relative to `dir`. */
  examples: string[];
  /** The tests that grade it, relative to `dir`. */
  tests: string[];
  /** Files the agent's change may not touch: the tests and the exercise's read-only helpers. */
  protected: string[];
  hiddenTests: boolean;
}

/**
 * A SWE-style instance: a repository at a base commit, a problem statement, and test commands
 * that must fail before the fix and pass after it (FAIL_TO_PASS), and pass throughout (PASS_TO_PASS).
 */
export interface SweTask {
  kind: "swe";
  id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  fail_to_pass: string[];
  pass_to_pass: string[];
  /** A patch adding the tests that grade it, applied in the grading checkout only. */
  test_patch?: string;
  /** Files the agent's change may not touch, besides those the test patch does. */
  test_files: string[];
  /** The reference solution, graded by `--grade-only reference`. */
  reference_patch?: string;
  /** Run first in the agent's copy and in each grading checkout. */
  setup_command?: string;
  /** Run in each grading checkout before the tests. */
  build_command?: string;
}

export type EvalTask = ExerciseTask | SweTask;

/** A task of the suite this machine cannot grade (no toolchain for it, a library not installed). */
export interface SkippedTask {
  id: string;
  /** Null when the language is not one cairn grades. */
  language: Language | null;
  reason: string;
}

export interface Suite {
  name: string;
  /** The folder or file the suite was read from. */
  source: string;
  tasks: EvalTask[];
  /** What the suite holds that cannot be run here, and why: still part of the suite, counted as not solved. */
  skipped: SkippedTask[];
  /** The globs tasks were chosen by (--tasks), when not all were. */
  only?: string[];
}
