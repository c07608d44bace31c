import { realpathSync } from "node:fs";
import path from "node:path";
import { streamLineSchema } from "../events/events.js";
import type { RunResult } from "../events/types.js";
import { EXIT_WITH_PARENT } from "../platform/parentWatch.js";
import { spawnGroup } from "../platform/processes.js";
import type { TaskProgress } from "./events.js";
import { cairnEntry } from "./install.js";
import { isGitUrl, type TaskSpec } from "./spec.js";

/** The flags a batch passes to every task's cairn, besides what the task itself says. */
export interface TaskFlags {
  /** `--approval`: a batch has nobody to ask, so `auto` unless told otherwise. */
  approval: "ask" | "auto-edit" | "auto" | "read-only";
  baseUrl?: string;
  /** `--config <file>`, read on the machine that runs the task. */
  config?: string;
  maxIterations?: number;
  allowUnsandboxed?: boolean;
}

/** What a task's cairn process left behind. */
export interface TaskOutcome {
  /** The result line; undefined when the process ended without one (crash, kill, bad flags). */
  result?: RunResult;
  /** The model the session ran, from its first event. */
  model?: string;
  /** The end of what it wrote to stderr, for when there is no result. */
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
}

export interface TaskProcessOptions {
  env?: NodeJS.ProcessEnv;
  /** Aborting asks the task to stop as Ctrl-C would: its session ends as `cancelled`. */
  signal?: AbortSignal;
  /**
   * Aborting ends the task within `urgentGraceMs`: asked as Ctrl-C would, then ended with
   * everything it started (a try whose lock on the queue is gone must not run beside the next).
   */
  urgent?: AbortSignal;
  urgentGraceMs?: number;
  /** How long the task's cairn has to end cleanly once this process is gone, even killed (default 10 s). */
  exitGraceMs?: number;
  onStart?: (pid: number | undefined) => void;
  onProgress?: (progress: TaskProgress) => void;
  /**
   * Each line the task's cairn says to a person on stderr (`cairn: …` without the prefix): what
   * its untrusted workspace left out and how to trust it, a sandbox that does not work.
   */
  onNotice?: (line: string) => void;
}

/** After a task's own `--timeout`, how long cairn has to end its session before it is killed. */
const HARD_KILL_GRACE_MS = 60_000;
/** After an interrupt, how long the session has to end cleanly before its process group is killed. */
const INTERRUPT_GRACE_MS = 15_000;
/** How long a task's cairn has to end cleanly once the process that ran it is gone. */
const EXIT_GRACE_MS = 10_000;
const STDERR_TAIL = 4_000;
/** How cairn starts a line it says to a person on stderr. */
const NOTICE = "cairn: ";

/**
 * The repository a task's copy is of, as its session is recorded: a folder by its real path (as
 * `cairn sessions` run there looks it up), a URL as given.
 */
export function originalWorkspace(spec: TaskSpec): string {
  if (isGitUrl(spec.repo)) return spec.repo;
  try {
    return realpathSync(spec.repo);
  } catch {
    return path.resolve(spec.repo);
  }
}

/**
 * `cairn do|run` on the isolated copy, printing its events as JSON lines; its session is recorded
 * under the task's repository (`--batch-workspace`), not under the copy, which is deleted.
 */
export function taskArguments(spec: TaskSpec, workspace: string, flags: TaskFlags): string[] {
  const args = [
    spec.mode,
    "--output-format",
    "stream-json",
    "--cwd",
    workspace,
    "--batch-workspace",
    originalWorkspace(spec),
    "--approval",
    flags.approval,
  ];
  const add = (flag: string, value: string | number | undefined) => {
    if (value !== undefined) args.push(flag, String(value));
  };
  add("--model", spec.model);
  add("--agent", spec.agent);
  add("--base-url", flags.baseUrl);
  add("--config", flags.config);
  add("--max-iterations", flags.maxIterations);
  add("--verify", spec.verify);
  add("--max-cost", spec.max_cost);
  add("--timeout", spec.timeout);
  if (flags.allowUnsandboxed) args.push("--allow-unsandboxed");
  if (spec.trust_workspace) args.push("--trust-workspace");
  // After `--`, a task that starts with a dash is still the task.
  args.push("--", spec.task);
  return args;
}

/** Reads the session's events as they come into what the progress view shows. */
class ProgressReader {
  private status: TaskProgress["status"] = "starting";
  private detail: string | undefined;
  private cost: number | null = 0;
  private tokens = 0;
  result: RunResult | undefined;
  model: string | undefined;

  private readonly onProgress: ((progress: TaskProgress) => void) | undefined;

  constructor(onProgress: ((progress: TaskProgress) => void) | undefined) {
    this.onProgress = onProgress;
  }

  /** One line of the task's stream-json, checked against the protocol: anything else (a stray print) is skipped. */
  line(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const parsed = streamLineSchema.safeParse(json);
    if (!parsed.success) return;
    const event = parsed.data;
    switch (event.type) {
      case "session.started":
        this.model = event.model;
        return;
      case "status":
        this.status = event.status;
        this.detail = event.detail;
        break;
      case "tool.call":
        this.status = "running_tools";
        this.detail = event.tool;
        break;
      case "usage": {
        const cost = event.cost_usd;
        this.cost = this.cost === null || cost === null ? null : this.cost + cost;
        this.tokens += event.input_tokens + event.output_tokens;
        break;
      }
      case "result": {
        const { type: _, ...result } = event;
        this.result = result;
        return;
      }
      default:
        return;
    }
    this.onProgress?.({
      status: this.status,
      ...(this.detail ? { detail: this.detail } : {}),
      cost_usd: this.cost,
      tokens: this.tokens,
    });
  }
}

/**
 * Runs one task as its own cairn process in its own process group, so that a crash or a hang
 * ends that task alone, and a timeout or Ctrl-C ends everything the task started.
 */
export async function runTaskProcess(
  spec: TaskSpec,
  workspace: string,
  flags: TaskFlags,
  options: TaskProcessOptions = {},
): Promise<TaskOutcome> {
  const reader = new ProgressReader(options.onProgress);
  let pending = "";
  let stderr = "";
  let stderrLine = "";
  const handle = spawnGroup(process.execPath, [cairnEntry(), ...taskArguments(spec, workspace, flags)], {
    cwd: workspace,
    // Its cairn ends itself if this process dies, even by SIGKILL, which would leave it running.
    env: {
      ...(options.env ?? process.env),
      [EXIT_WITH_PARENT]: String(options.exitGraceMs ?? EXIT_GRACE_MS),
    },
    ...(spec.timeout !== undefined ? { timeoutMs: spec.timeout * 1000 + HARD_KILL_GRACE_MS } : {}),
    onStdout: (chunk) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) reader.line(line);
    },
    onStderr: (chunk) => {
      const text = chunk.toString("utf8");
      stderr = (stderr + text).slice(-STDERR_TAIL);
      const lines = (stderrLine + text).split("\n");
      stderrLine = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith(NOTICE)) options.onNotice?.(line.slice(NOTICE.length));
    },
  });
  options.onStart?.(handle.pid);
  let killTimer: NodeJS.Timeout | undefined;
  const stopWithin = (graceMs: number) => () => {
    handle.interrupt?.();
    clearTimeout(killTimer);
    killTimer = setTimeout(handle.stop, graceMs);
  };
  const onAbort = stopWithin(INTERRUPT_GRACE_MS);
  const onUrgent = stopWithin(options.urgentGraceMs ?? 0);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.urgent?.aborted) onUrgent();
  else options.urgent?.addEventListener("abort", onUrgent, { once: true });
  try {
    const ended = await handle.done;
    if (pending.trim()) reader.line(pending);
    return {
      ...(reader.result ? { result: reader.result } : {}),
      ...(reader.model ? { model: reader.model } : {}),
      stderr: stderr.trim(),
      exitCode: ended.exitCode,
      timedOut: ended.timedOut,
    };
  } finally {
    clearTimeout(killTimer);
    options.signal?.removeEventListener("abort", onAbort);
    options.urgent?.removeEventListener("abort", onUrgent);
  }
}
