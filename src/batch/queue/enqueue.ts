import { Queue } from "bullmq";
import { type TaskSpec, taskKey } from "../spec.js";
import { ConnectionWatch, connect } from "./connection.js";
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
 * Puts a batch's tasks on the queue: the batch's list of jobs first (so `batch status` can find
 * them), then the jobs, each with an id made from the batch and the task so a task is never
 * queued twice in one batch.
 */
export async function enqueueBatch(specs: readonly TaskSpec[], options: EnqueueOptions): Promise<BatchMeta> {
  const redis = connect(options.url, new ConnectionWatch(options.url, options.notice));
  const queue = new Queue<JobData>(QUEUE_NAME, { connection: redis });
  try {
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
    await queue.close();
    redis.disconnect();
  }
}
