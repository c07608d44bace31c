import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/report.js";
import { loadSuite } from "../../src/eval/suite.js";
import type { ExerciseTask } from "../../src/eval/types.js";
import { jsonLines, makeHome, makeRepo, modelFlags, runCairn, spawnCairn } from "../helpers/cli.js";
import {
  copiedBy,
  doTaskWriting,
  type Events,
  endQueueTest,
  gitRepo,
  killLater,
  sessionsOf,
  startWorker as startQueueWorker,
  writeTasks,
} from "../helpers/queue.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { byTask, declines, readResults, writes } from "../helpers/tasks.js";
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

/** A worker on the test's queue. */
const startWorker = (home: string, env: Record<string, string>, name: string, extra: string[] = []) =>
  startQueueWorker(redis!.url, home, env, name, extra);

/** Every value stored in Redis, as text: what a secret would have to be in to travel. */
async function everythingIn(url: string): Promise<string> {
  const client = new Redis(url);
  try {
    const values: string[] = [];
    for (const key of await client.keys("*")) {
      const type = await client.type(key);
      if (type === "string") values.push((await client.get(key)) ?? "");
      else if (type === "hash") values.push(JSON.stringify(await client.hgetall(key)));
      else if (type === "list") values.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === "set") values.push(JSON.stringify(await client.smembers(key)));
      else if (type === "zset") values.push(JSON.stringify(await client.zrange(key, "0", "-1")));
      else if (type === "stream") values.push(JSON.stringify(await client.xrange(key, "-", "+")));
      values.push(key);
    }
    return values.join("\n");
  } finally {
    client.disconnect();
  }
}

/** How often BullMQ's own event stream says a job completed: once per stored record. */
async function completions(url: string, batchId: string): Promise<Map<string, number>> {
  const client = new Redis(url);
  try {
    const counts = new Map<string, number>();
    for (const [, fields] of await client.xrange("bull:cairn-tasks:events", "-", "+")) {
      const event = Object.fromEntries(
        fields.flatMap((field, i) => (i % 2 === 0 ? [[field, fields[i + 1]]] : [])),
      ) as Record<string, string>;
      if (event.event === "completed" && event.jobId?.startsWith(batchId))
        counts.set(event.jobId, (counts.get(event.jobId) ?? 0) + 1);
    }
    return counts;
  } finally {
    client.disconnect();
  }
}

/**
 * One task put on a new queue with `--attempts 2`, against a model that never answers it: each
 * try is under way until something stops it.
 */
async function enqueueHanging(id: string) {
  redis = await startRedis();
  server = await startScriptedServer(byTask({ [`[${id}]`]: () => ({ hang: true }) }));
  const home = await makeHome();
  const repo = await gitRepo();
  const tasks = await writeTasks(home, repo, [id]);
  const out = path.join(home, "out");
  const { args, env } = modelFlags("openai", server);
  const batch = ["batch", tasks, "--queue", redis.url, "--attempts", "2", "--out", out];
  const enqueue = await runCairn([...batch, "--output-format", "json", ...args], { home });
  expect(enqueue.code, enqueue.stderr).toBe(0);
  return { home, out, env, queue: redis.url, batchId: JSON.parse(enqueue.stdout).batch_id as string };
}

/** A task that hangs on its first model call, and is done properly when tried again. */
function hangsFirst(file: string): (turn: number) => ScriptedTurn {
  let tries = 0;
  return (turn) => {
    if (turn === 0) tries++;
    return tries === 1 ? { hang: true } : writes(file, "done\n")(turn);
  };
}

describe("cairn batch on a queue, with cairn worker", () => {
  it("loses nothing when a worker is SIGKILLed mid-task: another finishes it, every result arrives once, no secret travels", async () => {
    redis = await startRedis();
    const ids = ["q1", "q2", "q3", "q4", "q5", "q6"];
    server = await startScriptedServer(
      byTask(
        Object.fromEntries(
          ids.map((id) => [`[${id}]`, id === "q3" ? hangsFirst("q3.txt") : writes(`${id}.txt`, `${id}\n`)]),
        ),
      ),
    );
    const repo = await gitRepo();
    const home = await makeHome();
    const tasks = await writeTasks(home, repo, ids);
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    const secret = "sk-test-SECRETabcdefghijklmnopqrstuvwxyz";
    // The batch is enqueued without any key: workers use their own.
    const enqueue = await runCairn(
      ["batch", tasks, "--queue", redis.url, "--out", out, "--output-format", "json", ...args],
      { home },
    );
    expect(enqueue.code, enqueue.stderr).toBe(0);
    const { batch_id: batchId, enqueued } = JSON.parse(enqueue.stdout);
    expect(enqueued).toBe(6);
    const workerEnv = { ...env, OPENAI_API_KEY: secret };
    const a = startWorker(home, workerEnv, "wa");
    const b = startWorker(home, workerEnv, "wb");
    // Mid-task: its cairn has asked the model, which does not answer.
    await until("q3 to ask the model", () => server!.requests.some((r) => r.rawBody.includes("[q3]")));
    const started = await until("q3's worker", () =>
      [a, b]
        .map((w) => ({ w, event: w.events.find((e) => e.type === "task.started" && e.id === "q3") }))
        .find((x) => x.event),
    );
    // The machine goes down: the worker and the cairn it started, at once (the cairn frozen
    // first, so that it cannot see its worker go and end its session itself).
    const task = started.event!.pid as number;
    process.kill(-task, "SIGSTOP");
    started.w.child.kill("SIGKILL");
    process.kill(-task, "SIGKILL");
    const survivor = started.w === a ? b : a;
    const survivorName = survivor === a ? "wa" : "wb";

    const status = await runCairn(
      ["batch", "status", batchId, "--queue", redis.url, "--output-format", "stream-json"],
      {
        home,
        timeoutMs: 60_000,
      },
    );
    expect(status.code, status.stderr).toBe(0);
    expect(jsonLines(status.stdout).find((e) => e.type === "result")).toMatchObject({
      tasks: 6,
      completed: 6,
    });

    const results = await readResults(out);
    expect(results.map((r) => r.id).sort()).toEqual(ids);
    const q3 = results.find((r) => r.id === "q3");
    expect(q3).toMatchObject({ status: "completed", worker: survivorName, attempt: 2 });
    expect(q3?.patch).toContain("+++ b/q3.txt");
    // The survivor said it finished q3, once; the killed worker never did. Counted where they said
    // it, and in the sessions stored, before the results folder and the follower de-duplicate.
    const finishedQ3 = (w: typeof a) =>
      w.events.filter((e) => e.type === "task.finished" && (e.record as { id: string }).id === "q3").length;
    expect(finishedQ3(survivor)).toBe(1);
    expect(finishedQ3(started.w)).toBe(0);
    const q3Sessions = sessionsOf(home, "[q3]");
    expect(q3Sessions).toHaveLength(2);
    expect(q3Sessions.filter(copiedBy(started.w.child.pid))).toEqual([
      expect.objectContaining({ finished: 0 }),
    ]);
    expect(q3Sessions.filter(copiedBy(survivor.child.pid))).toEqual([
      expect.objectContaining({ finished: 1 }),
    ]);
    // Every task ran to its end once, and its job completed once.
    for (const id of ids.filter((id) => id !== "q3")) {
      expect(sessionsOf(home, `[${id}]`).map((session) => session.finished)).toEqual([1]);
    }
    const completed = await completions(redis.url, batchId);
    expect([...completed.values()]).toEqual(ids.map(() => 1));

    const stored = await everythingIn(redis.url);
    expect(stored).toContain("Write q3.txt");
    expect(stored).not.toContain("SECRETabcdef");
    expect(stored).not.toContain("OPENAI_API_KEY");

    survivor.child.kill("SIGINT");
    expect(await survivor.exited).toBe(0);
  });

  it("reports a lost Redis and carries on when it is back; Ctrl-C twice hands a running task back to the queue", async () => {
    redis = await startRedis();
    server = await startScriptedServer(byTask({ "[h1]": hangsFirst("h1.txt") }));
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    const tasks = path.join(home, "tasks.jsonl");
    await writeFile(tasks, JSON.stringify(doTaskWriting(repo, "h1")));
    const { args, env } = modelFlags("openai", server);

    const a = startWorker(home, env, "wa");
    await until("the worker to start", () => a.events.find((e) => e.type === "batch.notice"));
    await redis.pause();
    await until("the worker to say Redis is lost", () =>
      a.events.find(
        (e) =>
          e.type === "batch.notice" && /cannot reach Redis .* retrying with backoff/.test(String(e.message)),
      ),
    );
    await redis.resume();
    // Its next try to reconnect is at most 10 s (the longest backoff) after Redis is back.
    await until(
      "the worker to say Redis is back",
      () => a.events.find((e) => e.type === "batch.notice" && /reachable again/.test(String(e.message))),
      30_000,
    );

    const enqueue = await runCairn(
      ["batch", tasks, "--queue", redis.url, "--output-format", "json", ...args],
      { home },
    );
    const { batch_id: batchId } = JSON.parse(enqueue.stdout);
    await until("h1 to ask the model", () => server!.requests.some((r) => r.rawBody.includes("[h1]")));
    a.child.kill("SIGINT");
    await until("the worker to say it is stopping", () =>
      a.events.find((e) => e.type === "batch.notice" && /no more tasks/.test(String(e.message))),
    );
    a.child.kill("SIGINT");
    expect(await a.exited).toBe(0);
    // Handed back once, and not taken again by the stopping worker.
    expect(a.events.filter((e) => e.type === "task.started").map((e) => e.id)).toEqual(["h1"]);
    expect(a.events.filter((e) => e.type === "task.requeued")).toEqual([
      expect.objectContaining({ id: "h1" }),
    ]);

    const b = startWorker(home, env, "wb");
    const status = await runCairn(
      ["batch", "status", batchId, "--queue", redis.url, "--output-format", "json"],
      {
        home,
        timeoutMs: 60_000,
      },
    );
    expect(status.code, status.stderr).toBe(0);
    const results = await readResults(path.join(home, "tasks.results"));
    // Handed back, not failed: the try does not count against --attempts.
    expect(results).toMatchObject([{ id: "h1", status: "completed", worker: "wb", attempt: 1 }]);
    b.child.kill("SIGINT");
    expect(await b.exited).toBe(0);
  });

  it("marks a task done only once its record is stored: one that finished while Redis was away is recorded once, when it is back", async () => {
    redis = await startRedis();
    // The first try's model takes a moment to answer: Redis goes away meanwhile, and the try
    // ends before the worker would take its lock as lost and stop it.
    let tries = 0;
    server = await startScriptedServer(
      byTask({
        "[r1]": (turn) => {
          if (turn === 0) tries++;
          const done = writes("r1.txt", "r1\n")(turn);
          return tries === 1 && turn === 0 ? { ...done, delayMs: 300 } : done;
        },
      }),
    );
    const home = await makeHome();
    const repo = await gitRepo();
    const tasks = path.join(home, "tasks.jsonl");
    await writeFile(tasks, JSON.stringify(doTaskWriting(repo, "r1")));
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    const w = startWorker(home, env, "wa");
    const follower = spawnCairn(
      [
        "batch",
        tasks,
        "--queue",
        redis.url,
        "--wait",
        "--out",
        out,
        "--output-format",
        "stream-json",
        ...args,
      ],
      { home },
    );
    let followed = "";
    follower.stdout.on("data", (chunk) => {
      followed += chunk;
    });
    const followerExited = new Promise<number | null>((resolve) => follower.on("exit", resolve));
    killLater(follower);
    await until("r1 to ask the model", () => server!.requests.some((r) => r.rawBody.includes("[r1]")));
    await redis.pause();
    // The task ends while Redis is away (or, on a machine too busy for it to end first, is stopped
    // as its lock is lost), and Redis stays away past the worker's lock (2 s).
    await until("r1's first try to end", () =>
      sessionsOf(home, "[r1]").some((session) => session.finished) ||
      w.events.some((e) => /^r1 lost its lock/.test(String(e.message)))
        ? true
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(followed).not.toContain('"task.finished"');
    await redis.resume();

    expect(await followerExited).toBe(0);
    const events = jsonLines(followed);
    const finished = events.filter((e) => e.type === "task.finished") as unknown as Array<{
      record: unknown;
      batch_id: string;
    }>;
    expect(finished).toHaveLength(1);
    expect(events.find((e) => e.type === "result")).toMatchObject({ tasks: 1, completed: 1 });
    const records = await readResults(out);
    expect(records).toMatchObject([{ id: "r1", status: "completed", worker: "wa" }]);
    expect(records[0]?.patch).toContain("+++ b/r1.txt");
    expect(records[0]).toEqual(finished[0]?.record);
    // Its first try ended while Redis was away and, its lock gone, was run again: two sessions,
    // one record, one completion in BullMQ.
    expect(records[0]?.attempt).toBe(2);
    const sessions = sessionsOf(home, "[r1]");
    expect(sessions).toHaveLength(2);
    // The second ran to its end; the first did too, or was stopped as its lock was lost.
    expect(sessions.map((session) => session.status)).toContain("completed");
    expect([...(await completions(redis.url, String(finished[0]?.batch_id))).values()]).toEqual([1]);
    // The worker says so: Redis lost, then back, then the task's lost lock (not Redis lost
    // again); and it finished r1 once, the try whose record was stored.
    const notices = w.events.filter((e) => e.type === "batch.notice").map((e) => String(e.message));
    const back = notices.findIndex((m) => /reachable again/.test(m));
    expect(notices.findIndex((m) => /cannot reach Redis/.test(m))).toBeGreaterThan(0);
    expect(back).toBeGreaterThan(0);
    expect(notices.slice(back + 1).filter((m) => /cannot reach Redis/.test(m))).toEqual([]);
    expect(notices.filter((m) => /lost its lock/.test(m))).toEqual([
      expect.stringMatching(/^r1 lost its lock on the queue .* the task is run again\.$/),
    ]);
    expect(
      w.events
        .filter((e) => e.type === "task.finished")
        .map((e) => (e.record as { attempt: number }).attempt),
    ).toEqual([2]);
    w.child.kill("SIGINT");
    expect(await w.exited).toBe(0);
  });

  it("gives up enqueuing to a Redis that does not answer: one clear message, no stack trace, exit 1, nothing queued", async () => {
    redis = await startRedis();
    await redis.pause();
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    const tasks = path.join(home, "tasks.jsonl");
    await writeFile(tasks, JSON.stringify({ id: "u1", repo, task: "Write u1.txt", mode: "do" }));
    // Bounded: about ten seconds of trying again, then it says so (runCairn kills a run that hangs).
    const enqueue = await runCairn(["batch", tasks, "--queue", redis.url, "--model", "openai/gpt-4o"], {
      home,
      timeoutMs: 45_000,
    });
    expect(enqueue.code, enqueue.stderr).toBe(1);
    expect(enqueue.stderr).not.toMatch(/^\s+at /m);
    expect(enqueue.stderr).not.toContain("Error: connect");
    expect(enqueue.stderr).not.toContain("Tasks running here go on");
    expect(enqueue.stderr).toContain(`cannot reach Redis at ${redis.url}`);
    expect(enqueue.stderr).toMatch(/nothing was queued\. Start Redis there, or give --queue the URL of one/);
    expect(enqueue.stdout).not.toMatch(/b\d{8}-/);
  });

  it("runs its tasks with its own --approval, whatever the batch said", async () => {
    redis = await startRedis();
    server = await startScriptedServer(byTask({ "[r1]": writes("r1.txt", "r1\n") }));
    const home = await makeHome();
    const repo = await gitRepo();
    const tasks = await writeTasks(home, repo, ["r1"]);
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    const worker = startWorker(home, env, "wa", ["--approval", "read-only"]);
    const run = await runCairn(
      ["batch", tasks, "--queue", redis.url, "--approval", "auto", "--wait", "--out", out, ...args],
      { home, timeoutMs: 45_000 },
    );
    expect(run.stderr).not.toContain("unknown option");
    const [record] = await readResults(out);
    expect(record).toMatchObject({ id: "r1", worker: "wa", files_changed: [] });
    expect(server.requests.some((r) => r.rawBody.includes("cairn is in read-only mode"))).toBe(true);
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(0);
  });

  it("stops at SIGTERM while its Redis is away", async () => {
    redis = await startRedis();
    const home = await makeHome();
    const worker = startWorker(home, {}, "wa");
    await until("the worker to start", () => worker.events.find((e) => e.type === "batch.notice"));
    await redis.pause();
    await until("the worker to say Redis is lost", () =>
      worker.events.find((e) => e.type === "batch.notice" && /cannot reach Redis/.test(String(e.message))),
    );
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });

  it("stopped while it starts, its Redis away, stops once Redis is there, leaving nothing behind; a second stop quits at once", async () => {
    redis = await startRedis();
    await redis.pause();
    const home = await makeHome();
    const lost = (e: Events[number]) =>
      e.type === "batch.notice" && /cannot reach Redis/.test(String(e.message));
    const waiting = startWorker(home, {}, "wa");
    await until("the worker to say Redis is away", () => waiting.events.find(lost));
    waiting.child.kill("SIGINT");
    await redis.resume();
    expect(await waiting.exited).toBe(0);
    expect(waiting.events.map((e) => e.message)).toContainEqual(
      expect.stringMatching(/^stopping: no more tasks/),
    );

    await redis.pause();
    const impatient = startWorker(home, {}, "wb");
    await until("the worker to say Redis is away", () => impatient.events.find(lost));
    // Two different signals: two of one kind sent at once may reach it as one. Which of the two
    // it hears second, and so exits with, is the kernel's and libuv's order.
    impatient.child.kill("SIGINT");
    impatient.child.kill("SIGTERM");
    expect([130, 143]).toContain(await impatient.exited);
  });

  it("stops starting a queued batch's tasks once its --max-cost is spent, and says so in the summary", async () => {
    redis = await startRedis();
    const ids = ["m1", "m2", "m3"];
    server = await startScriptedServer(
      byTask(Object.fromEntries(ids.map((id) => [`[${id}]`, writes(`${id}.txt`, `${id}\n`)]))),
    );
    const home = await makeHome();
    const repo = await gitRepo();
    const tasks = await writeTasks(home, repo, ids);
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    // One task at a time: the first one's dollars (about $0.006) are more than the batch may spend.
    const worker = startWorker(home, env, "wa");
    const run = await runCairn(
      ["batch", tasks, "--queue", redis.url, "--wait", "--max-cost", "0.001", "--out", out, ...args],
      { home, timeoutMs: 45_000 },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/! --max-cost \$0\.001 reached \(\$0\.01 spent\): 2 task\(s\) not started\./);
    expect(run.stdout).toContain("1/1 completed (100%)");
    expect(run.stdout).toContain("2 not started (--max-cost reached)");
    const summary = JSON.parse(await readFile(path.join(out, "summary.json"), "utf8"));
    expect(summary).toMatchObject({ tasks: 1, completed: 1, not_started: 2, pending: 0 });
    expect(await readFile(path.join(out, "summary.md"), "utf8")).toContain(
      "2 not started (--max-cost reached)",
    );
    expect((await readResults(out)).map((r) => r.id)).toEqual(["m1"]);
    // Not started: no session, not a word to the model, no record from the worker.
    for (const id of ["m2", "m3"]) {
      expect(server.requests.some((r) => r.rawBody.includes(`[${id}]`))).toBe(false);
      expect(sessionsOf(home, `[${id}]`)).toEqual([]);
    }
    expect(worker.events.filter((e) => e.type === "task.started").map((e) => e.id)).toEqual(["m1"]);
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(0);
  });

  it("gives a task up after --attempts tries whose worker died each time, with a record that says why", async () => {
    // The model never answers: each try is under way when its worker dies.
    const { home, out, env, queue, batchId } = await enqueueHanging("k1");
    const asked = () => server!.requests.filter((r) => r.rawBody.includes("[k1]")).length;
    for (const [try_, name] of [
      [1, "wa"],
      [2, "wb"],
    ] as const) {
      const w = startWorker(home, env, name);
      const started = await until(`try ${try_} to start`, () =>
        w.events.find((e) => e.type === "task.started" && e.id === "k1"),
      );
      expect(started).toMatchObject({ attempt: try_, worker: name });
      await until(`try ${try_} to ask the model`, () => asked() === try_);
      // The machine goes down. The cairn is frozen first, so that it cannot see its worker go and
      // end its session itself; then the worker, so that it cannot see its cairn die and record a
      // broken try instead.
      process.kill(-(started.pid as number), "SIGSTOP");
      w.child.kill("SIGKILL");
      await w.exited;
      process.kill(-(started.pid as number), "SIGKILL");
    }
    const last = startWorker(home, env, "wc");
    const status = await runCairn(["batch", "status", batchId, "--queue", queue, "--output-format", "json"], {
      home,
      timeoutMs: 45_000,
    });
    expect(status.code, status.stderr).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({ tasks: 1, completed: 0 });
    const [record, ...more] = await readResults(out);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ id: "k1", status: "failed", attempt: 2 });
    expect(record?.error).toMatch(
      /^gave up after 2 tries: tried 2 time\(s\) \(the limit of --attempts 2\); each time the worker running it stopped/,
    );
    // No third try: the last worker gave it up without starting it.
    expect(last.events.some((e) => e.type === "task.started")).toBe(false);
    expect(asked()).toBe(2);
    expect(sessionsOf(home, "[k1]").map((session) => session.finished)).toEqual([0, 0]);
    last.child.kill("SIGINT");
    expect(await last.exited).toBe(0);
  });

  it("tries again a task whose cairn dies without a result, and after --attempts tries records that it gave up and why", async () => {
    const { home, out, env, queue, batchId } = await enqueueHanging("d1");
    const w = startWorker(home, env, "wa");
    // Each try's cairn is killed mid-task (an OOM kill, say); the worker lives on.
    for (const try_ of [1, 2]) {
      const started = await until(`try ${try_} to start`, () =>
        w.events.find((e) => e.type === "task.started" && e.id === "d1" && e.attempt === try_),
      );
      await until(`try ${try_} to ask the model`, () =>
        server!.requests.filter((r) => r.rawBody.includes("[d1]")).length === try_ ? true : undefined,
      );
      process.kill(-(started.pid as number), "SIGKILL");
    }
    const status = await runCairn(["batch", "status", batchId, "--queue", queue, "--output-format", "json"], {
      home,
      timeoutMs: 30_000,
    });
    expect(status.code, status.stderr).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({ tasks: 1, completed: 0 });
    const records = await readResults(out);
    expect(records).toMatchObject([{ id: "d1", status: "failed", attempt: 2, worker: "wa" }]);
    expect(records[0]?.error).toMatch(
      /^gave up after 2 tries \(the limit of --attempts 2\); the last: cairn ended without a result \(exit by signal\)/,
    );
    // The worker said it finished d1 once, after its last try; the broken first try was not a finish.
    expect(w.events.filter((e) => e.type === "task.finished")).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(w.events.filter((e) => e.type === "task.started")).toHaveLength(2);
    w.child.kill("SIGINT");
    expect(await w.exited).toBe(0);
  });

  it("cairn eval --queue --wait: the workers run the suite's tasks, and the eval grades them and writes its report", async () => {
    redis = await startRedis();
    const suite = await loadSuite("builtin", ["javascript/median", "python/leap"]);
    const tasks = suite.tasks as ExerciseTask[];
    expect(tasks.map((t) => t.id).sort()).toEqual(["javascript/median", "python/leap"]);
    const median = tasks.find((t) => t.id === "javascript/median")!;
    const example = await readFile(
      path.join(median.dir, ".meta", `example${path.extname(median.solution[0]!)}`),
      "utf8",
    );
    // The median task is solved with its reference solution; leap is declined.
    const marker = (t: ExerciseTask) => `Do this in \`${t.solution[0]}\``;
    server = await startScriptedServer(
      byTask(
        Object.fromEntries(
          tasks.map((t) => [marker(t), t === median ? writes(t.solution[0]!, example) : declines]),
        ),
      ),
    );
    const home = await makeHome();
    const out = path.join(home, "eval-q");
    const { args, env } = modelFlags("openai", server);
    const w = startWorker(home, env, "wa");
    // The eval itself has no key: the worker's is the one used.
    const run = await runCairn(
      [
        "eval",
        "builtin",
        "--tasks",
        "javascript/median,python/leap",
        "--queue",
        redis.url,
        "--wait",
        "--mode",
        "do",
        "--out",
        out,
        "--output-format",
        "json",
        ...args,
      ],
      { home, timeoutMs: 75_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as EvalReport;
    expect(JSON.parse(run.stdout)).toMatchObject({ suite: "builtin", totals: report.totals });
    expect(report).toMatchObject({ suite: "builtin", model: "openai/gpt-4o", mode: "do" });
    expect(report.totals).toMatchObject({ tasks: 2, run: 2, solved: 1, pass_at_1: 0.5 });
    const byId = Object.fromEntries(report.tasks.map((t) => [t.id, t]));
    expect(byId["javascript/median"]).toMatchObject({ solved: true, status: "unverified" });
    expect(byId["python/leap"]).toMatchObject({ solved: false });
    expect(byId["python/leap"]?.grade?.checks.length).toBeGreaterThan(0);
    // Graded on what the workers did: their records, in the eval's results.
    const records = await readResults(out);
    expect(records.map((r) => [r.id, r.worker]).sort()).toEqual([
      ["javascript/median", "wa"],
      ["python/leap", "wa"],
    ]);
    expect(report.totals.cost_usd).toBeCloseTo(
      records.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0),
      10,
    );
    expect(await readFile(path.join(out, "report.md"), "utf8")).toContain("pass@1 50% (1/2)");
    w.child.kill("SIGINT");
    expect(await w.exited).toBe(0);
  });

  it("times a queued batch from when it was enqueued to its last task's finish, however late it is followed", async () => {
    redis = await startRedis();
    server = await startScriptedServer(
      byTask({ "[t1]": writes("t1.txt", "t1\n"), "[t2]": writes("t2.txt", "t2\n") }),
    );
    const home = await makeHome();
    const repo = await gitRepo();
    const tasks = await writeTasks(home, repo, ["t1", "t2"]);
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    const enqueuedAt = Date.now();
    const enqueue = await runCairn(
      ["batch", tasks, "--queue", redis.url, "--out", out, "--output-format", "json", ...args],
      { home },
    );
    expect(enqueue.code, enqueue.stderr).toBe(0);
    const { batch_id: batchId } = JSON.parse(enqueue.stdout);
    const worker = startWorker(home, env, "wa");
    await until("both tasks to finish", () =>
      worker.events.filter((e) => e.type === "task.finished").length === 2 ? true : undefined,
    );
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(0);
    const doneAt = Date.now();
    // Followed only once the batch is over: following takes a moment, the batch took longer.
    const status = await runCairn(
      ["batch", "status", batchId, "--queue", redis.url, "--output-format", "json"],
      {
        home,
      },
    );
    expect(status.code, status.stderr).toBe(0);
    const summary = JSON.parse(status.stdout) as { wall_ms: number; completed: number };
    expect(summary.completed).toBe(2);
    const records = await readResults(out);
    const lastFinish = Math.max(...records.map((r) => Date.parse(r.finished_at)));
    const firstStart = Math.min(...records.map((r) => Date.parse(r.finished_at) - r.duration_ms));
    expect(summary.wall_ms).toBeGreaterThanOrEqual(lastFinish - firstStart);
    expect(summary.wall_ms).toBeLessThanOrEqual(doneAt - enqueuedAt);
  });
});
