import { randomUUID } from "node:crypto";
import { rm, rmdir } from "node:fs/promises";
import { type Job, UnrecoverableError, WaitingError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { BatchListener, TaskProgress } from "../events.js";
import { type Execution, executeTask, noticesOnce } from "../execute.js";
import type { TaskRecord } from "../record.js";
import { scratchRoot } from "../scratch.js";
import { taskKey } from "../spec.js";
import type { TaskFlags } from "../taskProcess.js";
import { ConnectionWatch, closeWorker, connect, RETRYING, shownUrl } from "./connection.js";
import {
  batchSpent,
  earlierTriesSpent,
  type JobData,
  type JobProgress,
  type JobResult,
  KEEP_SECONDS,
  metaKey,
  QUEUE_NAME,
  takenUntried,
  triesKey,
  triesOf,
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

/** The job a BullMQ lock error is about (`Missing lock for job <id>. moveToFinished`). */
function lockErrorJob(error: Error): string | undefined {
  return /\block\b/i.test(error.message) ? /\bjob (\S+?)\.?(?:\s|$)/.exec(error.message)?.[1] : undefined;
}

/** The record of a task whose last allowed try broke too: it says the task was given up, and why. */
function givenUp(record: TaskRecord, attempts: number): TaskRecord {
  const why = `gave up after ${attempts} tries (the limit of --attempts ${attempts}); the last: ${record.error ?? "the try broke"}`;
  return { ...record, error: why, summary: why };
}

/** A try running here: when its lock was last renewed, and what stops it once the lock is lost. */
interface Hold {
  renewedAt: number;
  lost: AbortController;
}

/**
 * The locks on the jobs this worker runs. A lock is lost when BullMQ says a renewal failed, or
 * when Redis is out of reach and the lock has not been renewed for `LOST_AT` of its duration:
 * the try is stopped, and that is said once per try.
 */
class JobLocks {
  /** The task each job taken here is, for what is said about a job. */
  private readonly taskOf = new Map<string, string>();
  /** Jobs whose lost lock was said, this try. */
  private readonly lockLost = new Set<string>();
  private readonly held = new Map<string, Hold>();
  private readonly options: WorkerOptions;
  private readonly check: NodeJS.Timeout;

  constructor(options: WorkerOptions, watch: ConnectionWatch) {
    this.options = options;
    this.check = setInterval(
      () => {
        const now = Date.now();
        for (const [jobId, hold] of this.held)
          if (watch.isDown && now - hold.renewedAt > options.lockDurationMs * LOST_AT) this.lose(jobId);
      },
      Math.max(100, options.lockDurationMs / 8),
    );
    this.check.unref();
  }

  /** A job taken to be tried: the task it is, and a new try, whose lost lock is not said yet. */
  taken(jobId: string, task: string): void {
    this.taskOf.set(jobId, task);
    this.lockLost.delete(jobId);
  }

  /** The try's lock, held from now on. */
  hold(jobId: string | undefined): Hold {
    const hold = { renewedAt: Date.now(), lost: new AbortController() };
    if (jobId) this.held.set(jobId, hold);
    return hold;
  }

  release(jobId: string | undefined): void {
    if (jobId) this.held.delete(jobId);
  }

  /** The job is finished, or failed: nothing more is said of it. */
  forget(jobId: string | undefined): void {
    if (jobId) this.taskOf.delete(jobId);
  }

  renewed(jobIds: string[]): void {
    const now = Date.now();
    for (const jobId of jobIds) {
      const hold = this.held.get(jobId);
      if (hold) hold.renewedAt = now;
    }
  }

  /** Stops the try of a job whose lock is gone, if it still runs; said once per try. */
  lose(jobId: string): void {
    const hold = this.held.get(jobId);
    if (hold && !hold.lost.signal.aborted) hold.lost.abort();
    if (this.lockLost.has(jobId)) return;
    this.lockLost.add(jobId);
    const what = hold ? "this try is stopped and its record not kept" : "this try's record is not kept";
    this.options.emit({
      type: "batch.notice",
      message: `${this.taskOf.get(jobId) ?? `job ${jobId}`} lost its lock on the queue (Redis was away, or out of reach, for longer than --lock-duration): ${what}, and the task is run again.`,
    });
  }

  stop(): void {
    clearInterval(this.check);
  }
}

/**
 * What a try reports back through the queue: its progress, at most every `PROGRESS_EVERY_MS`,
 * and what it spent, kept under the try among the job's tries.
 */
class TryReport {
  private readonly redis: Redis;
  private readonly job: Job<JobData, JobResult>;
  /** This try, among the job's tries: what it spent is kept under it. */
  readonly field: string;
  private lastWrite = 0;
  /** The latest progress, written or not. */
  private queued: JobProgress | undefined;
  private spent = 0;

  constructor(redis: Redis, job: Job<JobData, JobResult>) {
    this.redis = redis;
    this.job = job;
    this.field = `${job.id}|${randomUUID()}`;
  }

  progress(progress: JobProgress): void {
    this.queued = progress;
    this.spent = progress.cost_usd ?? this.spent;
    const now = Date.now();
    if (now - this.lastWrite < PROGRESS_EVERY_MS) return;
    this.lastWrite = now;
    void this.job.updateProgress(progress).catch(() => {});
    void this.writeSpent();
  }

  /** Whatever the try came to, what it spent counts: its record's cost, or the last it reported. */
  async ended(execution: Execution): Promise<void> {
    this.spent = execution.broken ? this.spent : (execution.record.cost_usd ?? this.spent);
    await this.writeSpent();
  }

  /** The last progress, written even if it came too soon after the one before. */
  async flush(): Promise<void> {
    if (this.queued) await this.job.updateProgress(this.queued).catch(() => {});
  }

  private writeSpent() {
    const key = triesKey(this.job.data.batch_id);
    return this.redis
      .multi()
      .hset(key, this.field, String(this.spent))
      .expire(key, KEEP_SECONDS)
      .exec()
      .catch(() => null);
  }
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
  const locks = new JobLocks(options, watch);
  const tries = new TaskTries(options, redis, root, locks);
  const worker = new Worker<JobData, JobResult>(QUEUE_NAME, (job, token) => tries.run(job, token), {
    connection: redis,
    name: options.name,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.lockDurationMs,
    // Tries are counted against the job's own --attempts (see triesOf), not BullMQ's stall limit.
    maxStalledCount: 1_000,
  });
  // A lost lock is not a lost Redis: said once per try, as what it means for the task.
  worker.on("error", (error) => {
    const jobId = lockErrorJob(error);
    if (jobId === undefined) watch.lost(error);
    else locks.lose(jobId);
  });
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const jobId of jobIds) locks.lose(jobId);
  });
  worker.on("locksRenewed", ({ jobIds }) => locks.renewed(jobIds));
  // Finished once its record is stored under its lock: a try whose lock lapsed is not.
  worker.on("completed", (job, result) => {
    locks.forget(job.id);
    if (!("skipped" in result))
      options.emit({ type: "task.finished", batch_id: job.data.batch_id, record: result });
  });
  worker.on("failed", (job) => locks.forget(job?.id));
  await worker.waitUntilReady();
  options.emit({
    type: "batch.notice",
    message: `worker ${options.name} takes tasks from ${shownUrl(options.url)} (${options.concurrency} at a time).`,
  });

  /**
   * A stopping worker takes no more tasks: BullMQ stops fetching at once (without waiting on the
   * running tries, or on Redis), and a job it had already fetched goes back untried. Else a task
   * handed back would be taken again here at once, and handed back again, for as long as it ran.
   */
  const stopTaking = () => {
    tries.stopping = true;
    void worker.pause(true).catch(() => {});
  };
  return {
    async finish() {
      stopTaking();
      // The tasks running here go on to their end, Redis or not.
      while (tries.active > 0) await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
      await closeWorker(worker, watch);
      locks.stop();
      redis.disconnect();
      // Copies kept for failed tasks (--keep-failed) stay; the folder goes once nothing is in it.
      await (options.keepFailed ? rmdir(root) : rm(root, { recursive: true, force: true })).catch(() => {});
    },
    handBack: () => {
      stopTaking();
      tries.handingBack.abort();
    },
    running: () => tries.active,
  };
}

/** The tries of tasks this worker runs: each taken or refused, run, and its outcome given to the queue. */
class TaskTries {
  /** Tries running now. */
  active = 0;
  /** Aborted to hand the running tries back to the queue. */
  readonly handingBack = new AbortController();
  /** The worker is stopping: a job it had already fetched goes back to the queue untried. */
  stopping = false;
  private readonly options: WorkerOptions;
  private readonly redis: Redis;
  private readonly root: string;
  private readonly locks: JobLocks;
  /** What the tasks' cairns say to a person (an untrusted repository's notice), said in the worker's log once. */
  private readonly notice: (line: string) => void;

  constructor(options: WorkerOptions, redis: Redis, root: string, locks: JobLocks) {
    this.options = options;
    this.redis = redis;
    this.root = root;
    this.locks = locks;
    this.notice = noticesOnce(options.emit);
  }

  /** A job's try: its record, or the job left unstarted for the budget; it throws to have BullMQ try again or give up. */
  async run(job: Job<JobData, JobResult>, token?: string): Promise<JobResult> {
    if (this.stopping && token) await this.putBack(job, token);
    const attempt = await triesOf(this.redis, job);
    const refused = await this.refusal(job, attempt);
    if (refused) return refused;
    this.active++;
    const hold = this.locks.hold(job.id);
    const report = new TryReport(this.redis, job);
    try {
      const execution = await this.execute(job, attempt, hold, report);
      await report.ended(execution);
      return await this.outcome(job, token, attempt, hold, execution, report);
    } finally {
      this.active--;
      this.locks.release(job.id);
    }
  }

  /**
   * Why a job is not tried: its tries are used up (it fails for good), or the batch's --max-cost
   * is spent (it is left unstarted); nothing when it is tried.
   */
  private async refusal(job: Job<JobData, JobResult>, attempt: number): Promise<JobResult | undefined> {
    const { batch_id, spec, attempts } = job.data;
    if (job.id) this.locks.taken(job.id, spec.id);
    const tries = attempt - 1;
    if (tries >= attempts) {
      throw new UnrecoverableError(
        `tried ${tries} time(s) (the limit of --attempts ${attempts}); each time the worker running it stopped or the try broke.`,
      );
    }
    const meta = await this.redis.get(metaKey(batch_id));
    const maxCost = meta ? (JSON.parse(meta) as { max_cost_usd?: number }).max_cost_usd : undefined;
    if (maxCost !== undefined && (await batchSpent(this.redis, batch_id)) >= maxCost) {
      return { skipped: "budget" };
    }
    return undefined;
  }

  /** Runs the try in its own copy and cairn process, saying its start and progress here and on the queue. */
  private execute(
    job: Job<JobData, JobResult>,
    attempt: number,
    hold: Hold,
    report: TryReport,
  ): Promise<Execution> {
    const { options } = this;
    const { batch_id, spec, flags } = job.data;
    const key = taskKey(spec);
    return executeTask(spec, {
      flags: { ...flags, ...options.local },
      root: this.root,
      cacheDir: options.cacheDir,
      keepFailed: Boolean(options.keepFailed),
      signal: this.handingBack.signal,
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
        report.progress({ status: "starting", cost_usd: 0, tokens: 0, worker: options.name, attempt });
      },
      onProgress: (progress: TaskProgress) => {
        options.emit({ type: "task.progress", batch_id, id: spec.id, key, ...progress });
        report.progress({ ...progress, worker: options.name, attempt });
      },
      onNotice: this.notice,
    });
  }

  /**
   * Back to the queue, untried: it does not count as a try. If the lock is no longer this
   * worker's, the queue takes the job back itself once the lock has lapsed.
   */
  private async putBack(job: Job<JobData, JobResult>, token: string): Promise<never> {
    await takenUntried(this.redis, job).catch(() => {});
    await job.moveToWait(token).catch(() => {});
    throw new WaitingError();
  }

  /**
   * What the queue is told of an ended try: back to the queue when its lock was lost or it was
   * handed back, another try when it broke with tries left, else its record (a given-up one
   * when its last allowed try broke), with what earlier tries spent.
   */
  private async outcome(
    job: Job<JobData, JobResult>,
    token: string | undefined,
    attempt: number,
    hold: Hold,
    execution: Execution,
    report: TryReport,
  ): Promise<JobResult> {
    const { batch_id, spec, attempts } = job.data;
    if (hold.lost.signal.aborted) {
      // Back to the queue if the lock was still ours after all; if not, the queue takes the
      // task back itself once the lock has lapsed.
      if (token) await job.moveToWait(token).catch(() => {});
      throw new WaitingError();
    }
    await report.flush();
    if (execution.cancelled && this.handingBack.signal.aborted && token) {
      this.options.emit({
        type: "task.requeued",
        batch_id,
        id: spec.id,
        key: taskKey(spec),
        reason: `handed back by ${this.options.name}`,
      });
      await this.putBack(job, token);
    }
    if (execution.broken && attempt < attempts) throw new Error(execution.record.error ?? "the try broke");
    const record = execution.broken && attempts > 1 ? givenUp(execution.record, attempts) : execution.record;
    const earlier = job.id ? await earlierTriesSpent(this.redis, batch_id, job.id, report.field) : 0;
    return earlier > 0 ? { ...record, earlier_tries_cost_usd: earlier } : record;
  }
}
