// What the compiled languages' test runs share: asking whether a program works here, running a
// build step with its output passed on, and a scratch folder that goes however the run ends.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const probes = new Map<string, Promise<string | undefined>>();

/**
 * What `file args` prints when it runs and exits 0 here, or undefined (asked once per process:
 * toolchains do not come and go mid-run).
 */
export function outputOf(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<string | undefined> {
  const key = JSON.stringify([file, args, env]);
  let probe = probes.get(key);
  if (!probe) {
    probe = new Promise((resolve) => {
      execFile(file, args, { env: { ...process.env, ...env }, timeout: 20_000 }, (error, stdout) =>
        resolve(error ? undefined : stdout),
      );
    });
    probes.set(key, probe);
  }
  return probe;
}

/** Whether `file args` runs and exits 0 here. */
export async function works(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<boolean> {
  return (await outputOf(file, args, env)) !== undefined;
}

/** The first of `candidates` that passes `test`, or undefined. */
export async function firstWorking<T>(
  candidates: readonly T[],
  test: (candidate: T) => Promise<boolean>,
): Promise<T | undefined> {
  for (const candidate of candidates) if (await test(candidate)) return candidate;
  return undefined;
}

export interface StepOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Text to take out of what the step prints (a scratch path the person never saw). */
  hide?: { text: string; as: string };
}

/**
 * Runs one step of a test run with its output passed on to ours; resolves to its exit code (1
 * when it could not start or was ended by a signal, having said so).
 */
export function step(file: string, args: string[], options: StepOptions): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", options.hide ? "pipe" : "inherit", options.hide ? "pipe" : "inherit"],
    });
    const flushes: Array<() => void> = [];
    const hide = options.hide;
    if (hide) {
      // Whole lines at a time, so that a path split across two chunks is still found.
      const pass = (from: NodeJS.ReadableStream | null, to: NodeJS.WriteStream) => {
        let pending = "";
        from?.setEncoding("utf8");
        from?.on("data", (text: string) => {
          const lines = pending + text;
          const end = lines.lastIndexOf("\n") + 1;
          pending = lines.slice(end);
          if (end) to.write(lines.slice(0, end).replaceAll(hide.text, hide.as));
        });
        flushes.push(() => to.write(pending.replaceAll(hide.text, hide.as)));
      };
      pass(child.stdout, process.stdout);
      pass(child.stderr, process.stderr);
    }
    child.once("error", (error) => {
      process.stderr.write(`${file} could not start: ${error.message}\n`);
      resolve(1);
    });
    child.once("close", (code, signal) => {
      for (const flush of flushes) flush();
      if (signal) process.stderr.write(`${file} was ended by ${signal}\n`);
      resolve(code ?? 1);
    });
  });
}

/**
 * Runs `work` with a scratch folder for build output, outside the exercise so that nothing built
 * lands in the agent's change; the folder is removed when the work ends, also when a signal (a
 * grading timeout) ends this process first.
 */
export async function withScratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-test-run-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  };
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
  for (const signal of signals) process.once(signal, onSignal);
  try {
    return await work(dir);
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    remove();
  }
}
