/**
 * Runs a validation plan and reads what went wrong into a report the loop can emit and the model
 * can act on.
 *
 * Every check runs by default, even after one has failed: a revision round that sees the failing
 * tests and the lint errors together can fix both, where stopping at the first would cost another
 * round per check. `failFast` stops at the first failure for callers that only need a verdict,
 * such as the mutation repair trying candidate after candidate.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { createTwoFilesPatch } from "diff";
import type { ValidationSummary } from "../events/types.js";
import { findExecutable, type ProcessResult, spawnGroup } from "../platform/processes.js";
import { HeadTailBuffer, truncateHeadTail } from "../platform/truncate.js";
import { cleanEnvironment, environmentPolicy } from "../safety/environment.js";
import type { WrappedCommand } from "../safety/sandbox.js";
import { type Failure, parseFailures, summarizeFailures } from "./failures.js";
import type { Check, ValidationPlan } from "./plan.js";

export interface CheckOptions {
  /** Where the checks run; the plan's workspace when not given. */
  cwd?: string;
  signal?: AbortSignal;
  /** For each check, not the whole plan. */
  timeoutMs?: number;
  /** Stop at the first failing check. */
  failFast?: boolean;
  /**
   * The environment checks start from: the session's for what the model runs, without secrets
   * (safety/environment.ts); without it, cairn's own by the default policy.
   */
  environment?: Record<string, string>;
  /** Added to the environment the checks run in. */
  env?: Record<string, string>;
  /** The process that runs a check's shell command: the session's sandbox; plain bash without it. */
  spawnFor?: (command: string) => WrappedCommand;
}

export interface CheckResult extends Check {
  passed: boolean;
  /** Null when the check was killed (timeout, abort) or could not start. */
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  /** The head and tail of stdout and stderr, interleaved as they came. */
  output: string;
  /** expected_output only: a unified diff from the expected file to the actual stdout, when they differ. */
  diff?: string;
  failures: Failure[];
}

export interface ValidationReport {
  /** False when there was nothing to run; `reason` says why. */
  ran: boolean;
  /** Null when nothing ran. */
  passed: boolean | null;
  checks: CheckResult[];
  /** Every failing check's failures, in check order. */
  failures: Failure[];
  /** What the model is shown: a line per check and, for those that failed, what failed. */
  summary: string;
  reason?: string;
  duration_ms: number;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Kept for parsing; parsers need the whole failure section, not just the last screenful. */
const PARSE_LIMITS = { headBytes: 32_000, tailBytes: 96_000 };
/** Kept in the report and its events. */
const REPORT_LIMITS = { headBytes: 2_000, tailBytes: 6_000 };
const DIFF_LIMITS = { headBytes: 3_000, tailBytes: 1_000 };
/** A program printing more than this is wrong already; the excess is not needed to show how. */
const MAX_STDOUT_BYTES = 1_000_000;
const SUMMARY_BYTES = 6_000;

/**
 * An environment that asks tools for plain, non-interactive output, with the project's own
 * `node_modules/.bin` on PATH, as package scripts run.
 */
export function checkEnv(
  cwd: string,
  options: Pick<CheckOptions, "environment" | "env"> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...(options.environment ?? cleanEnvironment(process.env, environmentPolicy())),
    CI: "true",
    NO_COLOR: "1",
    CARGO_TERM_COLOR: "never",
    PYTHONDONTWRITEBYTECODE: "1",
    ...options.env,
  };
  // Node warns on every start when FORCE_COLOR and NO_COLOR are both set, into the output we parse.
  delete env.FORCE_COLOR;
  // Fixers such as `eslint --fix` are plain commands, run the way package scripts run them.
  const bin = path.join(cwd, "node_modules", ".bin");
  if (existsSync(bin)) env.PATH = `${bin}${path.delimiter}${env.PATH ?? ""}`;
  return env;
}

/** Line endings and trailing whitespace are not what an expected-output task is about. */
function normalizeOutput(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n+$/, "");
}

function quoteLine(line: string | undefined): string {
  return line === undefined ? "nothing" : JSON.stringify(line.length > 120 ? `${line.slice(0, 119)}…` : line);
}

async function compareExpected(
  check: Check,
  cwd: string,
  stdout: string,
): Promise<{ diff?: string; failure?: Failure }> {
  const file = check.expected_file!;
  const expectedText = await readFile(path.resolve(cwd, file), "utf8").catch(() => undefined);
  if (expectedText === undefined) {
    return { failure: { tool: "expected_output", file, message: `${file} could not be read` } };
  }
  const expected = normalizeOutput(expectedText);
  const actual = normalizeOutput(stdout);
  if (expected === actual) return {};
  const lines = (text: string): string[] => (text === "" ? [] : text.split("\n"));
  const expectedLines = lines(expected);
  const actualLines = lines(actual);
  const index = expectedLines.findIndex((line, i) => line !== actualLines[i]);
  const at = index === -1 ? expectedLines.length : index;
  const message = `stdout line ${at + 1}: expected ${quoteLine(expectedLines[at])}, got ${quoteLine(actualLines[at])}`;
  const asFile = (text: string): string => (text === "" ? "" : `${text}\n`);
  const patch = createTwoFilesPatch(
    file,
    "actual stdout",
    asFile(expected),
    asFile(actual),
    undefined,
    undefined,
    {
      context: 2,
    },
  );
  // A rule of "=" opens the patch; the --- / +++ headers below it are all the heading needed.
  const diff = truncateHeadTail(patch.replace(/^=+\n/, ""), DIFF_LIMITS).text;
  const failure: Failure = { tool: "expected_output", file, message };
  // Past the expected file's end (extra output), the nearest line there is is its last.
  const line = Math.min(at + 1, expectedLines.length);
  if (line > 0) failure.line = line;
  return { diff, failure };
}

/** Only the check itself: a CheckResult passed in to be run again must not carry its old results along. */
function checkFields({ name, command, kind, source, fixer, expected_file }: Check): Check {
  const check: Check = { name, command, kind, source };
  if (fixer !== undefined) check.fixer = fixer;
  if (expected_file !== undefined) check.expected_file = expected_file;
  return check;
}

/** Runs one check to completion, never throwing for the check's own failure. */
export async function runCheck(
  check: Check,
  options: CheckOptions & { cwd: string; goModule?: string },
): Promise<CheckResult> {
  const combined = new HeadTailBuffer(PARSE_LIMITS);
  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  const started = Date.now();
  let result: ProcessResult;
  try {
    const process = options.spawnFor?.(check.command) ?? {
      file: findExecutable("bash") ?? "/bin/sh",
      args: ["-c", check.command],
    };
    result = await spawnGroup(process.file, process.args, {
      cwd: options.cwd,
      env: checkEnv(options.cwd, options),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: options.signal,
      onStdout: (chunk) => {
        combined.push(chunk);
        if (check.kind !== "expected_output" || stdoutBytes >= MAX_STDOUT_BYTES) return;
        stdout.push(chunk);
        stdoutBytes += chunk.length;
      },
      onStderr: (chunk) => combined.push(chunk),
      ...(process.watch ? { supervise: process.watch } : {}),
    }).done;
    const stopped = process.watch?.stopped(result.exitCode);
    if (stopped) combined.push(Buffer.from(`\n${stopped}\n`));
  } catch (error) {
    const message = `could not start: ${(error as Error).message}`;
    return {
      ...checkFields(check),
      passed: false,
      exit_code: null,
      timed_out: false,
      duration_ms: Date.now() - started,
      output: message,
      failures: [],
    };
  }
  const text = stripVTControlCharacters(combined.finish().text);
  const checkResult: CheckResult = {
    ...checkFields(check),
    passed: result.exitCode === 0 && !result.timedOut && !result.aborted,
    exit_code: result.exitCode,
    timed_out: result.timedOut,
    duration_ms: result.durationMs,
    output: truncateHeadTail(text, REPORT_LIMITS).text,
    failures: [],
  };
  const failures: Failure[] = [];
  if (check.kind === "expected_output") {
    const comparison = await compareExpected(check, options.cwd, Buffer.concat(stdout).toString("utf8"));
    if (comparison.failure) {
      checkResult.passed = false;
      failures.push(comparison.failure);
    }
    if (comparison.diff) checkResult.diff = comparison.diff;
  }
  if (!checkResult.passed) {
    failures.push(...parseFailures(text, { cwd: options.cwd, goModule: options.goModule }));
  }
  checkResult.failures = failures;
  return checkResult;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function describeOutcome(check: CheckResult): string {
  if (check.kind === "postcondition") return check.passed ? "holds" : `does not hold: ${check.output}`;
  if (check.passed) return `passed in ${seconds(check.duration_ms)}`;
  if (check.timed_out) return `timed out after ${seconds(check.duration_ms)}`;
  if (check.exit_code === null) return "did not finish";
  if (check.exit_code === 0 && check.kind === "expected_output") {
    return `stdout differs from ${check.expected_file} (${seconds(check.duration_ms)})`;
  }
  return `exit ${check.exit_code} after ${seconds(check.duration_ms)}`;
}

/** The report for checks already run; used again when a repair re-runs some of them. */
export function reportFrom(checks: CheckResult[]): ValidationReport {
  const failed = checks.filter((check) => !check.passed);
  const budget = Math.max(1_000, Math.floor(SUMMARY_BYTES / Math.max(1, failed.length)));
  const lines = [
    failed.length === 0
      ? `validation passed: ${checks.length} check${checks.length === 1 ? "" : "s"}`
      : `validation failed: ${failed.length} of ${checks.length} check${checks.length === 1 ? "" : "s"} failed`,
  ];
  for (const check of checks) {
    lines.push(`${check.passed ? "✓" : "✗"} ${check.name}: \`${check.command}\` ${describeOutcome(check)}`);
    if (check.passed) continue;
    const details = summarizeFailures(check.failures, check.output, { maxFailures: 20, maxBytes: budget });
    lines.push(details.replace(/^/gm, "  "));
    if (check.diff) lines.push(check.diff.replace(/^/gm, "  "));
  }
  return {
    ran: true,
    passed: failed.length === 0,
    checks,
    failures: failed.flatMap((check) => check.failures),
    summary: lines.join("\n"),
    duration_ms: checks.reduce((total, check) => total + check.duration_ms, 0),
  };
}

export async function runValidation(
  plan: ValidationPlan,
  options: CheckOptions = {},
): Promise<ValidationReport> {
  if (plan.checks.length === 0) {
    const reason = plan.reason ?? "nothing to validate";
    return {
      ran: false,
      passed: null,
      checks: [],
      failures: [],
      summary: `validation skipped: ${reason}`,
      reason,
      duration_ms: 0,
    };
  }
  const cwd = options.cwd ?? plan.workspace;
  const results: CheckResult[] = [];
  for (const check of plan.checks) {
    const result = await runCheck(check, { ...options, cwd, goModule: plan.go_module });
    results.push(result);
    // An aborted check has failed, so an aborted run never reads as a pass.
    if ((!result.passed && options.failFast) || options.signal?.aborted) break;
  }
  return reportFrom(results);
}

/** The report in the shape `validation` takes in the run result (events/types.ts). */
export function toValidationSummary(report: ValidationReport): ValidationSummary {
  const summary: ValidationSummary = { ran: report.ran, passed: report.passed, output: report.summary };
  if (report.checks.length > 0) summary.command = report.checks.map((check) => check.command).join(" && ");
  if (report.reason) summary.reason = report.reason;
  return summary;
}
