import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { dataDir } from "../config/load.js";

/** A problem with the store a person can act on: a schema from a newer cairn, an unknown session id. */
export class StoreError extends Error {
  override name = "StoreError";
}

export function storePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), "cairn.db");
}

/**
 * The schema, one step per version: step i takes the database from version i to i + 1. Steps
 * are only ever appended; a released step is never edited, because databases out there have
 * already run it.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    task TEXT NOT NULL,
    mode TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running',
    pid INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    known_cost_usd REAL NOT NULL DEFAULT 0,
    unknown_cost_calls INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE INDEX sessions_by_created ON sessions (created_at);
  CREATE INDEX sessions_by_workspace ON sessions (workspace, created_at);

  CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    ts TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE usage (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts TEXT NOT NULL,
    model TEXT NOT NULL,
    phase TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd REAL,
    duration_ms INTEGER NOT NULL,
    FOREIGN KEY (session_id, seq) REFERENCES events (session_id, seq) ON DELETE CASCADE
  ) STRICT;
  CREATE INDEX usage_by_ts ON usage (ts);
  CREATE INDEX usage_by_session ON usage (session_id, seq);
  `,
  // A tool result's data says its kind (ToolData in src/events/types.ts): results stored before
  // it did get the kind their tool gives, so that replays and resumes read them alike.
  `
  WITH kinds (tool, kind) AS (VALUES
    ('read_file', 'file_read'), ('write_file', 'file_change'), ('edit_file', 'file_change'),
    ('append_file', 'file_change'), ('delete_file', 'file_deleted'), ('copy_file', 'file_copied'),
    ('move_file', 'file_moved'), ('list_files', 'listing'), ('search_files', 'listing'),
    ('file_tree', 'tree'), ('grep', 'grep'), ('workspace_info', 'workspace'), ('run_command', 'command'),
    ('git_status', 'git_status'), ('git_diff', 'git_diff'), ('git_log', 'git_log'),
    ('git_stage_files', 'git_staged'), ('git_commit', 'git_commit'), ('todo_write', 'todos'),
    ('ask_user', 'answer'), ('consult', 'advice'), ('read_json', 'data_read'), ('read_yaml', 'data_read'),
    ('read_ini', 'data_read'), ('write_json', 'data_written'), ('write_yaml', 'data_written'),
    ('write_ini', 'data_written'))
  UPDATE events
  SET data = json_set(data, '$.data.kind', (SELECT kind FROM kinds WHERE tool = data ->> '$.tool'))
  WHERE type = 'tool.result'
    AND json_type(data, '$.data') = 'object'
    AND json_type(data, '$.data.kind') IS NULL
    AND data ->> '$.tool' IN (SELECT tool FROM kinds);
  `,
  // Which agent made each call: `main` for the session's own, a sub-agent or delegate by its name.
  `
  ALTER TABLE usage ADD COLUMN agent TEXT NOT NULL DEFAULT 'main';
  `,
  // File relevance: each file's embedding by model and content hash, so a file is embedded once
  // for as long as it does not change, whichever session or workspace meets it.
  `
  CREATE TABLE embeddings (
    model TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model, hash)
  ) STRICT, WITHOUT ROWID;
  `,
  // `cairn eval history`: what mining each commit found (an instance, or why it was left out), by
  // commit and the settings its tests were run with, so that mining again resumes where it stopped.
  `
  CREATE TABLE mined_commits (
    sha TEXT NOT NULL,
    settings TEXT NOT NULL,
    found TEXT NOT NULL,
    mined_at TEXT NOT NULL,
    PRIMARY KEY (sha, settings)
  ) STRICT, WITHOUT ROWID;
  `,
];

/**
 * Runs `work` as one write transaction. IMMEDIATE takes the write lock up front, so a second
 * process waits out busy_timeout for it (and asks again, `patiently`); a deferred transaction
 * that reads and then writes could instead fail at once with SQLITE_BUSY when the other process
 * committed in between.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  patiently(() => db.exec("BEGIN IMMEDIATE"));
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // SQLite has already rolled back after some errors (a full disk, say): report the first one.
    }
    throw error;
  }
}

function userVersion(db: DatabaseSync): number {
  return Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);
}

/**
 * Brings the schema up to `migrations.length`, one step per transaction. The version is read
 * again under the write lock, so when two processes start on an old database together, the
 * second finds the steps done by the first and skips them.
 */
export function migrate(db: DatabaseSync, migrations: readonly string[], file: string): void {
  const found = userVersion(db);
  if (found > migrations.length)
    throw new StoreError(
      `${file} was written by a newer cairn (schema version ${found}; this one knows up to ${migrations.length}). Upgrade cairn to use it.`,
    );
  while (userVersion(db) < migrations.length) {
    transaction(db, () => {
      const version = userVersion(db);
      const step = migrations[version];
      if (step === undefined) return; // Another process finished the steps while this one waited.
      db.exec(step);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    });
  }
}

const BUSY_TIMEOUT_MS = 5000;

function isBusy(error: unknown): boolean {
  // The low byte is the primary result code: SQLITE_BUSY, whatever extended code comes with it.
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === "number" && (code & 0xff) === 5;
}

/** Sleeps without an event loop: opening the store is synchronous, like every write to it. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Times a write asks again for a lock that busy_timeout did not get it: about 20 s in all. */
const BUSY_RETRIES = 3;

/**
 * Runs `write` (one statement, or the start of a transaction: nothing done yet when it fails),
 * asking again a few times when the database stays busy past busy_timeout, as it may while many
 * cairns (a machine's workers, each task's session) write at once. A write that still cannot
 * get the lock fails as SQLite says.
 */
export function patiently<T>(write: () => T): T {
  for (let retry = 0; ; retry++) {
    try {
      return write();
    } catch (error) {
      if (!isBusy(error) || retry >= BUSY_RETRIES) throw error;
      pause(50 + Math.random() * 200);
    }
  }
}

/**
 * Switching a new database to WAL upgrades a shared lock to an exclusive one. When another
 * process holds a shared lock too (two cairns creating the store at once), SQLite answers
 * "database is locked" at once instead of calling the busy handler, since both waiting could
 * deadlock. Letting go and asking again a moment later gives the patience busy_timeout gives.
 */
function switchToWal(db: DatabaseSync): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      pause(10 + Math.random() * 40);
    }
  }
}

/**
 * Opens (creating if needed) the store at `file` and brings its schema up to date.
 *
 * Durability: WAL with synchronous=NORMAL. A commit is in the WAL file, handed to the OS, before
 * it returns, so killing cairn (Ctrl-C, kill -9, a crash) loses nothing committed; only a power
 * cut or OS crash can drop the last few commits, never corrupting the file. FULL would close that
 * gap with an fsync per commit, but cairn commits once per event, streamed text included, and
 * an fsync per token would slow every run for a case a suspended laptop does not hit.
 */
export function openDatabase(file: string, migrations: readonly string[] = MIGRATIONS): DatabaseSync {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  try {
    // First, so every later statement waits for another process's lock instead of failing.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    switchToWal(db);
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db, migrations, file);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
