import { writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { makeHome, makeRepo, modelFlags, runCairn, spawnCairn } from "../test/helpers/cli.js";
import { startRedis } from "../test/helpers/redis.js";
import { byTask, writes } from "../test/helpers/tasks.js";
import { startScriptedServer } from "../test/support/scriptedServer.js";
import type { BenchResult } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";

export interface QueueOptions {
  tasks: number;
  /** Tasks at once: --jobs for the local batch, --concurrency for the one worker. */
  jobs: number;
}

/**
 * The queue's cost per task: the same tasks (each a `cairn do` that writes one file, against a
 * model that answers at once, so that cairn and the queue are all there is to time) run by a
 * local `cairn batch --jobs N`, then through Redis by `cairn batch --queue --wait` with one
 * `cairn worker --concurrency N` already waiting. Both from the command's start to its exit.
 */
export async function benchQueue(options: QueueOptions): Promise<BenchResult> {
  const started = nowMs();
  const ids = Array.from({ length: options.tasks }, (_, i) => `t${i + 1}`);
  const server = await startScriptedServer(
    byTask(Object.fromEntries(ids.map((id) => [`[${id}]`, writes(`${id}.txt`, `${id}\n`)]))),
  );
  const redis = await startRedis();
  const repo = await makeRepo({ "README.md": "queue benchmark\n" });
  const home = await makeHome();
  const worker = { child: undefined as ReturnType<typeof spawnCairn> | undefined };
  try {
    const tasks = path.join(home, "tasks.jsonl");
    writeFileSync(
      tasks,
      ids.map((id) => JSON.stringify({ id, repo, task: `Write ${id}.txt [${id}]`, mode: "do" })).join("\n"),
    );
    const { args, env } = modelFlags("openai", server);
    const timed = async (label: string, extra: string[]) => {
      const begun = nowMs();
      const run = await runCairn(
        ["batch", tasks, "--out", path.join(home, label), "--output-format", "json", ...args, ...extra],
        {
          home,
          env,
          timeoutMs: 600_000,
        },
      );
      const wall = nowMs() - begun;
      const summary = JSON.parse(run.stdout || "{}");
      // Each task's change made, unchecked (no verify, as the sessions benchmarked elsewhere): exit 3.
      if (run.code !== 3 || summary.unverified !== options.tasks) {
        throw new Error(`the ${label} batch did not complete every task (exit ${run.code}): ${run.stderr}`);
      }
      return wall;
    };

    const local = await timed("local", ["--jobs", String(options.jobs)]);

    worker.child = spawnCairn(
      [
        "worker",
        "--queue",
        redis.url,
        "--concurrency",
        String(options.jobs),
        "--output-format",
        "stream-json",
      ],
      { home, env },
    );
    await new Promise<void>((resolve, reject) => {
      worker.child!.stdout.on("data", (chunk) => String(chunk).includes("takes tasks from") && resolve());
      worker.child!.once("exit", (code) =>
        reject(new Error(`the worker exited with ${code} before taking tasks`)),
      );
    });
    const queued = await timed("queued", ["--queue", redis.url, "--wait"]);

    const perTask = (wall: number) => wall / options.tasks;
    return {
      id: "queue",
      title: "batch through the Redis queue",
      figures: [
        {
          name: `wall time per task through the queue (${options.tasks} tasks, ${options.jobs} at a time)`,
          value: perTask(queued),
          unit: "ms",
          baseline: { name: "local cairn batch, same tasks", value: perTask(local) },
        },
        {
          name: "queue overhead per task",
          value: perTask(queued - local),
          unit: "ms",
        },
      ],
      details: { tasks: options.tasks, jobs: options.jobs, local_wall_ms: local, queued_wall_ms: queued },
      durationMs: nowMs() - started,
    };
  } finally {
    const child = worker.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGINT");
      await exited;
    }
    await server.close();
    await redis.stop();
    await rm(repo, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}
