import { type Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { ConfigError } from "../../platform/errors.js";
import type { BatchListener, Collection } from "../events.js";
import { failedRecord, type TaskRecord } from "../record.js";
import { ConnectionWatch, connect, RETRYING, shownUrl } from "./connection.js";
import {
  type BatchMeta,
  batchSpent,
  earlierTriesSpent,
  type JobData,
  type JobProgress,
  type JobResult,
  metaKey,
  QUEUE_NAME,
  triesOf,
} from "./jobs.js";

export interface FollowOptions {
  url: string;
  meta: BatchMeta;
  emit: BatchListener;
  /** Stops following (the batch goes on on the workers). */
  signal?: AbortSignal;
  notice: (message: string) => void;
}

/** Jobs are looked at again this often, for what an event stream cut by a lost connection missed. */
const RECONCILE_MS = 2_000;
/** With nothing started, a queue without a worker for this long is said to have none. */
const NO_WORKER_MS = 3_000;

/** A batch's list of jobs, or a usage error naming the batch and the queue. */
export async function readMeta(
  url: string,
  batchId: string,
  notice: (message: string) => void,
): Promise<BatchMeta> {
  const redis = connect(url, new ConnectionWatch(url, notice));
  try {
    const text = await redis.get(metaKey(batchId));
    if (!text) {
      throw new ConfigError(
        `no batch ${batchId} on the queue at ${shownUrl(url)}: check the id (cairn batch prints it when it enqueues) and the URL.`,
      );
    }
    return JSON.parse(text) as BatchMeta;
  } finally {
    redis.disconnect();
  }
}

type Phase = "waiting" | "active" | "done";

/**
 * Follows a batch on the queue and tells what happens as the local engine would: a task started
 * (on which worker, which attempt), its progress, its record when it finished, a task handed
 * back. Each job's record is told once, whichever worker finished it and however often the
 * follower itself reconnected. Ends when every job is finished, or when `signal` aborts.
 */
export async function followBatch(options: FollowOptions): Promise<Collection> {
  const watch = new ConnectionWatch(
    options.url,
    options.notice,
    `${RETRYING}; the tasks go on on their workers.`,
  );
  const redis = connect(options.url, watch);
  const eventsRedis = connect(options.url, watch);
  const queue = new Queue<JobData, JobResult>(QUEUE_NAME, { connection: redis });
  const queueEvents = new QueueEvents(QUEUE_NAME, { connection: eventsRedis });
  // Both report their connection's errors too: through the watch, once, not as stack traces
  // (BullMQ prints an error nobody listens for).
  queue.on("error", (error) => watch.lost(error));
  queueEvents.on("error", (error) => watch.lost(error));
  try {
    const follower = new BatchFollower(options, queue, redis);
    follower.listen(queueEvents);
    await queueEvents.waitUntilReady();
    return await follower.untilDone();
  } finally {
    await queueEvents.close().catch(() => {});
    await queue.close().catch(() => {});
    redis.disconnect();
    eventsRedis.disconnect();
  }
}

/** What the follower knows of the batch's jobs, and what it has told of them. */
class BatchFollower {
  private readonly options: FollowOptions;
  private readonly queue: Queue<JobData, JobResult>;
  private readonly redis: Redis;
  private readonly phases: Map<string, Phase>;
  private readonly names: Map<string, BatchMeta["jobs"][number]>;
  private notStarted = 0;
  private unrecorded = 0;
  private budgetSaid = false;
  private settle: () => void = () => {};
  private readonly allDone = new Promise<void>((resolve) => {
    this.settle = resolve;
  });
  /** One look at a time per job, in order, so two events about one job are never told backwards. */
  private readonly looks = new Map<string, Promise<void>>();

  constructor(options: FollowOptions, queue: Queue<JobData, JobResult>, redis: Redis) {
    this.options = options;
    this.queue = queue;
    this.redis = redis;
    this.phases = new Map(options.meta.jobs.map((job) => [job.job_id, "waiting"]));
    this.names = new Map(options.meta.jobs.map((job) => [job.job_id, job]));
  }

  private get batchId(): string {
    return this.options.meta.batch_id;
  }

  private checkDone(): void {
    if ([...this.phases.values()].every((phase) => phase === "done")) this.settle();
  }

  private finish(jobId: string, record: TaskRecord): void {
    this.phases.set(jobId, "done");
    this.options.emit({ type: "task.finished", batch_id: this.batchId, record });
    this.checkDone();
  }

  /** A job a worker did not start because the batch's --max-cost was spent: said once, counted each time. */
  private async leftUnstarted(jobId: string): Promise<void> {
    const { meta } = this.options;
    // Tried before the budget ran out: what those tries spent is the batch's all the same. Read
    // before the job is marked done, which may end the following.
    const spent = await earlierTriesSpent(this.redis, this.batchId, jobId);
    this.phases.set(jobId, "done");
    this.notStarted++;
    this.unrecorded += spent;
    if (!this.budgetSaid && meta.max_cost_usd !== undefined) {
      this.budgetSaid = true;
      const spent = await batchSpent(this.redis, this.batchId);
      const unfinished = [...this.phases.values()].filter((phase) => phase !== "done").length;
      this.options.emit({
        type: "batch.budget_reached",
        batch_id: this.batchId,
        spent_usd: spent,
        max_cost_usd: meta.max_cost_usd,
        not_started: this.notStarted + unfinished,
      });
    }
    this.checkDone();
  }

  private showProgress(jobId: string, progress: unknown): void {
    const task = this.names.get(jobId);
    if (!task || typeof progress !== "object" || progress === null || !("status" in progress)) return;
    const { worker: _worker, attempt: _attempt, ...shown } = progress as JobProgress;
    this.options.emit({
      type: "task.progress",
      batch_id: this.batchId,
      id: task.id,
      key: task.key,
      ...shown,
    });
  }

  /** Reads one job as it stands and tells what changed since it was last looked at. */
  private async look(jobId: string): Promise<void> {
    if (this.phases.get(jobId) === "done") return;
    const task = this.names.get(jobId);
    if (!task) return;
    // The state first, then the job: read the other way round, a job that finished in between
    // was read as it was before (a failed job without its reason, a completed one without its
    // record), under its new state.
    const state = await this.queue.getJobState(jobId);
    const job = (await this.queue.getJob(jobId)) as Job<JobData, JobResult> | undefined;
    if (!job) {
      const missing = failedRecord(
        { id: task.id, repo: "", task: "", mode: "run" },
        "the task is not on the queue: it was removed, or never enqueued.",
      );
      this.finish(jobId, { ...missing, key: task.key });
      return;
    }
    const before = this.phases.get(jobId);
    if (before === "done") return;
    if (state === "completed" && job.returnvalue) {
      if ("skipped" in job.returnvalue) await this.leftUnstarted(jobId);
      else this.finish(jobId, job.returnvalue);
    } else if (state === "failed") {
      await this.givenUp(jobId, job);
    } else if (state === "active") {
      this.running(jobId, task, job, before, await triesOf(this.redis, job));
    } else if (before === "active") {
      this.phases.set(jobId, "waiting");
      this.options.emit({
        type: "task.requeued",
        batch_id: this.batchId,
        id: task.id,
        key: task.key,
        reason: "its worker stopped or handed it back",
      });
    }
  }

  /** A job the queue failed: its record says after how many tries, and why. */
  private async givenUp(jobId: string, job: Job<JobData, JobResult>): Promise<void> {
    // A worker that finds the task's tries used up gives it up without trying (it was taken
    // once more); no worker ever starts a try beyond --attempts.
    const tries = Math.min(await triesOf(this.redis, job), job.data.attempts);
    const record = failedRecord(
      job.data.spec,
      `gave up after ${tries} tr${tries === 1 ? "y" : "ies"}: ${job.failedReason}`,
      tries,
    );
    const spent = await earlierTriesSpent(this.redis, this.batchId, jobId);
    this.finish(jobId, {
      ...record,
      ...(job.processedBy ? { worker: job.processedBy } : {}),
      ...(spent > 0 ? { earlier_tries_cost_usd: spent } : {}),
    });
  }

  /** A job a worker runs: its start, told once a try, and this try's progress. */
  private running(
    jobId: string,
    task: BatchMeta["jobs"][number],
    job: Job<JobData, JobResult>,
    before: Phase | undefined,
    attempt: number,
  ): void {
    if (before !== "active") {
      this.phases.set(jobId, "active");
      this.options.emit({
        type: "task.started",
        batch_id: this.batchId,
        id: task.id,
        key: task.key,
        attempt,
        ...(job.processedBy ? { worker: job.processedBy } : {}),
      });
    }
    // What an earlier try left is not this try's progress.
    if ((job.progress as Partial<JobProgress>).attempt === attempt) this.showProgress(jobId, job.progress);
  }

  private lookSoon(jobId: string): void {
    if (!this.phases.has(jobId)) return;
    const next = (this.looks.get(jobId) ?? Promise.resolve()).then(() => this.look(jobId)).catch(() => {});
    this.looks.set(jobId, next);
  }

  /** Each event of the queue about a job is a reason to look at it; progress of a running one is told at once. */
  listen(queueEvents: QueueEvents): void {
    for (const event of ["active", "completed", "failed", "waiting", "stalled"] as const) {
      queueEvents.on(event, ({ jobId }: { jobId: string }) => this.lookSoon(jobId));
    }
    queueEvents.on("progress", ({ jobId, data }: { jobId: string; data: unknown }) => {
      if (this.phases.get(jobId) === "active") this.showProgress(jobId, data);
      else this.lookSoon(jobId);
    });
  }

  /** Every job not finished, looked at: for what an event stream cut by a lost connection missed. */
  private reconcile(): void {
    for (const [jobId, phase] of this.phases) if (phase !== "done") this.lookSoon(jobId);
  }

  /** Follows until every job is finished or following is stopped; what was left unstarted or unfinished. */
  async untilDone(): Promise<Collection> {
    this.reconcile();
    const noWorker = new NoWorkerNotice(this.queue, this.options, () =>
      [...this.phases.values()].some((phase) => phase !== "waiting"),
    );
    const timer = setInterval(() => {
      this.reconcile();
      void noWorker.check();
    }, RECONCILE_MS);
    const firstCheck = setTimeout(() => void noWorker.check(), NO_WORKER_MS);
    const { signal } = this.options;
    const stopped = new Promise<void>((resolve) => {
      if (signal?.aborted) resolve();
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    try {
      this.checkDone();
      await Promise.race([this.allDone, stopped]);
    } finally {
      clearInterval(timer);
      clearTimeout(firstCheck);
    }
    const pending = [...this.phases.values()].filter((phase) => phase !== "done").length;
    return { notStarted: this.notStarted, cancelled: 0, pending, unrecordedCostUsd: this.unrecorded };
  }
}

/**
 * Says once, a few seconds in, when no task has started and no worker takes tasks from the
 * queue: a follower would otherwise wait in silence for a worker nobody started. Following goes
 * on; the tasks start when a worker does.
 */
class NoWorkerNotice {
  private said = false;
  private readonly since = Date.now();
  private readonly queue: Queue<JobData, JobResult>;
  private readonly options: Pick<FollowOptions, "url" | "notice">;
  private readonly started: () => boolean;

  constructor(
    queue: Queue<JobData, JobResult>,
    options: Pick<FollowOptions, "url" | "notice">,
    started: () => boolean,
  ) {
    this.queue = queue;
    this.options = options;
    this.started = started;
  }

  async check(): Promise<void> {
    if (this.said || this.started() || Date.now() - this.since < NO_WORKER_MS) return;
    const workers = await this.queue.getWorkersCount().catch(() => undefined);
    if (workers !== 0 || this.said || this.started()) return;
    this.said = true;
    const url = shownUrl(this.options.url);
    this.options.notice(
      `no worker is taking tasks from ${url}: start one with \`cairn worker --queue ${url}\` (on this machine or another). Waiting for one.`,
    );
  }
}
