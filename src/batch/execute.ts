import { createRedactor, redactDeep } from "../safety/redact.js";
import { runCheck } from "../verify/check.js";
import type { BatchListener, TaskProgress } from "./events.js";
import { type Isolated, IsolationError, isolate } from "./isolate.js";
import { failedRecord, type TaskRecord } from "./record.js";
import { type TaskSpec, taskKey } from "./spec.js";
import { runTaskProcess, type TaskFlags } from "./taskProcess.js";

export interface ExecuteOptions {
  flags: TaskFlags;
  /** Where isolated copies are made. */
  root: string;
  /** Where URL repositories are cloned once. */
  cacheDir: string;
  /** Keep the copy of a task that did not complete, to look at. */
  keepFailed?: boolean;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Passed to the task's process (`TaskProcessOptions`). */
  urgent?: AbortSignal;
  urgentGraceMs?: number;
  exitGraceMs?: number;
  attempt?: number;
  worker?: string;
  onStart?: (pid: number | undefined) => void;
  onProgress?: (progress: TaskProgress) => void;
  onNotice?: (line: string) => void;
}

/** The outcome of a task, and whether it is worth trying again elsewhere. */
export interface Execution {
  record: TaskRecord;
  /** True when cairn never produced a result (its process died, or the copy could not be made). */
  broken: boolean;
  /** True when the task was interrupted: its record is not a finished task's. */
  cancelled: boolean;
}

/**
 * What the tasks' cairns say to a person (`onNotice`), said on as the batch's or worker's own
 * notices, each line once: a hundred tasks of one untrusted repository name what it left out
 * once, not a hundred times.
 */
export function noticesOnce(emit: BatchListener, batchId?: string): (line: string) => void {
  const said = new Set<string>();
  return (line) => {
    if (said.has(line)) return;
    said.add(line);
    emit({ type: "batch.notice", ...(batchId ? { batch_id: batchId } : {}), message: line });
  };
}

function whyNoResult(stderr: string, exitCode: number | null, timedOut: boolean): string {
  if (timedOut) return "cairn did not end its session after the task's timeout and was killed.";
  const said = stderr ? `: ${stderr.split("\n").slice(-5).join("\n")}` : "";
  return `cairn ended without a result (exit ${exitCode ?? "by signal"})${said}`;
}

/** How long a task's setup may run. */
const SETUP_TIMEOUT_MS = 20 * 60_000;

/**
 * The task's setup, run in its copy before cairn: what it leaves there that git neither tracks
 * nor ignores (a link to installed packages, a virtualenv), to be left out of the task's change;
 * or why it failed.
 */
async function setUp(
  command: string,
  copy: Isolated,
  signal: AbortSignal | undefined,
): Promise<{ left: string[] } | { failure: string }> {
  const before = new Set(await copy.untracked());
  const result = await runCheck(
    { name: "setup", command, kind: "build", source: "project" },
    { cwd: copy.dir, timeoutMs: SETUP_TIMEOUT_MS, ...(signal ? { signal } : {}) },
  );
  if (!result.passed) return { failure: `the task's setup \`${command}\` failed:\n${result.output}` };
  return { left: (await copy.untracked()).filter((entry) => !before.has(entry)) };
}

/**
 * Runs one task from start to end: its own copy of the repository, cairn in its own process on
 * it, the change taken as a patch, the copy removed. Never throws for the task's own failure;
 * the record says what happened. Secrets are taken out of everything the record holds.
 */
export async function executeTask(spec: TaskSpec, options: ExecuteOptions): Promise<Execution> {
  const redact = createRedactor();
  const attempt = options.attempt ?? 1;
  const worker = options.worker ? { worker: options.worker } : {};
  let copy: Isolated;
  try {
    copy = await isolate(spec, options);
  } catch (error) {
    if (!(error instanceof IsolationError)) throw error;
    const record = {
      ...failedRecord(spec, `the isolated copy could not be made: ${error.message}`, attempt),
      ...worker,
    };
    return { record: redactDeep(record, redact), broken: true, cancelled: false };
  }
  let keep = false;
  try {
    const setup = spec.setup ? await setUp(spec.setup, copy, options.signal) : { left: [] };
    if ("failure" in setup) {
      const record = { ...failedRecord(spec, setup.failure, attempt), ...worker, base: copy.base };
      return { record: redactDeep(record, redact), broken: false, cancelled: false };
    }
    const outcome = await runTaskProcess(spec, copy.dir, options.flags, {
      ...(options.env ? { env: options.env } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.urgent ? { urgent: options.urgent } : {}),
      ...(options.urgentGraceMs !== undefined ? { urgentGraceMs: options.urgentGraceMs } : {}),
      ...(options.exitGraceMs !== undefined ? { exitGraceMs: options.exitGraceMs } : {}),
      ...(options.onStart ? { onStart: options.onStart } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    });
    const patch = await copy.patch(setup.left);
    const base = {
      id: spec.id,
      key: taskKey(spec),
      model: outcome.model ?? spec.model ?? null,
      mode: spec.mode,
      repo: spec.repo,
      ref: spec.ref ?? null,
      base: copy.base,
      patch,
      attempt,
      ...worker,
      finished_at: new Date().toISOString(),
    };
    const { result } = outcome;
    const record: TaskRecord = result
      ? { ...result, ...base }
      : {
          ...failedRecord(
            spec,
            whyNoResult(outcome.stderr, outcome.exitCode, outcome.timedOut),
            attempt,
            // Exit 2 before a session: the model could not be used (a missing key, an unknown model).
            outcome.exitCode === 2 ? "configuration" : "work_failed",
          ),
          ...base,
        };
    keep = Boolean(options.keepFailed) && record.status !== "completed";
    if (keep) record.kept = copy.dir;
    return {
      record: redactDeep(record, redact),
      broken: !result,
      cancelled:
        result?.status === "cancelled" ||
        (!result && Boolean(options.signal?.aborted || options.urgent?.aborted)),
    };
  } finally {
    if (!keep) await copy.dispose();
  }
}
