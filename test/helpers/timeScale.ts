import os from "node:os";

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
