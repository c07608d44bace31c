import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultJobs, repositoryCache, runBatch } from "../batch/batch.js";
import type { BatchListener } from "../batch/events.js";
import { type BatchOutputFormat, type BatchRenderer, batchFinal, batchRenderer } from "../batch/progress.js";
import { outcomeOf, type TaskRecord } from "../batch/record.js";
import { removeOwnScratch } from "../batch/scratch.js";
import { loadTasks, type TaskSpec } from "../batch/spec.js";
import type { BatchSummary } from "../batch/summary.js";
import type { TaskFlags } from "../batch/taskProcess.js";
import { ConfigError } from "../platform/errors.js";
import { onStopSignal, type StopSignal, signalExitCode } from "../platform/signals.js";
import { refuseUnreachableModels } from "./preflight.js";

/** Flags of `cairn batch` (and `cairn eval`, which runs through it). */
export interface BatchCliOptions {
  jobs?: number;
  out?: string;
  maxCost?: number;
  retryFailed?: boolean;
  keepFailed?: boolean;
  queue?: string;
  wait?: boolean;
  attempts: number;
  model?: string;
  /** `--agent`: the agent that carries out tasks that name none. */
  agent?: string;
  baseUrl?: string;
  config?: string;
  approval: TaskFlags["approval"];
  maxIterations?: number;
  timeout?: number;
  verify?: string;
  allowUnsandboxed?: boolean;
  outputFormat: BatchOutputFormat;
  color: boolean;
}

export interface WorkerCliOptions {
  queue: string;
  concurrency: number;
  config?: string;
  approval?: TaskFlags["approval"];
  allowUnsandboxed?: boolean;
  keepFailed?: boolean;
  name?: string;
  lockDuration: number;
  outputFormat: BatchOutputFormat;
}

export function renderer(
  format: BatchOutputFormat,
  options: { workerLog?: boolean } = {},
): Promise<BatchRenderer> {
  return batchRenderer(format, {
    out: process.stdout,
    live: format === "text" && Boolean(process.stdout.isTTY),
    ...options,
  });
}

/**
 * Ctrl-C (or SIGTERM, SIGHUP) once: stop starting tasks and ask the running ones to end (they are
 * not recorded, so a re-run does them); twice: quit at once, their process groups killed on the
 * way out.
 */
function interruptible(emit: BatchListener, what: string): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const release = onStopSignal((signal) => {
    if (controller.signal.aborted) process.exit(signalExitCode(signal));
    controller.abort();
    emit({ type: "batch.notice", message: `stopping: ${what}. Ctrl-C again to quit at once.` });
  });
  return { signal: controller.signal, release };
}

/** The flags every task's cairn gets from the batch's own. */
/** A `--config` every task is to read: checked once here rather than failing every task alike. */
function configFile(file: string): string {
  const resolved = path.resolve(file);
  if (!statSync(resolved, { throwIfNoEntry: false })?.isFile()) {
    throw new ConfigError(`--config ${file}: no such file; give a YAML config file.`);
  }
  return resolved;
}

function taskFlags(options: BatchCliOptions): TaskFlags {
  return {
    approval: options.approval,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.config ? { config: configFile(options.config) } : {}),
    ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
    ...(options.allowUnsandboxed ? { allowUnsandboxed: true } : {}),
  };
}

function taskDefaults(options: BatchCliOptions) {
  return {
    ...(options.model ? { model: options.model } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.verify ? { verify: options.verify } : {}),
    ...(options.timeout ? { timeout: options.timeout } : {}),
  };
}

/** `tasks.jsonl` → `tasks.results/` beside it, so running the same file again finds its results. */
function defaultOut(file: string): string {
  const parsed = path.parse(path.resolve(file));
  return path.join(parsed.dir, `${parsed.name}.results`);
}

/**
 * Exit code of a batch, as a session's: 0 when every task completed, 3 when the rest were only
 * unverified (their changes made, nothing checked them), 1 when any failed or was left undone.
 */
function exitCodeOf(records: readonly TaskRecord[], summary: BatchSummary): number {
  const left = summary.not_started + summary.cancelled + summary.pending;
  const outcomes = new Set(records.map(outcomeOf));
  if (left > 0 || outcomes.has("failed")) return 1;
  return outcomes.has("unverified") ? 3 : 0;
}

/** The tasks run here, or put on the queue (and followed with --wait). */
export async function runTasks(
  specs: readonly TaskSpec[],
  options: BatchCliOptions & { out: string },
  view: BatchRenderer,
) {
  const emit = view.handle;
  if (options.wait && !options.queue)
    throw new ConfigError("--wait follows a batch on a queue: give --queue <redis-url> too.");
  if (options.queue) {
    const { enqueueTasks, followTasks } = await import("../batch/queue/remote.js");
    for (const flag of [options.config && "--config", options.allowUnsandboxed && "--allow-unsandboxed"]) {
      if (flag)
        emit({
          type: "batch.notice",
          message: `${flag} stays on this machine: give it to cairn worker instead.`,
        });
    }
    const enqueued = await enqueueTasks(specs, {
      url: options.queue,
      out: options.out,
      retryFailed: Boolean(options.retryFailed),
      defaults: taskDefaults(options),
      flags: {
        approval: options.approval,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
      },
      attempts: options.attempts,
      ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
      emit,
    });
    if (!options.wait) return { enqueued };
    const { signal, release } = interruptible(emit, "no longer following; the batch goes on on the workers");
    try {
      return {
        outcome: await followTasks({
          url: options.queue,
          batchId: enqueued.batchId,
          out: options.out,
          skipped: enqueued.skipped,
          emit,
          signal,
        }),
      };
    } finally {
      release();
    }
  }
  const { signal, release } = interruptible(
    emit,
    "no more tasks are started, and running ones are asked to stop",
  );
  try {
    const outcome = await runBatch(specs, {
      out: options.out,
      jobs: options.jobs ?? defaultJobs(),
      ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
      retryFailed: Boolean(options.retryFailed),
      keepFailed: Boolean(options.keepFailed),
      flags: taskFlags(options),
      defaults: taskDefaults(options),
      signal,
      emit,
    });
    return { outcome };
  } finally {
    release();
  }
}

/** `cairn batch <file>`. */
export async function batchCommand(file: string, options: BatchCliOptions): Promise<number> {
  const specs = await loadTasks(file);
  // Workers on a queue bring their own keys; here, every task would fail alike without one.
  if (!options.queue) {
    await refuseUnreachableModels(
      specs.map((spec) => spec.model ?? options.model),
      { ...options, command: "batch" },
    );
  }
  const out = path.resolve(options.out ?? defaultOut(file));
  const view = await renderer(options.outputFormat);
  const { enqueued, outcome } = await runTasks(specs, { ...options, out }, view);
  if (enqueued) {
    const follow = `cairn batch status ${enqueued.batchId} --queue ${options.queue}`;
    if (options.outputFormat === "text") {
      process.stdout.write(
        `Enqueued ${enqueued.meta.jobs.length} task(s) as batch ${enqueued.batchId}` +
          `${enqueued.skipped ? ` (${enqueued.skipped} already done in ${out})` : ""}.\n` +
          `Start workers with \`cairn worker --queue ${options.queue}\`; follow it with \`${follow}\`.\n`,
      );
    } else {
      const summary = {
        type: "result",
        batch_id: enqueued.batchId,
        enqueued: enqueued.meta.jobs.length,
        skipped: enqueued.skipped,
        out,
      };
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    }
    return 0;
  }
  if (!outcome) return 1;
  view.finish(batchFinal(outcome.summary, outcome.records, out));
  return exitCodeOf(outcome.records, outcome.summary);
}

/** `cairn batch status <id> --queue <url>`: follows a queued batch and collects its results. */
export async function batchStatusCommand(
  batchId: string,
  options: { queue: string; out?: string; outputFormat: BatchOutputFormat },
): Promise<number> {
  const { followTasks } = await import("../batch/queue/remote.js");
  const view = await renderer(options.outputFormat);
  const { signal, release } = interruptible(
    view.handle,
    "no longer following; the batch goes on on the workers",
  );
  try {
    const outcome = await followTasks({
      url: options.queue,
      batchId,
      ...(options.out ? { out: path.resolve(options.out) } : {}),
      emit: view.handle,
      signal,
    });
    view.finish(batchFinal(outcome.summary, outcome.records, outcome.out));
    return exitCodeOf(outcome.records, outcome.summary);
  } finally {
    release();
  }
}

/**
 * `cairn worker --queue <url>`: takes tasks until stopped. Ctrl-C (or SIGTERM) once: no more
 * tasks, the running ones finish; twice: the running ones are stopped and handed back to the
 * queue for another worker; three times: quit at once.
 */
export async function workerCommand(options: WorkerCliOptions): Promise<number> {
  // Caught from the first moment: a stop while the worker still starts (waiting for its Redis)
  // ends it as cleanly as later, its scratch folders removed, once it has started; a second one
  // quits at once, as Redis may never come.
  const stops: StopSignal[] = [];
  let onStop: ((signal: StopSignal, count: number) => void) | undefined;
  onStopSignal((signal) => {
    stops.push(signal);
    if (onStop) onStop(signal, stops.length);
    else if (stops.length > 1) {
      removeOwnScratch();
      process.exit(signalExitCode(signal));
    }
  });
  const [{ startWorker }, { checkQueueUrl }, { startHistoryWorker }] = await Promise.all([
    import("../batch/queue/worker.js"),
    import("../batch/queue/connection.js"),
    import("../eval/history/queue.js"),
  ]);
  const view = await renderer(options.outputFormat, { workerLog: true });
  // Commits of `cairn eval history --queue` are mined here too, on their own queue.
  const mining = await startHistoryWorker({
    url: checkQueueUrl(options.queue),
    concurrency: options.concurrency,
    cacheDir: repositoryCache(),
    notice: (message) => view.handle({ type: "batch.notice", message }),
  });
  const worker = await startWorker({
    url: checkQueueUrl(options.queue),
    concurrency: options.concurrency,
    lockDurationMs: options.lockDuration * 1000,
    name: options.name ?? `${os.hostname()}:${process.pid}`,
    local: {
      ...(options.config ? { config: configFile(options.config) } : {}),
      ...(options.allowUnsandboxed ? { allowUnsandboxed: true } : {}),
      ...(options.approval ? { approval: options.approval } : {}),
    },
    keepFailed: Boolean(options.keepFailed),
    cacheDir: repositoryCache(),
    emit: view.handle,
  });
  const finished = new Promise<void>((resolve) => {
    onStop = (signal, count) => {
      const notice = (message: string) => view.handle({ type: "batch.notice", message });
      if (count === 1) {
        notice(
          `stopping: no more tasks; ${worker.running()} running task(s) finish. Ctrl-C again to hand them back to the queue.`,
        );
        void Promise.all([worker.finish(), mining.finish()]).then(() => resolve());
      } else if (count === 2) {
        notice("handing the running tasks back to the queue. Ctrl-C again to quit at once.");
        worker.handBack();
      } else {
        process.exit(signalExitCode(signal));
      }
    };
    for (const [index, signal] of stops.entries()) onStop(signal, index + 1);
  });
  await finished;
  // BullMQ's fetch loop keeps a timer for seconds after the worker has closed (longer while Redis
  // is away): nothing is left to do, so the process does not wait for it.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  process.exit(0);
}
