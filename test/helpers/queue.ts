import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sweepScratch } from "../../src/batch/scratch.js";
import type { ScriptedServer } from "../support/scriptedServer.js";
import { makeRepo, spawnCairn } from "./cli.js";
import type { TestRedis } from "./redis.js";

export type Events = Array<Record<string, unknown> & { type: string }>;

const started: Array<ReturnType<typeof spawnCairn>> = [];

/** A process of the test's (a worker, a follower) that `stopStarted` ends if it is still running. */
export function killLater<T extends ReturnType<typeof spawnCairn>>(child: T): T {
  started.push(child);
  return child;
}

/**
 * Stops the workers and followers the test started that are still running, as a person stops them
 * (twice: a worker hands its running tasks back), so that each removes its copies; one that does
 * not stop in time is killed, and a killed worker's copies are swept as the next worker's start
 * would. For afterEach.
 */
export async function stopStarted(): Promise<void> {
  await Promise.all(
    started.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      child.kill("SIGTERM");
      const late = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(late);
    }),
  );
  await sweepScratch("worker");
}

/** After a queue test: its processes stopped, its model server closed, its Redis stopped. */
export async function endQueueTest(server: ScriptedServer | undefined, redis: TestRedis | undefined) {
  await stopStarted();
  await server?.close();
  await redis?.stop();
}

/**
 * A worker process on `queue` (a 2-second lock) whose stream-json events are collected as they
 * come; `extra` flags after the others (`--approval read-only`).
 */
export function startWorker(
  queue: string,
  home: string,
  env: Record<string, string>,
  name: string,
  extra: string[] = [],
) {
  const child = spawnCairn(
    [
      "worker",
      "--queue",
      queue,
      "--name",
      name,
      "--lock-duration",
      "2",
      "--output-format",
      "stream-json",
      ...extra,
    ],
    { home, env },
  );
  killLater(child);
  const events: Events = [];
  let pending = "";
  child.stdout.on("data", (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, events, exited };
}

/**
 * The sessions the tasks' cairns stored in `home` whose task holds `marker`, as they are stored
 * (before any batch de-duplicates records): where each worked (a worker's copy is named after its
 * pid), whether it finished, and how.
 */
export function sessionsOf(
  home: string,
  marker: string,
): Array<{ workedIn: string; finished: number; status: string | null }> {
  const db = new DatabaseSync(path.join(home, "data", "cairn", "cairn.db"), { readOnly: true });
  try {
    // The tasks' cairns write as this reads: it waits for them as they wait for each other.
    db.exec("PRAGMA busy_timeout = 10000");
    const rows = db
      .prepare(
        `SELECT
           s.status AS status,
           (SELECT data FROM events e WHERE e.session_id = s.id AND e.type = 'session.started') AS started,
           (SELECT count(*) FROM events e WHERE e.session_id = s.id AND e.type = 'session.finished') AS finished
         FROM sessions s WHERE instr(s.task, ?) > 0`,
      )
      .all(marker) as Array<{ started: string; finished: number; status: string | null }>;
    return rows.map((row) => ({
      workedIn: String((JSON.parse(row.started) as { worked_in?: string }).worked_in),
      finished: Number(row.finished),
      status: row.status,
    }));
  } finally {
    db.close();
  }
}

/** A worker's copies are in `cairn-worker-<its pid>-…`. */
export const copiedBy = (pid: number | undefined) => (session: { workedIn: string }) =>
  session.workedIn.includes(`${path.sep}cairn-worker-${pid}-`);

/** A git repository of one committed file. */
export async function gitRepo(): Promise<string> {
  const repo = await makeRepo({ "base.txt": "base\n" });
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
  ]) {
    execFileSync("git", args, { cwd: repo });
  }
  return repo;
}

/**
 * A tasks file in `home` of one `cairn do` per id, each writing `<id>.txt` in `repo`, its id in
 * brackets for byTask, and checked by that file being there: done right, a task completes.
 */
export async function writeTasks(home: string, repo: string, ids: string[]): Promise<string> {
  const tasks = path.join(home, "tasks.jsonl");
  const lines = ids.map((id) => JSON.stringify(doTaskWriting(repo, id)));
  await writeFile(tasks, lines.join("\n"));
  return tasks;
}

/** One `cairn do` task writing `<id>.txt` in `repo`, checked by the file being there. */
export function doTaskWriting(repo: string, id: string) {
  return { id, repo, task: `Write ${id}.txt [${id}]`, mode: "do", verify: `test -f ${id}.txt` };
}
