import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/sessions.js";
import { scaled } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";
import { reopen, tempDir, tempStore } from "./fixtures.js";

const WRITER = fileURLToPath(new URL("./writer.ts", import.meta.url));

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  /** It has written half its events, and waits to be told to go on. */
  halfway: Promise<void>;
  exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  go(): void;
  goOn(): void;
}

/**
 * A separate cairn process writing one session; it opens the store only once told to go, and
 * waits halfway until told to go on.
 */
function startWriter(file: string, sessionId: string, calls: number): Writer {
  const child = spawn(
    process.execPath,
    [
      "--experimental-strip-types",
      "--disable-warning=ExperimentalWarning",
      WRITER,
      file,
      sessionId,
      String(calls),
    ],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  let said = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    said += chunk;
  });
  /** Resolves once the writer has said `word`; rejects if it exits first. */
  const saying = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!said.split("\n").includes(word)) return;
        child.stdout?.off("data", look);
        resolve();
      };
      child.stdout?.on("data", look);
      child.on("exit", () =>
        reject(new Error(`writer ${sessionId} exited before it said ${word}: ${stderr}`)),
      );
      look();
    });
  const ready = saying("ready");
  const halfway = saying("half");
  // A writer killed before halfway never gets there: that is no failure of the test.
  halfway.catch(() => {});
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    child,
    ready,
    halfway,
    exited,
    go: () => child.stdin?.write("go\n"),
    goOn: () => child.stdin?.end("on\n"),
  };
}

function integrity(store: Store): unknown {
  return store.db.prepare("PRAGMA integrity_check").get()?.integrity_check;
}

function count(store: Store, sql: string, ...params: string[]): number {
  return Number(Object.values(store.db.prepare(sql).get(...params) ?? {})[0]);
}

/** The session's running totals against its usage rows, which every total must agree with. */
function expectTotalsMatchUsage(store: Store, sessionId: string): void {
  const sums = store.db
    .prepare(
      "SELECT count(*) AS calls, sum(input_tokens) AS input_tokens, total(cost_usd) AS cost FROM usage WHERE session_id = ?",
    )
    .get(sessionId);
  const usage = store.getSession(sessionId)?.usage;
  expect(usage?.calls).toBe(sums?.calls);
  expect(usage?.input_tokens).toBe(sums?.input_tokens);
  expect(usage?.cost_usd).toBeCloseTo(Number(sums?.cost), 9);
}

describe("the store shared by processes", () => {
  it("keeps every row when two processes create it and write to it at the same time", async () => {
    const file = path.join(await tempDir(), "data", "cairn.db");
    const calls = 500;
    const writers = [startWriter(file, "one", calls), startWriter(file, "two", calls)];
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.go();
    // Each writes its second half only once both have written their first: the two overlap
    // however the machine schedules them.
    await Promise.all(writers.map((w) => w.halfway));
    for (const w of writers) w.goOn();
    const results = await Promise.all(writers.map((w) => w.exited));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });

    const store = reopen(file);
    expect(integrity(store)).toBe("ok");
    for (const id of ["one", "two"]) {
      const events = store.events(id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 1 + 2 * calls }, (_, i) => i + 1));
      // Each process's events in the order it wrote them, none lost or doubled.
      expect(events.flatMap((e) => (e.type === "message.delta" ? [e.text] : []))).toEqual(
        Array.from({ length: calls }, (_, i) => `chunk ${i}`),
      );
      expect(count(store, "SELECT count(*) FROM usage WHERE session_id = ?", id)).toBe(calls);
      expectTotalsMatchUsage(store, id);
    }
    // The writes did interleave (as the handshake made sure): each process was still writing
    // while the other was.
    const span = (id: string) =>
      store.db.prepare("SELECT min(ts) AS first, max(ts) AS last FROM events WHERE session_id = ?").get(id)!;
    const [one, two] = [span("one"), span("two")];
    expect(String(one.first) <= String(two.last) && String(two.first) <= String(one.last)).toBe(true);
  });

  it("loses nothing committed when a writer is killed with SIGKILL mid-session", async () => {
    const file = path.join(await tempDir(), "cairn.db");
    const writer = startWriter(file, "killed", 1_000_000);
    await writer.ready;
    writer.go();
    // Opened as the writer opens it: two processes creating the schema at once.
    const watcher = reopen(file);
    await until(
      "the writer to store 200 usage rows",
      () => count(watcher, "SELECT count(*) FROM usage") >= 200,
      20_000,
    );
    writer.child.kill("SIGKILL");
    expect((await writer.exited).signal).toBe("SIGKILL");

    const store = reopen(file);
    expect(integrity(store)).toBe("ok");
    const events = store.events("killed");
    expect(events.length).toBeGreaterThan(400);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(count(store, "SELECT count(*) FROM usage")).toBe(events.filter((e) => e.type === "usage").length);
    expect(store.getSession("killed")?.status).toBe("interrupted");
    expectTotalsMatchUsage(store, "killed");
  });

  it(
    "waits out another process that holds the write lock past the busy timeout, and writes",
    async () => {
      const { store, file } = await tempStore();
      // Another process takes the write lock and keeps it for longer than SQLite's wait (5 s).
      const holder = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { DatabaseSync } from "node:sqlite";
         const db = new DatabaseSync(${JSON.stringify(file)});
         db.exec("BEGIN IMMEDIATE");
         process.stdout.write("held\\n");
         setTimeout(() => { db.exec("COMMIT"); process.stdout.write("released\\n"); }, 6_500);`,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let said = "";
      const exited = new Promise((resolve) => holder.on("exit", resolve));
      await new Promise<void>((resolve) =>
        holder.stdout.on("data", (chunk) => {
          said += chunk;
          if (said.includes("held")) resolve();
        }),
      );
      store.appendEvent({
        session_id: "patient",
        seq: 1,
        ts: new Date().toISOString(),
        type: "session.started",
        mode: "do",
        task: "wait for the lock",
        model: "test/model",
        workspace: "/w",
      });
      await exited;
      // The write went in after the other process let go: it waited, it did not fail.
      expect(said).toContain("released");
      expect(store.events("patient").map((e) => e.type)).toEqual(["session.started"]);
    },
    scaled(30_000),
  );
});
