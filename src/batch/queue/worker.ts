import { randomUUID } from "node:crypto";
import { rm, rmdir } from "node:fs/promises";
import { type Job, UnrecoverableError, WaitingError, Worker } from "bullmq";
import type { BatchListener, TaskProgress } from "../events.js";
import { executeTask } from "../execute.js";
import type { TaskRecord } from "../record.js";
import { scratchRoot } from "../scratch.js";
import { taskKey } from "../spec.js";
import type { TaskFlags } from "../taskProcess.js";
import { ConnectionWatch, connect, RETRYING, shownUrl } from "./connection.js";
import {
  batchSpent,
  earlierTriesSpent,
  type JobData,
  type JobProgress,
  type JobResult,
  KEEP_SECONDS,
  metaKey,
  QUEUE_NAME,
  triesKey,
} from "./jobs.js";

export interface WorkerOptions {
  url: string;
  concurrency: number;
  /** How long a task's lock lasts unrenewed: a worker that vanished has its tasks taken after about this long. */
  lockDurationMs: number;
  /** Shown in records and progress: which machine and process ran a task. */
  name: string;
  /** This machine's side of the flags: its config file, whether commands may run unsandboxed, its approval mode. */
  local: Partial<Pick<TaskFlags, "config" | "allowUnsandboxed" | "approval">>;
  keepFailed?: boolean;
  cacheDir: string;
  emit: BatchListener;
}

export interface RunningWorker {
  /** Takes no more tasks and waits for the running ones to finish. */
  finish(): Promise<void>;
  /** Stops the running tasks and hands them back to the queue, untried, for another worker. */
  handBack(): void;
  /** Tasks running now. */
  running(): number;
}

/** How often a stopping worker looks whether its last tasks have finished. */
const IDLE_POLL_MS = 200;

/** How often a running task's progress is written to Redis, at most. */
const PROGRESS_EVERY_MS = 500;
/**
 * Shares of the lock's duration. BullMQ renews a running task's lock every quarter to half of
 * it. When it says a renewal failed, the lock is lost; when Redis is out of reach and the lock
 * has not been renewed for `LOST_AT` of it, it is taken as lost too (a busy machine that is
 * merely late renewing it, with Redis there, is not). Either way the try is stopped within
 * `STOP_WITHIN`, before the lock can lapse in Redis and another worker start the task. A task's
 * cairn left alone by a worker that died has `EXIT_WITHIN` to end.
 */
const LOST_AT = 0.7;
const STOP_WITHIN = 0.15;
const EXIT_WITHIN = 0.25;

/** Tries so far: failed attempts and times a worker vanished mid-task (a task handed back is neither). */
function triesBefore(job: Job<JobData>): number {
  return job.attemptsMade + job.stalledCounter;
}

/** The job a BullMQ lock error is about (`Missing lock for job <id>. moveToFinished`). */
function lockErrorJob(error: Error): string | undefined {
  return /\block\b/i.test(error.message) ? /\bjob (\S+?)\.?(?:\s|$)/.exec(error.message)?.[1] : undefined;
}

/** The record of a task whose last allowed try broke too: it says the task was given up, and why. */
function givenUp(record: TaskRecord, attempts: number): TaskRecord {
  const why = `gave up after ${attempts} tries (the limit of --attempts ${attempts}); the last: ${record.error ?? "the try broke"}`;
  return { ...record, error: why, summary: why };
}

/**
 * `cairn worker`: takes tasks from the queue and runs each exactly as a local batch does (its own
 * copy, its own cairn process), reporting progress and the record back through the queue. The
 * record is the job's return value, stored by BullMQ as the job completes under its lock, so a
 * task finishes once however often a worker vanished on the way.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const watch = new ConnectionWatch(
    options.url,
    (message) => options.emit({ type: "batch.notice", message }),
    `${RETRYING}. Tasks running here go on.`,
  );
  const redis = connect(options.url, watch);
  const root = await scratchRoot("worker", Boolean(options.keepFailed));
  const handingBack = new AbortController();
  let active = 0;
  /** The task each job taken here is, for what is said about a job. */
  const taskOf = new Map<string, string>();
  /** Jobs whose lost lock was said, this try. */
  const lockLost = new Set<string>();
  /** The tries running here: when each one's lock was last renewed, and what stops it. */
  const held = new Map<string, { renewedAt: number; lost: AbortController }>();
  /** Stops the try of a job whose lock is gone, if it still runs; said once per try. */
  const loseLock = (jobId: string) => {
    const hold = held.get(jobId);
    if (hold && !hold.lost.signal.aborted) hold.lost.abort();
    if (lockLost.has(jobId)) return;
    lockLost.add(jobId);
    const what = hold ? "this try is stopped and its record not kept" : "this try's record is not kept";
    options.emit({
      type: "batch.notice",
      message: `${taskOf.get(jobId) ?? `job ${jobId}`} lost its lock on the queue (Redis was away, or out of reach, for longer than --lock-duration): ${what}, and the task is run again.`,
    });
  };
  const lockCheck = setInterval(
    () => {
      const now = Date.now();
      for (const [jobId, hold] of held)
        if (watch.isDown && now - hold.renewedAt > options.lockDurationMs * LOST_AT) loseLock(jobId);
    },
    Math.max(100, options.lockDurationMs / 8),
  );
  lockCheck.unref();

  const runJob = async (job: Job<JobData, JobResult>, token?: string): Promise<JobResult> => {
    const { batch_id, spec, flags, attempts } = job.data;
    const key = taskKey(spec);
    if (job.id) {
      taskOf.set(job.id, spec.id);
      lockLost.delete(job.id);
    }
    const tries = triesBefore(job);
    if (tries >= attempts) {
      throw new UnrecoverableError(
        `tried ${tries} time(s) (the limit of --attempts ${attempts}); each time the worker running it stopped or the try broke.`,
      );
    }
    const meta = await redis.get(metaKey(batch_id));
    const maxCost = meta ? (JSON.parse(meta) as { max_cost_usd?: number }).max_cost_usd : undefined;
    if (maxCost !== undefined && (await batchSpent(redis, batch_id)) >= maxCost) {
      return { skipped: "budget" };
    }
    active++;
    const attempt = tries + 1;
    const hold = { renewedAt: Date.now(), lost: new AbortController() };
    if (job.id) held.set(job.id, hold);
    let lastWrite = 0;
    let queued: JobProgress | undefined;
    /** This try, among the job's tries: what it spent is kept under it. */
    const tryField = `${job.id}|${randomUUID()}`;
    let spent = 0;
    const writeSpent = () =>
      redis
        .multi()
        .hset(triesKey(batch_id), tryField, String(spent))
        .expire(triesKey(batch_id), KEEP_SECONDS)
        .exec()
        .catch(() => null);
    const writeProgress = (progress: JobProgress) => {
      queued = progress;
      spent = progress.cost_usd ?? spent;
      const now = Date.now();
      if (now - lastWrite < PROGRESS_EVERY_MS) return;
      lastWrite = now;
      void job.updateProgress(progress).catch(() => {});
      void writeSpent();
    };
    try {
      const execution = await executeTask(spec, {
        flags: { ...flags, ...options.local },
        root,
        cacheDir: options.cacheDir,
        keepFailed: Boolean(options.keepFailed),
        signal: handingBack.signal,
        urgent: hold.lost.signal,
        urgentGraceMs: options.lockDurationMs * STOP_WITHIN,
        exitGraceMs: options.lockDurationMs * EXIT_WITHIN,
        attempt,
        worker: options.name,
        onStart: (pid) => {
          options.emit({
            type: "task.started",
            batch_id,
            id: spec.id,
            key,
            attempt,
            worker: options.name,
            ...(pid ? { pid } : {}),
          });
          writeProgress({ status: "starting", cost_usd: 0, tokens: 0, worker: options.name, attempt });
        },
        onProgress: (progress: TaskProgress) => {
          options.emit({ type: "task.progress", batch_id, id: spec.id, key, ...progress });
          writeProgress({ ...progress, worker: options.name, attempt });
        },
      });
      // Whatever this try comes to, what it spent counts.
      spent = execution.broken ? spent : (execution.record.cost_usd ?? spent);
      await writeSpent();
      if (hold.lost.signal.aborted) {
        // Back to the queue if the lock was still ours after all; if not, the queue takes the
        // task back itself once the lock has lapsed.
        if (token) await job.moveToWait(token).catch(() => {});
        throw new WaitingError();
      }
      if (queued) await job.updateProgress(queued).catch(() => {});
      if (execution.cancelled && handingBack.signal.aborted && token) {
        options.emit({
          type: "task.requeued",
          batch_id,
          id: spec.id,
          key,
          reason: `handed back by ${options.name}`,
        });
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (execution.broken && attempt < attempts) throw new Error(execution.record.error ?? "the try broke");
      const record =
        execution.broken && attempts > 1 ? givenUp(execution.record, attempts) : execution.record;
      const earlier = job.id ? await earlierTriesSpent(redis, batch_id, job.id, tryField) : 0;
      return earlier > 0 ? { ...record, earlier_tries_cost_usd: earlier } : record;
    } finally {
      active--;
      if (job.id) held.delete(job.id);
    }
  };

  const worker = new Worker<JobData, JobResult>(QUEUE_NAME, runJob, {
    connection: redis,
    name: options.name,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.lockDurationMs,
    // Tries are counted by the job's own --attempts (see triesBefore), not by BullMQ's stall limit.
    maxStalledCount: 1_000,
  });
  // A lost lock is not a lost Redis: said once per try, as what it means for the task.
  worker.on("error", (error) => {
    const jobId = lockErrorJob(error);
    if (jobId === undefined) watch.lost(error);
    else loseLock(jobId);
  });
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const jobId of jobIds) loseLock(jobId);
  });
  worker.on("locksRenewed", ({ jobIds }) => {
    const now = Date.now();
    for (const jobId of jobIds) {
      const hold = held.get(jobId);
      if (hold) hold.renewedAt = now;
    }
  });
  // Finished once its record is stored under its lock: a try whose lock lapsed is not.
  worker.on("completed", (job, result) => {
    if (job.id) taskOf.delete(job.id);
    if (!("skipped" in result))
      options.emit({ type: "task.finished", batch_id: job.data.batch_id, record: result });
  });
  worker.on("failed", (job) => {
    if (job?.id) taskOf.delete(job.id);
  });
  await worker.waitUntilReady();
  options.emit({
    type: "batch.notice",
    message: `worker ${options.name} takes tasks from ${shownUrl(options.url)} (${options.concurrency} at a time).`,
  });

  return {
    async finish() {
      // The tasks running here go on to their end, Redis or not.
      while (active > 0) await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
      // A close waits on Redis, which has no end while it is away: then the worker lets go of it.
      await worker.close(watch.isDown).catch(() => {});
      clearInterval(lockCheck);
      redis.disconnect();
      // Copies kept for failed tasks (--keep-failed) stay; the folder goes once nothing is in it.
      await (options.keepFailed ? rmdir(root) : rm(root, { recursive: true, force: true })).catch(() => {});
    },
    handBack: () => handingBack.abort(),
    running: () => active,
  };
}
