import { createHash } from "node:crypto";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import type { TaskProgress } from "../events.js";
import type { TaskRecord } from "../record.js";
import type { TaskSpec } from "../spec.js";
import type { TaskFlags } from "../taskProcess.js";

/** The one BullMQ queue every batch goes through; a worker takes any batch's tasks. */
export const QUEUE_NAME = "cairn-tasks";

/** Jobs and batch records are kept this long in Redis, for `cairn batch status`. */
export const KEEP_SECONDS = 30 * 24 * 3600;

/**
 * Flags that travel with a task: how it is to be run. What belongs to the machine that runs it
 * (its config file, whether it may run commands unsandboxed, its API keys) stays with the worker.
 */
export type TravellingFlags = Pick<TaskFlags, "approval" | "baseUrl" | "maxIterations">;

/** A job's data: a task and how to run it. Never a secret: workers use their own environment. */
export interface JobData {
  batch_id: string;
  spec: TaskSpec;
  flags: TravellingFlags;
  /** Tries before giving up, counting a worker that stopped mid-task as one. */
  attempts: number;
}

/** A job's return value: the task's record, or word that the batch's budget was spent before it began. */
export type JobResult = TaskRecord | { skipped: "budget" };

/** A running job's progress, as the follower reads it. */
export type JobProgress = TaskProgress & { worker: string; attempt: number };

/** What `cairn batch status` needs to find a batch's jobs again. */
export interface BatchMeta {
  batch_id: string;
  created_at: string;
  jobs: Array<{ job_id: string; id: string; key: string }>;
  max_cost_usd?: number;
  /** The results folder given when it was enqueued, on that machine. */
  out?: string;
}

/** BullMQ job ids may not hold `:`; a hash of the task's key keeps them short and safe. */
export function jobIdFor(batchId: string, key: string): string {
  return `${batchId}-${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
}

export const metaKey = (batchId: string) => `cairn:batch:${batchId}`;
/**
 * What each try of each of the batch's tasks spent, in dollars, field by field (`<job id>|<try>`):
 * set as the try goes, so a try that never finished (its worker died, its lock was lost, it was
 * handed back or broke) still counts, once, toward the batch's --max-cost and its tasks' costs.
 */
export const triesKey = (batchId: string) => `cairn:batch:${batchId}:tries`;

/** Dollars every try of the batch has spent so far. */
export async function batchSpent(redis: Redis, batchId: string): Promise<number> {
  return (await redis.hvals(triesKey(batchId))).reduce((sum, usd) => sum + Number(usd), 0);
}

/** Dollars the tries of one job spent, but for `current` (a try whose record has its own). */
export async function earlierTriesSpent(
  redis: Redis,
  batchId: string,
  jobId: string,
  current?: string,
): Promise<number> {
  const tries = await redis.hgetall(triesKey(batchId));
  return Object.entries(tries)
    .filter(([field]) => field.startsWith(`${jobId}|`) && field !== current)
    .reduce((sum, [, usd]) => sum + Number(usd), 0);
}

/**
 * How often each of the batch's jobs was taken without being tried (handed back by a stopping
 * worker), field by job id. BullMQ counts every time a job is taken (`attemptsStarted`), but its
 * own counts of tries (`attemptsMade`, `stalledCounter`) miss a try stopped because its lock was
 * lost; less these, the times taken are the tries.
 */
const untriedKey = (batchId: string) => `cairn:batch:${batchId}:untried`;

/** The try a job is on while taken, or the tries it had once it is not: the times taken, less those untried. */
export async function triesOf(redis: Redis, job: Job<JobData, JobResult>): Promise<number> {
  const untried = job.id ? Number((await redis.hget(untriedKey(job.data.batch_id), job.id)) ?? 0) : 0;
  return Math.max(0, job.attemptsStarted - untried);
}

/** The job was taken but not tried: it does not count as a try. */
export async function takenUntried(redis: Redis, job: Job<JobData, JobResult>): Promise<void> {
  if (!job.id) return;
  const key = untriedKey(job.data.batch_id);
  await redis.multi().hincrby(key, job.id, 1).expire(key, KEEP_SECONDS).exec();
}
