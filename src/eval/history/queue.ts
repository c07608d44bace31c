import { rm } from "node:fs/promises";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { ConnectionWatch, closeWorker, connect, shownUrl } from "../../batch/queue/connection.js";
import { jobIdFor, KEEP_SECONDS } from "../../batch/queue/jobs.js";
import { scratchRoot } from "../../batch/scratch.js";
import { settingsKey } from "./cache.js";
import type { CommitInfo } from "./commits.js";
import { setupCommand } from "./environment.js";
import type { RemoteMiner } from "./mine.js";
import { mineCommit } from "./probe.js";
import { type MinedCommit, type MiningSettings, REASON_TEXT } from "./types.js";

/** The BullMQ queue commits are mined through, beside the one tasks run through. */
export const HISTORY_QUEUE = "cairn-history";

/** A job: one commit to mine, and how. */
interface MiningJob {
  repo: string;
  checkout: string | undefined;
  settings: MiningSettings;
  commit: CommitInfo;
}

/** A commit that could not be mined on the queue: left out, with the queue's word. */
function failedOnQueue(commit: CommitInfo, why: string): MinedCommit {
  return {
    sha: commit.sha,
    parent: commit.parent,
    date: commit.date,
    subject: commit.message.split("\n")[0] ?? "",
    test_files: [],
    source_files: [],
    mined_ms: 0,
    status: "left_out",
    reason: "error",
    detail: `on the queue: ${why}`,
  };
}

/** Resolves when the job is mined (a job failed before is tried again), or with nothing when `signal` aborts first. */
async function outcomeOf(
  job: Job<MiningJob, MinedCommit>,
  events: QueueEvents,
  signal: AbortSignal,
): Promise<MinedCommit | undefined> {
  if ((await job.getState()) === "failed") await job.retry();
  const stopped = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  const finished = job.waitUntilFinished(events).then(
    (value: MinedCommit | string) => (typeof value === "string" ? (JSON.parse(value) as MinedCommit) : value),
    (error: Error) => failedOnQueue(job.data.commit, error.message),
  );
  return Promise.race([finished, stopped]);
}

/**
 * Mining through the queue in Redis at `url`: each commit a job (its id made from the
 * repository, the settings and the commit, so mining again finds the jobs already done), mined
 * by `cairn worker`s, each handed back as it is mined. Ctrl-C stops waiting; the jobs stay queued.
 */
export function mineOnQueue(options: {
  url: string;
  signal: AbortSignal;
  notice: (message: string) => void;
}): RemoteMiner {
  return async (commits, job, found) => {
    if (commits.length === 0) return;
    const watch = new ConnectionWatch(options.url, options.notice);
    const redis = connect(options.url, watch);
    const queue = new Queue<MiningJob, MinedCommit>(HISTORY_QUEUE, { connection: redis });
    // Events are read from the last one there before the jobs are added: a job mined before the
    // reading starts is not missed (from "$", the reading would begin whenever it first asks).
    const last = await redis.xrevrange(`bull:${HISTORY_QUEUE}:events`, "+", "-", "COUNT", 1);
    const listening = connect(options.url, watch);
    const events = new QueueEvents(HISTORY_QUEUE, {
      connection: listening,
      lastEventId: last[0]?.[0] ?? "0-0",
    });
    try {
      await events.waitUntilReady();
      const prefix = settingsKey(job.settings, setupCommand(job.checkout, job.settings));
      const added = await queue.addBulk(
        commits.map((commit) => ({
          name: "commit",
          data: { ...job, commit },
          opts: {
            jobId: jobIdFor(prefix, `${job.repo}\n${commit.sha}`),
            removeOnComplete: { age: KEEP_SECONDS },
            removeOnFail: { age: KEEP_SECONDS },
          },
        })),
      );
      options.notice(
        `${commits.length} commit(s) to mine are on the queue at ${shownUrl(options.url)}: start workers with \`cairn worker --queue ${options.url}\`.`,
      );
      await Promise.all(
        added.map(async (each) => {
          const mined = await outcomeOf(each, events, options.signal);
          if (mined) found(mined);
        }),
      );
    } finally {
      // BullMQ leaves connections it was given open: they would keep this process from ending.
      await Promise.all([events.close(), queue.close()]).catch(() => {});
      redis.disconnect();
      listening.disconnect();
    }
  };
}

export interface HistoryWorker {
  /** Takes no more commits and waits for those being mined. */
  finish(): Promise<void>;
}

/** `cairn worker`'s side of mining: takes commits from the queue and mines each as `cairn eval history` would here. */
export async function startHistoryWorker(options: {
  url: string;
  concurrency: number;
  cacheDir: string;
  notice: (message: string) => void;
}): Promise<HistoryWorker> {
  const watch = new ConnectionWatch(options.url, options.notice);
  const root = await scratchRoot("history");
  const redis = connect(options.url, watch);
  const worker = new Worker<MiningJob, MinedCommit>(
    HISTORY_QUEUE,
    async ({ data }) => {
      const place = {
        repo: data.repo,
        ...(data.checkout ? { checkout: data.checkout } : {}),
        root,
        cacheDir: options.cacheDir,
      };
      const mined = await mineCommit(data.commit, data.settings, place);
      const what = mined.status === "instance" ? "an instance" : `left out: ${REASON_TEXT[mined.reason]}`;
      options.notice(`mined ${mined.sha.slice(0, 10)} of ${data.repo}: ${what}`);
      return mined;
    },
    { connection: redis, concurrency: options.concurrency },
  );
  worker.on("error", (error) => watch.lost(error));
  await worker.waitUntilReady();
  return {
    async finish() {
      // Redis away: the commits being mined stay on the queue, for a worker that can hand them back.
      await closeWorker(worker, watch);
      redis.disconnect();
      await rm(root, { recursive: true, force: true });
    },
  };
}
