import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

export interface SpawnOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Stop the whole process group after this long. */
  timeoutMs?: number;
  /** Stop the whole process group when this aborts. */
  signal?: AbortSignal;
  /** How long SIGTERM has to work before SIGKILL. */
  graceMs?: number;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** Written to the program's standard input, which is then closed; without it, it reads nothing. */
  input?: string;
  /**
   * Watches the process while it runs (a sandbox's limits): given its pid and a way to end it,
   * returns what stops the watching, called once it has exited.
   */
  supervise?: (pid: number, stop: () => void) => () => void;
}

export interface ProcessResult {
  /** Null when the process was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

export interface ProcessHandle {
  /** The process id, which is also its group's; absent when it could not be started, or is not ours (an editor's terminal). */
  pid?: number | undefined;
  /** Ends the process and everything it started (SIGTERM, then SIGKILL after the grace period). */
  stop(): void;
  /** Asks the whole group to stop as Ctrl-C would (SIGINT), so a program can end cleanly; where offered. */
  interrupt?(): void;
  /** Rejects only when the process could not be started (missing program or cwd). */
  done: Promise<ProcessResult>;
}

const DEFAULT_GRACE_MS = 2_000;

/**
 * Groups still running. A detached group does not die with us, so if cairn exits mid-command
 * (Ctrl-C, a crash) the groups are killed on the way out instead of being left behind.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // ESRCH: the group is already empty.
    return false;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of liveGroups) killGroup(pid, "SIGKILL");
  });
  // SIGTERM's default would end this process without the hook above, leaving the groups running:
  // where nothing else handles it, it ends the process through the hook.
  process.on("SIGTERM", function endWithGroups() {
    if (process.listenerCount("SIGTERM") === 1) process.exit(143);
  });
}

/**
 * Runs a program in its own process group, so that a timeout, an abort, or the program
 * finishing while background children still run, ends every process it started — not only the
 * direct child, which for `bash -c` would leave the real work orphaned.
 */
export function spawnGroup(file: string, args: string[], options: SpawnOptions): ProcessHandle {
  const started = Date.now();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] as ["pipe", "pipe", "pipe"],
  });
  if (options.input !== undefined && child.stdin) {
    // A program that never reads its input closes the pipe: that is its business, not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  }
  let timedOut = false;
  let aborted = false;
  let stopping = false;

  const stop = (): void => {
    const pid = child.pid;
    if (stopping || pid === undefined) return;
    stopping = true;
    if (!killGroup(pid, "SIGTERM")) {
      liveGroups.delete(pid);
      return;
    }
    setTimeout(() => {
      killGroup(pid, "SIGKILL");
      liveGroups.delete(pid);
    }, graceMs).unref();
  };

  const done = new Promise<ProcessResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
    };

    child.once("error", (error) => {
      cleanup();
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      reject(error);
    });
    if (child.pid === undefined) return;
    liveGroups.add(child.pid);
    installExitHook();
    const unwatch = options.supervise?.(child.pid, stop);

    if (options.onStdout) child.stdout.on("data", options.onStdout);
    else child.stdout.resume();
    if (options.onStderr) child.stderr.on("data", options.onStderr);
    else child.stderr.resume();

    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMs);
    }
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const finish = (): void => {
      cleanup();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        aborted,
        durationMs: Date.now() - started,
      });
    };
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      unwatch?.();
      // Whatever is still in the group was started in the background and would be orphaned.
      stop();
      // A process that left the group (setsid) may hold our pipes open forever; don't wait on it.
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, graceMs + 1_000);
    });
    child.once("close", finish);
  });

  const interrupt = (): void => {
    if (child.pid !== undefined && !stopping) killGroup(child.pid, "SIGINT");
  };

  return { pid: child.pid, stop, interrupt, done };
}

/** Whether a process of this id is running (or a zombie not yet reaped), whoever's it is. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The absolute path of an executable found on PATH (this process's, unless given), or undefined. */
export function findExecutable(name: string, searchPath = process.env.PATH): string | undefined {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}
