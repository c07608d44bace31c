/** What validation runs: the checks, each with who vouches for it, in the order they run. */
import type { CheckSource } from "../events/types.js";

/** `postcondition`: what a tier-0 file command must leave on disk, checked without running anything. */
export type CheckKind =
  | "test"
  | "typecheck"
  | "build"
  | "lint"
  | "format"
  | "expected_output"
  | "postcondition";

export interface Check {
  name: string;
  /** A shell command, run in the workspace. */
  command: string;
  kind: CheckKind;
  /** Who says it shows the work is right: the report's confidence rests on it. */
  source: CheckSource;
  /** A command that repairs what this check complains about without a model (eslint --fix, gofmt -w). */
  fixer?: string;
  /** expected_output only: the file, relative to the workspace, that the command's stdout must equal. */
  expected_file?: string;
}

export interface ValidationPlan {
  workspace: string;
  /** In the order they run. Empty when validation is skipped or nothing was found. */
  checks: Check[];
  /** Why there is nothing to run, when `checks` is empty. */
  reason?: string;
  /** go.mod's module path: go test prints files relative to their package, and this maps them back. */
  go_module?: string;
}
