import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { UnavailableError } from "../../platform/errors.js";
import { type TaskSpec, taskKey } from "../spec.js";
import { ConnectionWatch, connect, shownUrl } from "./connection.js";
import {
  type BatchMeta,
  type JobData,
  jobIdFor,
  KEEP_SECONDS,
  metaKey,
  QUEUE_NAME,
  type TravellingFlags,
} from "./jobs.js";

export interface EnqueueOptions {
  url: string;
  batchId: string;
  flags: TravellingFlags;
  attempts: number;
  maxCost?: number;
  out?: string;
  notice: (message: string) => void;
}

/**
 * How long an enqueue waits for Redis to answer before giving up: nothing runs here meanwhile,
 * so a Redis that is down or a wrong URL is said in seconds, not waited for forever.
 */
export const ENQUEUE_WAIT_MS = 10_000;

/** Resolves once the connection is ready; an UnavailableError saying what to do after `waitMs`. */
function reachable(redis: Redis, url: string, watch: ConnectionWatch, waitMs: number): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off("ready", ready);
      reject(
        new UnavailableError(
          `cannot reach Redis at ${shownUrl(url)}${watch.reason ? ` (${watch.reason})` : ""} after ${waitMs / 1000}s: nothing was queued. Start Redis there, or give --queue the URL of one that is running, then run the same command again.`,
        ),
      );
    }, waitMs);
    redis.once("ready", ready);
  });
}

/**
 * Puts a batch's tasks on the queue: the batch's list of jobs first (so `batch status` can find
 * them), then the jobs, each with an id made from the batch and the task so a task is never
 * queued twice in one batch. Gives up when Redis does not answer within `waitMs`.
 */
export async function enqueueBatch(
  specs: readonly TaskSpec[],
  options: EnqueueOptions,
  waitMs = ENQUEUE_WAIT_MS,
): Promise<BatchMeta> {
  const watch = new ConnectionWatch(
    options.url,
    options.notice,
    `trying again for up to ${waitMs / 1000}s; nothing is queued until it answers.`,
  );
  const redis = connect(options.url, watch);
  const queue = new Queue<JobData>(QUEUE_NAME, { connection: redis });
  // The queue reports its connection's errors too: through the same watch, once, not as stack traces.
  queue.on("error", (error) => watch.lost(error));
  try {
    await reachable(redis, options.url, watch, waitMs);
    const meta: BatchMeta = {
      batch_id: options.batchId,
      created_at: new Date().toISOString(),
      jobs: specs.map((spec) => ({
        job_id: jobIdFor(options.batchId, taskKey(spec)),
        id: spec.id,
        key: taskKey(spec),
      })),
      ...(options.maxCost !== undefined ? { max_cost_usd: options.maxCost } : {}),
      ...(options.out ? { out: options.out } : {}),
    };
    await redis.set(metaKey(options.batchId), JSON.stringify(meta), "EX", KEEP_SECONDS);
    await queue.addBulk(
      specs.map((spec, i) => ({
        name: spec.id,
        data: { batch_id: options.batchId, spec, flags: options.flags, attempts: options.attempts },
        opts: {
          jobId: meta.jobs[i]?.job_id,
          attempts: options.attempts,
          removeOnComplete: { age: KEEP_SECONDS },
          removeOnFail: { age: KEEP_SECONDS },
        },
      })),
    );
    return meta;
  } finally {
    // Disconnected first: closing the queue would otherwise wait for a Redis that is not there.
    redis.disconnect();
    await queue.close();
  }
}
