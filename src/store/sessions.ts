import type { DatabaseSync, SQLOutputValue, StatementSync } from "node:sqlite";
import { agentNameOf, type Mode, type RunStatus, type StampedEvent } from "../events/types.js";
import type { CostRow, CostTotals } from "../model/usage.js";
import { alive } from "../platform/processes.js";
import { openDatabase, patiently, StoreError, storePath, transaction } from "./db.js";

/**
 * `interrupted` is never written: it is a `running` session whose process is gone (Ctrl-C twice,
 * kill -9, a crash), so nobody will ever finish it.
 */
export type SessionStatus = RunStatus | "running" | "interrupted";

/** Usage totals that also say how much of the cost is known, so a partly priced total is not a guess. */
export interface NewSession {
  id: string;
  workspace: string;
  task: string;
  mode: Mode;
  model: string;
  /** When it started; now by default. */
  created_at?: string;
  /** The process running it (this one by default), by which a session left `running` is known to be interrupted. */
  pid?: number;
}

export interface SessionInfo {
  id: string;
  workspace: string;
  task: string;
  mode: Mode;
  model: string;
  status: SessionStatus;
  created_at: string;
  /** The time of its last event. */
  updated_at: string;
  usage: CostTotals;
}

export const COST_GROUPS = ["day", "model", "phase", "agent", "workspace"] as const;

export type CostGroup = (typeof COST_GROUPS)[number];

export interface CostQuery {
  groupBy: CostGroup;
  /** A second grouping within each group: each day's spending by model, say, to stack in a plot. */
  splitBy?: CostGroup;
  since?: Date;
  sessionId?: string;
}

type Row = Record<string, SQLOutputValue>;

const TOKEN_KINDS = [
  "input_tokens",
  "output_tokens",
  "cached_input_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
] as const;

/** Days are the person's own, not UTC: a late evening's spending belongs to that evening. */
const GROUP_KEY: Record<CostGroup, string> = {
  day: "date(u.ts, 'localtime')",
  model: "u.model",
  phase: "u.phase",
  agent: "u.agent",
  workspace: "s.workspace",
};

/** The sum of several totals; one unknown cost makes the sum's `cost_usd` unknown. */
function costTotals(row: Row): CostTotals {
  const known = Number(row.known_cost_usd);
  const unknown = Number(row.unknown_cost_calls);
  return {
    calls: Number(row.calls),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_input_tokens: Number(row.cached_input_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    reasoning_tokens: Number(row.reasoning_tokens),
    cost_usd: unknown > 0 ? null : known,
    known_cost_usd: known,
    unknown_cost_calls: unknown,
  };
}

/** The session's status once the event is stored; null when the event does not change it. */
function statusAfter(event: StampedEvent): SessionStatus | null {
  if (event.agent) return null;
  if (event.type === "turn.started") return "running";
  if (event.type === "turn.finished" || event.type === "session.finished") return event.result.status;
  return null;
}

function sessionInfo(row: Row): SessionInfo {
  const stored = String(row.status) as SessionStatus;
  const pid = row.pid === null ? null : Number(row.pid);
  const gone = stored === "running" && pid !== null && pid !== process.pid && !alive(pid);
  return {
    id: String(row.id),
    workspace: String(row.workspace),
    task: String(row.task),
    mode: String(row.mode) as Mode,
    model: String(row.model),
    status: gone ? "interrupted" : stored,
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    usage: costTotals(row),
  };
}

/**
 * The durable record of every session: its events, in order, and every model call's tokens and
 * dollars. Everything is synchronous so an event bus listener can write each event before the
 * next action starts; several cairn processes can share one store.
 */
export class Store {
  readonly db: DatabaseSync;
  private readonly insertSession: StatementSync;
  private readonly insertEvent: StatementSync;
  private readonly insertUsage: StatementSync;
  private readonly touchSession: StatementSync;
  private readonly nameSession: StatementSync;

  static open(file: string = storePath()): Store {
    return new Store(openDatabase(file));
  }

  constructor(db: DatabaseSync) {
    this.db = db;
    this.insertSession = db.prepare(
      `INSERT INTO sessions (id, workspace, task, mode, model, pid, created_at, updated_at)
       VALUES (:id, :workspace, :task, :mode, :model, :pid, :created_at, :created_at)
       ON CONFLICT (id) DO NOTHING`,
    );
    this.insertEvent = db.prepare(
      "INSERT INTO events (session_id, seq, type, ts, data) VALUES (:session_id, :seq, :type, :ts, :data)",
    );
    this.insertUsage = db.prepare(
      `INSERT INTO usage (session_id, seq, ts, model, phase, agent, ${TOKEN_KINDS.join(", ")}, cost_usd, duration_ms)
       VALUES (:session_id, :seq, :ts, :model, :phase, :agent, ${TOKEN_KINDS.map((k) => `:${k}`).join(", ")}, :cost_usd, :duration_ms)`,
    );
    this.nameSession = db.prepare("UPDATE sessions SET task = :task WHERE id = :session_id AND task = ''");
    // Totals grow with each call, so a session killed halfway still shows what it has cost. The
    // process that last wrote owns the session, so one resumed elsewhere is running, not interrupted.
    this.touchSession = db.prepare(
      `UPDATE sessions SET
         updated_at = :ts,
         pid = :pid,
         status = coalesce(:status, status),
         calls = calls + :calls,
         ${TOKEN_KINDS.map((k) => `${k} = ${k} + :${k}`).join(",\n         ")},
         known_cost_usd = known_cost_usd + :known_cost_usd,
         unknown_cost_calls = unknown_cost_calls + :unknown_cost_calls
       WHERE id = :session_id`,
    );
  }

  close(): void {
    this.db.close();
  }

  /**
   * Records a session. Its `session.started` event does the same, so whichever comes first makes
   * the row and the other leaves it as it is.
   */
  createSession(session: NewSession): void {
    this.insertSession.run({
      id: session.id,
      workspace: session.workspace,
      task: session.task,
      mode: session.mode,
      model: session.model,
      pid: session.pid ?? process.pid,
      created_at: session.created_at ?? new Date().toISOString(),
    });
  }

  /**
   * Writes one event, and with it what it means for the session: a usage row and the grown
   * totals for a model call, `running` again when a turn starts, and the status it ended with
   * when a turn or the session ends. All or nothing, in one transaction, committed before this
   * returns.
   */
  appendEvent(event: StampedEvent): void {
    const { session_id, seq, ts, ...body } = event;
    transaction(this.db, () => {
      if (event.type === "session.started") {
        const { workspace, task, mode, model } = event;
        this.createSession({ id: session_id, workspace, task, mode, model, created_at: ts });
      }
      // A session recorded before anything was asked of it (an editor's new thread) is named by its first input.
      if (event.type === "turn.started" && !event.agent)
        this.nameSession.run({ session_id, task: event.input });
      this.insertEvent.run({ session_id, seq, ts, type: event.type, data: JSON.stringify(body) });
      const usage = event.type === "usage" ? event : undefined;
      if (usage)
        this.insertUsage.run({
          session_id,
          seq,
          ts,
          model: usage.model,
          phase: usage.phase,
          agent: agentNameOf(usage),
          ...Object.fromEntries(TOKEN_KINDS.map((k) => [k, usage[k]])),
          cost_usd: usage.cost_usd,
          duration_ms: usage.duration_ms,
        });
      this.touchSession.run({
        session_id,
        ts,
        pid: process.pid,
        status: statusAfter(event),
        calls: usage ? 1 : 0,
        ...Object.fromEntries(TOKEN_KINDS.map((k) => [k, usage?.[k] ?? 0])),
        known_cost_usd: usage?.cost_usd ?? 0,
        unknown_cost_calls: usage && usage.cost_usd === null ? 1 : 0,
      });
    });
  }

  /** Whether a session has exactly this id (not merely one starting with it). */
  sessionExists(id: string): boolean {
    return this.db.prepare("SELECT 1 FROM sessions WHERE id = ?").get(id) !== undefined;
  }

  /** Newest first. */
  listSessions(options: { limit?: number; workspace?: string } = {}): SessionInfo[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM sessions WHERE :workspace IS NULL OR workspace = :workspace
         ORDER BY created_at DESC, id DESC LIMIT :limit`,
      )
      .all({ workspace: options.workspace ?? null, limit: options.limit ?? -1 });
    return rows.map(sessionInfo);
  }

  lastSession(workspace?: string): SessionInfo | undefined {
    return this.listSessions({ limit: 1, ...(workspace ? { workspace } : {}) })[0];
  }

  /**
   * A session by its id, the start of it, or the end of it (the random part, `3fa9c1`, which is
   * what people copy), as a person types it. A start is looked for before an end. Undefined when
   * none matches; a StoreError when what was typed fits more than one.
   */
  getSession(ref: string): SessionInfo | undefined {
    if (ref === "") return undefined;
    const exact = this.db.prepare("SELECT * FROM sessions WHERE id = ?").get(ref);
    if (exact) return sessionInfo(exact);
    const starting = this.db
      .prepare("SELECT * FROM sessions WHERE substr(id, 1, length(:ref)) = :ref ORDER BY id LIMIT 6")
      .all({ ref });
    const matches = starting.length
      ? starting
      : this.db
          .prepare("SELECT * FROM sessions WHERE substr(id, -length(:ref)) = :ref ORDER BY id LIMIT 6")
          .all({ ref });
    const [only, ...others] = matches;
    if (!only) return undefined;
    if (others.length === 0) return sessionInfo(only);
    const shown = matches.slice(0, 5).map((row) => String(row.id));
    throw new StoreError(
      `"${ref}" matches more than one session (${shown.join(", ")}${matches.length > 5 ? ", …" : ""}); type more of the id.`,
    );
  }

  /** Like getSession, but a session that isn't there is an error that says so. */
  requireSession(ref: string): SessionInfo {
    const session = this.getSession(ref);
    if (!session) throw new StoreError(`no session matches "${ref}"; \`cairn sessions\` lists them.`);
    return session;
  }

  /** Its events in the order they happened, as they were emitted; only those after `afterSeq` if given. */
  events(sessionId: string, afterSeq = 0): StampedEvent[] {
    return this.db
      .prepare("SELECT seq, ts, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq")
      .all(sessionId, afterSeq)
      .map(
        (row) =>
          ({
            ...JSON.parse(String(row.data)),
            session_id: sessionId,
            seq: Number(row.seq),
            ts: String(row.ts),
          }) as StampedEvent,
      );
  }

  /** What the sessions recorded in a workspace have cost, all of them, in the calls of known price. */
  workspaceCost(workspace: string): number {
    const row = this.db
      .prepare("SELECT total(known_cost_usd) AS spent FROM sessions WHERE workspace = ?")
      .get(workspace);
    return Number(row?.spent ?? 0);
  }

  /** Deletes a session with its events and usage. False when there was no such session. */
  removeSession(id: string): boolean {
    return Number(patiently(() => this.db.prepare("DELETE FROM sessions WHERE id = ?").run(id)).changes) > 0;
  }

  /**
   * Model calls summed by day, model, phase, agent or workspace (and within each, by `splitBy`),
   * from the usage rows themselves. A group's `cost_usd` is null when any of its calls had no
   * known price.
   */
  costs(query: CostQuery): CostRow[] {
    const key = GROUP_KEY[query.groupBy];
    const split = query.splitBy ? GROUP_KEY[query.splitBy] : undefined;
    const order = query.groupBy === "day" ? "key" : "known_cost_usd DESC, calls DESC, key";
    const rows = this.db
      .prepare(
        `SELECT ${key} AS key, ${split ? `${split} AS split,` : ""} count(*) AS calls,
           ${TOKEN_KINDS.map((k) => `sum(u.${k}) AS ${k}`).join(", ")},
           total(u.cost_usd) AS known_cost_usd,
           sum(u.cost_usd IS NULL) AS unknown_cost_calls
         FROM usage u JOIN sessions s ON s.id = u.session_id
         WHERE (:since IS NULL OR u.ts >= :since) AND (:session IS NULL OR u.session_id = :session)
         GROUP BY ${split ? "1, 2" : "1"} ORDER BY ${order}${split ? ", split" : ""}`,
      )
      .all({ since: query.since?.toISOString() ?? null, session: query.sessionId ?? null });
    return rows.map((row) => ({
      key: String(row.key),
      ...(split ? { split: String(row.split) } : {}),
      ...costTotals(row),
    }));
  }
}
