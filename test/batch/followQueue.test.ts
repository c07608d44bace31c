import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, modelFlags, runCairn, spawnCairn } from "../helpers/cli.js";
import { endQueueTest, gitRepo, killLater, startWorker, writeTasks } from "../helpers/queue.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { byTask, readResults, writes } from "../helpers/tasks.js";
import { fileTimeouts } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(90_000);

let server: ScriptedServer | undefined;
let redis: TestRedis | undefined;
afterEach(async () => {
  await endQueueTest(server, redis);
  server = undefined;
  redis = undefined;
});

describe("following a batch on the queue", () => {
  it("says within seconds that no worker takes its tasks, says a Redis outage in one line, and waits on", async () => {
    redis = await startRedis();
    server = await startScriptedServer(byTask({ "[w1]": writes("w1.txt", "w1\n") }));
    const home = await makeHome();
    const tasks = await writeTasks(home, await gitRepo(), ["w1"]);
    const { args, env } = modelFlags("openai", server);
    const follower = spawnCairn(["batch", tasks, "--queue", redis.url, "--wait", ...args], { home });
    killLater(follower);
    let out = "";
    let err = "";
    follower.stdout.on("data", (chunk) => {
      out += chunk;
    });
    follower.stderr.on("data", (chunk) => {
      err += chunk;
    });
    const exited = new Promise<number | null>((resolve) => follower.on("exit", resolve));

    await until("the follower to say no worker runs the tasks", () =>
      /no worker is taking tasks from redis:\/\/127\.0\.0\.1:\d+\/?: start one with `cairn worker --queue/.test(
        out,
      )
        ? true
        : undefined,
    );
    await redis.pause();
    await until("the follower to say Redis is away", () =>
      /cannot reach Redis at .*; retrying with backoff .*the tasks go on on their workers\./.test(out)
        ? true
        : undefined,
    );
    // Away long enough for several attempts to reconnect, each of which used to print a trace.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await redis.resume();
    const worker = startWorker(redis.url, home, env, "wa");
    expect(await exited).toBe(0);
    expect(out).toContain("1/1 completed");
    expect(out.match(/cannot reach Redis/g)).toHaveLength(1);
    expect(out.match(/no worker is taking tasks/g)).toHaveLength(1);
    expect(err).not.toMatch(/^\s+at /m);
    expect(err).not.toContain("ECONNREFUSED");
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(0);
  });

  it("counts what a try that broke spent toward the batch's cost and its --max-cost", async () => {
    redis = await startRedis();
    // c1's first try makes one costly call (100k tokens in and 10 out of gpt-4o, $0.2501) and its cairn then dies.
    let tries = 0;
    const costly = (turn: number): ScriptedTurn => {
      if (turn === 0) tries++;
      if (tries > 1) return writes("c1.txt", "c1\n")(turn);
      return turn === 0
        ? {
            toolCalls: [{ name: "write_file", args: { path: "draft.txt", content: "draft\n" } }],
            usage: { input: 100_000, output: 10 },
          }
        : { hang: true };
    };
    server = await startScriptedServer(byTask({ "[c1]": costly, "[c2]": writes("c2.txt", "c2\n") }));
    const home = await makeHome();
    const tasks = await writeTasks(home, await gitRepo(), ["c1", "c2"]);
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    const enqueue = await runCairn(
      [
        "batch",
        tasks,
        "--queue",
        redis.url,
        "--attempts",
        "2",
        "--max-cost",
        "0.255",
        "--out",
        out,
        "--output-format",
        "json",
        ...args,
      ],
      { home },
    );
    expect(enqueue.code, enqueue.stderr).toBe(0);
    const { batch_id: batchId } = JSON.parse(enqueue.stdout);
    // One task at a time, c1 first (the queue keeps the file's order).
    const worker = startWorker(redis.url, home, env, "wa");
    const first = await until("c1's first try to start", () =>
      worker.events.find((e) => e.type === "task.started" && e.id === "c1"),
    );
    await until("c1's first try to wait on its second model call", () =>
      server!.requests.filter((r) => r.rawBody.includes("[c1]")).length === 2 ? true : undefined,
    );
    // Its cairn dies (an OOM kill, say): the try broke, and is tried again.
    process.kill(-(first.pid as number), "SIGKILL");

    const status = await runCairn(
      ["batch", "status", batchId, "--queue", redis.url, "--output-format", "json"],
      {
        home,
        timeoutMs: 60_000,
      },
    );
    expect(status.code).toBe(1);
    const summary = JSON.parse(status.stdout) as { cost_usd: number; completed: number; not_started: number };
    // After the broken try's $0.25 the batch was under its --max-cost of $0.255, so one more
    // task ran (c2, or c1 again: the queue decides the order); after that one's few thousandths
    // it was past it, so the other never started. Counting only finished tries, both would run.
    expect(summary).toMatchObject({ completed: 1, not_started: 1 });
    const [record, ...more] = await readResults(out);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ status: "completed" });
    // The batch's dollars are every try's: the broken one's with the one that finished.
    expect(summary.cost_usd).toBeCloseTo(0.2501 + (record?.cost_usd ?? 0), 6);
    if (record?.id === "c1") expect(record.earlier_tries_cost_usd).toBeCloseTo(0.2501, 6);
    const written = JSON.parse(await readFile(path.join(out, "summary.json"), "utf8"));
    expect(written.cost_usd).toBeCloseTo(summary.cost_usd, 6);
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(0);
  });
});
