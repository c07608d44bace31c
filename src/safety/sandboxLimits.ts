import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

/**
 * What one sandboxed command may take of the machine (config `sandbox.limits`,
 * docs/limits.md#commands): a fork that never ends, or an allocation that never stops, ends that
 * command with a message saying which, and the session goes on.
 */
export interface SandboxLimits {
  /** Processes at once: the command's own, in its PID namespace. */
  processes: number;
  /** Resident memory of all its processes together, in MiB (anonymous pages: what it allocated). */
  memoryMb: number;
  /** The largest file any of its processes may write, in MiB (the kernel's RLIMIT_FSIZE). */
  fileSizeMb: number;
}

/** The most a command used, while it ran: what the defaults were measured with. */
export interface SandboxPeak {
  processes: number;
  memoryMb: number;
}

/** The share of the machine's memory a command may hold at most, whatever the config says: past it the machine's own OOM killer would choose. */
const MACHINE_SHARE = 0.75;

/** The limits of the config (`sandbox.limits`), memory kept to three quarters of the machine's. */
export function sandboxLimits(config: {
  processes: number;
  memory_mb: number;
  file_size_mb: number;
}): SandboxLimits {
  const machineMb = Math.floor((os.totalmem() * MACHINE_SHARE) / MIB);
  return {
    processes: config.processes,
    memoryMb: Math.min(config.memory_mb, machineMb),
    fileSizeMb: config.file_size_mb,
  };
}

/** How often a command's processes are counted. A fork bomb on two busy cores adds a few hundred in this time. */
const WATCH_EVERY_MS = 100;
/**
 * Tasks (processes and their threads) the kernel lets a command have, per process the limit
 * allows: the bound at each fork (its pids group; else its user's RLIMIT_NPROC, which never stops
 * root), well above what the count allows, since a JVM or a test runner holds dozens of threads a process.
 */
const TASKS_PER_PROCESS = 8;
const PAGE_BYTES = 4096;
const MIB = 1024 * 1024;

/** The tasks the kernel lets one command hold: its pids group's pids.max, and its user's RLIMIT_NPROC. */
export function taskLimit(limits: SandboxLimits): number {
  return limits.processes * TASKS_PER_PROCESS;
}

/** Bash's `ulimit` lines that set the kernel's own limits on every process of the command, hard and soft. */
export function limitsPrelude(limits: SandboxLimits): string {
  const blocks = limits.fileSizeMb * 1024;
  const tasks = taskLimit(limits);
  // One line each, so a limit the system keeps lower already does not stop the others.
  return `ulimit -HSf ${blocks} 2>/dev/null; ulimit -HSu ${tasks} 2>/dev/null\n`;
}

/** Exit status of a process the kernel ended for writing past RLIMIT_FSIZE (128 + SIGXFSZ). */
const FILE_SIZE_EXIT = 128 + os.constants.signals.SIGXFSZ;

/** The PID namespace's first process, bwrap's own init inside it: killing it ends every process of the command. */
function namespaceInit(bwrap: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${bwrap}/task/${bwrap}/children`, "utf8").trim().split(" ")[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command's processes and the memory they hold, from the namespace's own /proc (the sandbox
 * mounts one): its processes and no others. Memory is what each allocated and holds (resident
 * pages less those backed by files), so a file cached or a library shared is not counted.
 */
function usage(init: number): SandboxPeak | undefined {
  const proc = `/proc/${init}/root/proc`;
  let pids: string[];
  try {
    pids = readdirSync(proc).filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let pages = 0;
  for (const pid of pids) {
    try {
      const [, resident = "0", shared = "0"] = readFileSync(`${proc}/${pid}/statm`, "utf8").split(" ");
      pages += Number(resident) - Number(shared);
    } catch {
      // Gone since it was listed.
    }
  }
  return { processes: pids.length, memoryMb: (pages * PAGE_BYTES) / MIB };
}

/** What went over a limit, in words for the command's result. */
function breachOf(now: SandboxPeak, limits: SandboxLimits): string | undefined {
  if (now.processes > limits.processes) {
    return (
      `it ran more than ${limits.processes} processes at once (sandbox.limits.processes), as a fork that never ` +
      "ends does"
    );
  }
  if (now.memoryMb > limits.memoryMb) {
    return (
      `its processes held more than ${limits.memoryMb} MiB of memory (sandbox.limits.memory_mb), as an ` +
      "allocation that never stops does"
    );
  }
  return undefined;
}

export interface SandboxWatch {
  /** Starts watching the sandbox (bwrap) started as `pid`; `kill` ends it. */
  (pid: number, kill: () => void): () => void;
  /**
   * Why the command was ended for going past a limit, given how it exited, in a sentence for its
   * result: the processes or memory the watch saw, or a file the kernel stopped at its size.
   */
  stopped(exitCode: number | null): string | undefined;
  /** The most it used while it was watched. */
  peak(): SandboxPeak;
}

/**
 * Watches one sandboxed command: every WATCH_EVERY_MS its processes are counted and their memory
 * summed, and once either passes its limit the namespace's init is killed, which ends every
 * process in it at once (the kernel's doing: none can survive it, whatever it did to leave its
 * group). The kernel's own limits (limitsPrelude, the pids group) bound what a process does
 * between two looks; `ended` runs once the command has exited.
 */
export function watchSandbox(limits: SandboxLimits, ended?: () => void): SandboxWatch {
  let breach: string | undefined;
  const peak: SandboxPeak = { processes: 0, memoryMb: 0 };
  const watch = (pid: number, kill: () => void) => {
    let init: number | undefined;
    const look = () => {
      init ??= namespaceInit(pid);
      const now = init === undefined ? undefined : usage(init);
      if (!now) return;
      peak.processes = Math.max(peak.processes, now.processes);
      peak.memoryMb = Math.max(peak.memoryMb, now.memoryMb);
      breach ??= breachOf(now, limits);
      if (breach === undefined) return;
      clearInterval(timer);
      try {
        process.kill(init!, "SIGKILL");
      } catch {
        kill();
      }
    };
    const timer = setInterval(look, WATCH_EVERY_MS);
    return () => {
      clearInterval(timer);
      ended?.();
    };
  };
  const stopped = (exitCode: number | null) => {
    if (breach) return `Stopped: ${breach}; the command and every process it started were ended.`;
    if (exitCode !== FILE_SIZE_EXIT) return undefined;
    return (
      `Stopped: a file it wrote reached ${limits.fileSizeMb} MiB, the largest a command may write ` +
      `(sandbox.limits.file_size_mb); the kernel ended the process that wrote it (exit ${FILE_SIZE_EXIT}).`
    );
  };
  return Object.assign(watch, { stopped, peak: () => ({ ...peak }) });
}
