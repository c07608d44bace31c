import { type BatchOptions, type BatchOutcome, collectInto, newBatchId, pendingTasks } from "../batch.js";
import type { BatchListener } from "../events.js";
import { ResultsFolder } from "../results.js";
import type { TaskSpec } from "../spec.js";
import { checkQueueUrl, shownUrl } from "./connection.js";
import { enqueueBatch } from "./enqueue.js";
import { followBatch, readMeta } from "./follow.js";
import type { BatchMeta, TravellingFlags } from "./jobs.js";

export interface QueueBatchOptions
  extends Pick<BatchOptions, "out" | "retryFailed" | "defaults" | "maxCost" | "emit"> {
  url: string;
  flags: TravellingFlags;
  attempts: number;
}

export interface Enqueued {
  batchId: string;
  meta: BatchMeta;
  skipped: number;
}

/** `cairn batch <file> --queue <url>`: the tasks not yet done in `--out`, put on the queue as one batch. */
export async function enqueueTasks(
  specs: readonly TaskSpec[],
  options: QueueBatchOptions,
): Promise<Enqueued> {
  const url = checkQueueUrl(options.url);
  const { results, todo, skipped } = await pendingTasks(specs, options);
  const batchId = newBatchId();
  const meta = await enqueueBatch(todo, {
    url,
    batchId,
    out: results.dir,
    flags: options.flags,
    attempts: options.attempts,
    ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
    notice: (message) => options.emit({ type: "batch.notice", batch_id: batchId, message }),
  });
  return { batchId, meta, skipped };
}

export interface FollowSpec {
  url: string;
  batchId: string;
  /** The results folder; the one the batch was enqueued with when not given. */
  out?: string;
  /** Tasks found done before the batch was enqueued, for the summary. */
  skipped?: number;
  emit: BatchListener;
  signal?: AbortSignal;
}

/**
 * `--wait` and `cairn batch status`: follows the batch on the queue, telling the same events a
 * local batch does, and collects its records into the results folder.
 */
export async function followTasks(spec: FollowSpec): Promise<BatchOutcome> {
  const url = checkQueueUrl(spec.url);
  const notice = (message: string) => spec.emit({ type: "batch.notice", batch_id: spec.batchId, message });
  const meta = await readMeta(url, spec.batchId, notice);
  const results = await ResultsFolder.open(spec.out ?? meta.out ?? `batch-${spec.batchId}.results`);
  const skipped = spec.skipped ?? 0;
  spec.emit({
    type: "batch.started",
    batch_id: spec.batchId,
    total: meta.jobs.length,
    skipped,
    jobs: null,
    queue: shownUrl(url),
  });
  // The batch's time runs from when it was enqueued, however late it is followed.
  const createdAt = Date.parse(meta.created_at);
  const startedAt = Number.isFinite(createdAt) ? { startedAt: createdAt } : {};
  return collectInto(results, { batchId: spec.batchId, skipped, emit: spec.emit, ...startedAt }, (emit) =>
    followBatch({ url, meta, emit, notice, ...(spec.signal ? { signal: spec.signal } : {}) }),
  );
}
