import { randomBytes } from "node:crypto";
import { rm, rmdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { dataDir } from "../config/load.js";
import { runLocally } from "./engine.js";
import type { BatchEvent, BatchListener, Collection } from "./events.js";
import type { TaskRecord } from "./record.js";
import { ResultsFolder } from "./results.js";
import { scratchRoot } from "./scratch.js";
import type { TaskSpec } from "./spec.js";
import { type BatchSummary, summarize } from "./summary.js";
import type { TaskFlags } from "./taskProcess.js";

/** What every task of the batch gets unless it says otherwise. */
export interface TaskDefaults {
  model?: string;
  agent?: string;
  verify?: string;
  /** Seconds. */
  timeout?: number;
}

export interface BatchOptions {
  out: string;
  /** Tasks at once on this machine. */
  jobs: number;
  maxCost?: number;
  retryFailed?: boolean;
  keepFailed?: boolean;
  flags: TaskFlags;
  defaults?: TaskDefaults;
  signal?: AbortSignal;
  emit: BatchListener;
}

export interface BatchOutcome {
  batchId: string;
  /** The results folder. */
  out: string;
  summary: BatchSummary;
  /** Every task's latest record in the results folder, this run's and earlier ones'. */
  records: TaskRecord[];
}

/** `b20261122-014455-3fa9`: sortable by when the batch started, unique without coordination. */
export function newBatchId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `b${stamp}-${randomBytes(2).toString("hex")}`;
}

/** Tasks at once by default: every core but one, which the batch itself and the machine keep. */
export function defaultJobs(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

function withDefaults(specs: readonly TaskSpec[], defaults: TaskDefaults = {}): TaskSpec[] {
  return specs.map((spec) => ({
    ...spec,
    ...((spec.model ?? defaults.model) ? { model: spec.model ?? defaults.model } : {}),
    ...((spec.agent ?? defaults.agent) ? { agent: spec.agent ?? defaults.agent } : {}),
    ...((spec.verify ?? defaults.verify) ? { verify: spec.verify ?? defaults.verify } : {}),
    ...((spec.timeout ?? defaults.timeout) ? { timeout: spec.timeout ?? defaults.timeout } : {}),
  }));
}

/** Where URL repositories are cloned and kept between batches. */
export function repositoryCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), "batch");
}

/**
 * Runs `work` (tasks run here, or followed on a queue) with the results folder listening, then
 * writes the summary: the one ending of a local batch, `--wait` and `batch status`.
 *
 * The batch's time is from `run.startedAt` (a queued batch's enqueue time; here, now) to its last
 * task's finish, or to now while tasks are still pending: following a queued batch late, or
 * again, does not make it look shorter than it was.
 */
export async function collectInto(
  results: ResultsFolder,
  run: { batchId: string; skipped: number; emit: BatchListener; startedAt?: number },
  work: (emit: BatchListener) => Promise<Collection>,
): Promise<BatchOutcome> {
  const started = run.startedAt ?? Date.now();
  let lastFinish: number | undefined;
  const emit = (event: BatchEvent) => {
    if (event.type === "task.finished") {
      void results.add(event.record);
      const finished = Date.parse(event.record.finished_at);
      if (Number.isFinite(finished)) lastFinish = Math.max(lastFinish ?? finished, finished);
    }
    run.emit(event);
  };
  const { notStarted, cancelled, pending = 0, unrecordedCostUsd = 0 } = await work(emit);
  const ended = pending > 0 || lastFinish === undefined ? Date.now() : lastFinish;
  const summary = summarize(
    results.records(),
    {
      batch_id: run.batchId,
      wall_ms: Math.max(0, ended - started),
      skipped: run.skipped,
      not_started: notStarted,
      cancelled,
      pending,
    },
    unrecordedCostUsd,
  );
  await results.finish(summary);
  run.emit({ type: "batch.finished", summary });
  return { batchId: run.batchId, out: results.dir, summary, records: results.records() };
}

/** Opens the results folder and keeps the tasks not yet done there. */
export async function pendingTasks(
  specs: readonly TaskSpec[],
  options: Pick<BatchOptions, "out" | "retryFailed" | "defaults">,
): Promise<{ results: ResultsFolder; todo: TaskSpec[]; skipped: number }> {
  const results = await ResultsFolder.open(options.out);
  const all = withDefaults(specs, options.defaults);
  const todo = all.filter((spec) => results.needsRun(spec, Boolean(options.retryFailed)));
  return { results, todo, skipped: all.length - todo.length };
}

/** `cairn batch <file>` on this machine: the tasks not yet done, `jobs` at a time. */
export async function runBatch(specs: readonly TaskSpec[], options: BatchOptions): Promise<BatchOutcome> {
  const { results, todo, skipped } = await pendingTasks(specs, options);
  const batchId = newBatchId();
  const root = await scratchRoot("batch", Boolean(options.keepFailed));
  try {
    options.emit({
      type: "batch.started",
      batch_id: batchId,
      total: todo.length,
      skipped,
      jobs: options.jobs,
    });
    return await collectInto(results, { batchId, skipped, emit: options.emit }, (emit) =>
      runLocally(todo, {
        batchId,
        jobs: options.jobs,
        ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        emit,
        execute: {
          flags: options.flags,
          root,
          cacheDir: repositoryCache(),
          keepFailed: Boolean(options.keepFailed),
        },
      }),
    );
  } finally {
    // Copies kept for a failed task (--keep-failed) stay; the folder goes when nothing is left in it.
    await (options.keepFailed ? rmdir(root) : rm(root, { recursive: true, force: true })).catch(() => {});
  }
}
