import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, openDatabase, StoreError, storePath } from "../../src/store/db.js";
import { Store } from "../../src/store/sessions.js";
import { tempDir } from "./fixtures.js";

function pragma(db: DatabaseSync, name: string): unknown {
  return Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];
}

const STEPS = [
  "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
  "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0; CREATE INDEX notes_pinned ON notes (pinned)",
];

describe("opening the store", () => {
  it("lives under $XDG_DATA_HOME/cairn", () => {
    expect(storePath({ XDG_DATA_HOME: "/data", HOME: "/home/me" })).toBe("/data/cairn/cairn.db");
    expect(storePath({ HOME: "/home/me" })).toBe("/home/me/.local/share/cairn/cairn.db");
  });

  it("creates its folder and the whole schema, in WAL mode, waiting on other writers", async () => {
    const file = path.join(await tempDir(), "deep", "er", "cairn.db");
    const db = openDatabase(file);
    try {
      expect(pragma(db, "user_version")).toBe(MIGRATIONS.length);
      expect(pragma(db, "journal_mode")).toBe("wal");
      expect(pragma(db, "synchronous")).toBe(1);
      expect(pragma(db, "foreign_keys")).toBe(1);
      expect(pragma(db, "busy_timeout")).toBe(5000);
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all();
      expect(tables.map((t) => t.name)).toEqual([
        "embeddings",
        "events",
        "mined_commits",
        "sessions",
        "usage",
      ]);
    } finally {
      db.close();
    }
  });

  it("brings an older database up to date and keeps what was in it", async () => {
    const file = path.join(await tempDir(), "old.db");
    const old = openDatabase(file, STEPS.slice(0, 1));
    old.prepare("INSERT INTO notes (body) VALUES (?)").run("kept");
    old.close();

    const db = openDatabase(file, STEPS);
    try {
      expect(pragma(db, "user_version")).toBe(2);
      expect(db.prepare("SELECT body, pinned FROM notes").all()).toEqual([{ body: "kept", pinned: 0 }]);
    } finally {
      db.close();
    }
  });

  it("applies a step whole or not at all", async () => {
    const file = path.join(await tempDir(), "half.db");
    openDatabase(file, STEPS.slice(0, 1)).close();
    expect(() => openDatabase(file, [STEPS[0]!, "CREATE TABLE tags (name TEXT); NOT SQL"])).toThrow(/syntax/);
    const db = new DatabaseSync(file);
    try {
      expect(pragma(db, "user_version")).toBe(1);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'tags'").get()).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it("refuses a database from a newer cairn, says what to do, and leaves it alone", async () => {
    const file = path.join(await tempDir(), "new.db");
    Store.open(file).close();
    const future = MIGRATIONS.length + 3;
    const raw = new DatabaseSync(file);
    raw.exec(`PRAGMA user_version = ${future}`);
    raw.close();

    let error: unknown;
    try {
      Store.open(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe(
      `${file} was written by a newer cairn (schema version ${future}; this one knows up to ${MIGRATIONS.length}). Upgrade cairn to use it.`,
    );
    const after = new DatabaseSync(file);
    expect(pragma(after, "user_version")).toBe(future);
    after.close();
  });
});

describe("results stored before their data said its kind", () => {
  it("get the kind their tool gives; a result without data, or of a tool not built in, stays as it was", async () => {
    const file = path.join(await tempDir(), "old.db");
    const old = openDatabase(file, MIGRATIONS.slice(0, 1));
    const now = "2026-03-01T09:00:00.000Z";
    old
      .prepare(
        "INSERT INTO sessions (id, workspace, task, mode, model, created_at, updated_at) VALUES ('s', '/w', 't', 'do', 'm', ?, ?)",
      )
      .run(now, now);
    const results = [
      { tool: "edit_file", data: { path: "a.ts", diff: "@@ -1 +1 @@\n-a\n+b\n", strategy: "exact" } },
      { tool: "run_command", data: { exit_code: 0, signal: null, timed_out: false } },
      { tool: "ask_user", data: { answered: false } },
      { tool: "read_yaml", data: { path: "c.yaml", value: { k: 1 } } },
      { tool: "grep" },
      { tool: "mcp__thing", data: { anything: true } },
    ];
    const insert = old.prepare(
      "INSERT INTO events (session_id, seq, type, ts, data) VALUES ('s', ?, 'tool.result', ?, ?)",
    );
    results.forEach((result, i) => {
      const body = { type: "tool.result", call_id: `c${i}`, ok: true, output: "", duration_ms: 1, ...result };
      insert.run(i + 1, now, JSON.stringify(body));
    });
    old.close();

    const store = Store.open(file);
    try {
      const data = store.events("s").map((event) => (event.type === "tool.result" ? event.data : undefined));
      expect(data).toEqual([
        { kind: "file_change", path: "a.ts", diff: "@@ -1 +1 @@\n-a\n+b\n", strategy: "exact" },
        { kind: "command", exit_code: 0, signal: null, timed_out: false },
        { kind: "answer", answered: false },
        { kind: "data_read", path: "c.yaml", value: { k: 1 } },
        undefined,
        { anything: true },
      ]);
    } finally {
      store.close();
    }
  });
});
