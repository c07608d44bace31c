import os from "node:os";
import { vi } from "vitest";

/**
 * How many times longer than on a quiet machine a wait may take before a test calls it stuck.
 * Timeouts and deadlines in the tests exist to end a test that hangs, not to measure speed (the
 * benchmarks do that), so on a busy machine (CI, or this suite beside two more copies of itself)
 * they stretch rather than fail work that was only slow: by the 1-minute load average per core
 * when the wait starts (1 on a machine not fully busy, at most 6), or as CAIRN_TEST_TIME_SCALE
 * says (`scripts/load-check.sh`, docs/development.md "Tests under load").
 */
export function timeScale(): number {
  const set = Number(process.env.CAIRN_TEST_TIME_SCALE);
  if (set > 0) return set;
  const perCore = os.loadavg()[0]! / Math.max(1, os.availableParallelism());
  return Math.min(6, Math.max(1, perCore));
}

/** `ms` stretched by the machine's load (timeScale). */
export function scaled(ms: number): number {
  return Math.round(ms * timeScale());
}

/** How long a test or a hook may take on a quiet machine, unless its file or itself says more. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Sets the timeout of every test and hook in the calling test file, stretched by the load as the
 * file starts: every file gets the default (test/setup/files.ts), and a file whose tests all
 * start the CLI with servers around it (a queue, a terminal, a package install) calls this once
 * at its top with the longest any of them needs, rather than each test naming its own.
 */
export function fileTimeouts(ms = DEFAULT_TIMEOUT_MS): void {
  vi.setConfig({ testTimeout: scaled(ms), hookTimeout: scaled(ms) });
}
