import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { findExecutable, spawnGroup } from "../../platform/processes.js";
import { HeadTailBuffer, truncateHeadTail } from "../../platform/truncate.js";
import { checkEnv } from "../../verify/check.js";
import { type Outcomes, RUNNERS, type TestRunner } from "./runners/index.js";

/** What a run of a commit's tests came to. */
export interface TestRun {
  outcomes: Outcomes;
  /** A run that ran out of time: its outcomes are not to be trusted. */
  timedOut: boolean;
  /** The head and tail of what the runs printed, for the report. */
  output: string;
}

/** Output read for outcomes is kept whole up to this much; past it, a run is taken as broken. */
const MAX_PARSED_BYTES = 64 * 1024 * 1024;
const SHOWN = { headBytes: 1_000, tailBytes: 3_000 };

export interface ShellResult {
  passed: boolean;
  timedOut: boolean;
  stdout: string;
  /** stdout and stderr as they came, head and tail. */
  output: string;
}

/** A command in bash in `cwd`, with the environment checks run in (no secrets, plain output). */
export async function runShell(
  command: string,
  cwd: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<ShellResult> {
  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  const combined = new HeadTailBuffer(SHOWN);
  const result = await spawnGroup(findExecutable("bash") ?? "/bin/sh", ["-c", command], {
    cwd,
    env: checkEnv(cwd),
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    onStdout: (chunk) => {
      combined.push(chunk);
      if (stdoutBytes + chunk.length > MAX_PARSED_BYTES) return;
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    },
    onStderr: (chunk) => combined.push(chunk),
  }).done.catch((error: Error) => {
    combined.push(`could not start: ${error.message}`);
    return { exitCode: null, timedOut: false, aborted: false };
  });
  return {
    passed: result.exitCode === 0 && !result.timedOut && !result.aborted,
    timedOut: result.timedOut,
    stdout: stripVTControlCharacters(Buffer.concat(stdout).toString("utf8")),
    output: stripVTControlCharacters(combined.finish().text),
  };
}

/**
 * Runs the tests `targets` (test files, or Go packages) with `runner` in the checkout `cwd` and
 * reads each test's outcome from what the runner printed or wrote.
 */
export async function runTests(
  runner: TestRunner,
  targets: readonly string[],
  cwd: string,
  options: { timeoutMs: number; signal?: AbortSignal; scratch?: string },
): Promise<TestRun> {
  const spec = RUNNERS[runner.kind];
  // Under the mining's own scratch folder, which is swept if this process is killed.
  const scratch = await mkdtemp(path.join(options.scratch ?? os.tmpdir(), "cairn-history-run-"));
  const outcomes: Outcomes = new Map();
  const shown: string[] = [];
  let timedOut = false;
  try {
    const resultFile = path.join(scratch, "results.json");
    for (const invocation of spec.invocations(runner.base, targets, resultFile)) {
      await rm(resultFile, { force: true });
      const run = await runShell(invocation.command, cwd, options);
      timedOut ||= run.timedOut;
      shown.push(`$ ${invocation.command}\n${run.output}`);
      const results = await readFile(resultFile, "utf8").catch(() => undefined);
      const read = spec.read({ invocation, output: run.stdout, results, passed: run.passed, cwd });
      for (const [id, passed] of read) outcomes.set(id, passed);
      if (timedOut || options.signal?.aborted) break;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return { outcomes, timedOut, output: truncateHeadTail(shown.join("\n"), SHOWN).text };
}
