import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, modelFlags, ownSleep, runCairn } from "../helpers/cli.js";
import { endQueueTest, gitRepo, sessionsOf, startWorker, writeTasks } from "../helpers/queue.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { byTask, readResults, writes } from "../helpers/tasks.js";
import { fileTimeouts } from "../helpers/timeScale.js";
import { alive, processesWith, until } from "../helpers/wait.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(90_000);

let server: ScriptedServer | undefined;
let redis: TestRedis | undefined;
afterEach(async () => {
  await endQueueTest(server, redis);
  server = undefined;
  redis = undefined;
});

/** A task whose first try runs a long command (`sleep`), and whose later tries write its file. */
function sleepsFirst(id: string, sleep: string): (turn: number) => ScriptedTurn {
  let tries = 0;
  return (turn) => {
    if (turn === 0) tries++;
    if (tries > 1) return writes(`${id}.txt`, `${id}\n`)(turn);
    return turn === 0
      ? { toolCalls: [{ name: "run_command", args: { command: sleep, timeout_ms: 600_000 } }] }
      : { text: "Slept." };
  };
}

/** A one-task batch on a queue of its own, the task's first try running `sleep <seconds>`. */
async function enqueueSleeper(id: string, seconds: number) {
  // This test's own: another copy of the suite on the machine runs the same test.
  const sleep = ownSleep(seconds).join(" ");
  redis = await startRedis();
  server = await startScriptedServer(byTask({ [`[${id}]`]: sleepsFirst(id, sleep) }));
  const home = await makeHome();
  const tasks = await writeTasks(home, await gitRepo(), [id]);
  const out = path.join(home, "out");
  const { args, env } = modelFlags("openai", server);
  const enqueue = await runCairn(
    ["batch", tasks, "--queue", redis.url, "--out", out, "--output-format", "json", ...args],
    { home },
  );
  expect(enqueue.code, enqueue.stderr).toBe(0);
  return { home, out, env, sleep, batchId: JSON.parse(enqueue.stdout).batch_id as string };
}

describe("a worker's tasks end with it", () => {
  it("SIGKILL of a worker ends its task's cairn and the command it runs: nothing is left running", async () => {
    const { home, env, sleep } = await enqueueSleeper("s1", 613);
    const worker = startWorker(redis!.url, home, env, "wa");
    const started = await until("s1 to start", () =>
      worker.events.find((e) => e.type === "task.started" && e.id === "s1"),
    );
    const task = started.pid as number;
    await until("s1's command to run", () => processesWith(sleep).length > 0 || undefined);

    worker.child.kill("SIGKILL");
    await worker.exited;
    await until("s1's cairn and its command to end", () =>
      !alive(task) && processesWith(sleep).length === 0 ? true : undefined,
    );
    // It ended as Ctrl-C ends a session (cancelled), or, on a machine too busy to do that within
    // its grace, exited with its session left as it was (stored as running, shown as interrupted).
    const [session, ...others] = sessionsOf(home, "[s1]");
    expect(others).toEqual([]);
    expect(["cancelled", "running"]).toContain(session?.status);
  });

  it("a worker that loses a task's lock stops it before another worker could start it, which then runs it once", async () => {
    const { home, out, env, sleep, batchId } = await enqueueSleeper("l1", 614);
    const a = startWorker(redis!.url, home, env, "wa");
    const started = await until("l1 to start", () =>
      a.events.find((e) => e.type === "task.started" && e.id === "l1"),
    );
    await until("l1's command to run", () => processesWith(sleep).length > 0 || undefined);

    // Redis goes away: the worker can no longer renew the task's lock (2 s).
    await redis!.pause();
    await until("the first try to be stopped while Redis is still away", () =>
      !alive(started.pid as number) && processesWith(sleep).length === 0 ? true : undefined,
    );
    expect(a.events.map((e) => e.message)).toContainEqual(
      expect.stringMatching(/^l1 lost its lock on the queue .* this try is stopped and its record not kept/),
    );
    await redis!.resume();

    const b = startWorker(redis!.url, home, env, "wb");
    const status = await runCairn(
      ["batch", "status", batchId, "--queue", redis!.url, "--output-format", "json"],
      { home, timeoutMs: 60_000 },
    );
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ tasks: 1, completed: 1 });
    const records = await readResults(out);
    // The stopped try counts: whichever worker saw the lapsed lock first, the one that finished
    // it was the second.
    expect(records).toMatchObject([{ id: "l1", status: "completed", attempt: 2 }]);
    // Two tries, one after the other: the first cancelled, the second done.
    expect(
      sessionsOf(home, "[l1]")
        .map((session) => session.status)
        .sort(),
    ).toEqual(["cancelled", "completed"]);
    for (const w of [a, b]) w.child.kill("SIGINT");
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
  });
});
