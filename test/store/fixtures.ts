import path from "node:path";
import { Writable } from "node:stream";
import { afterEach } from "vitest";
import type { CommandIo } from "../../src/cli/sessions.js";
import type { CairnEvent, EventOf, Phase, StampedEvent } from "../../src/events/types.js";
import { Store } from "../../src/store/sessions.js";
import { tempDir } from "../helpers/temp.js";

export { tempDir };

const open: Store[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

/** A store in a fresh folder, closed after the test. */
export async function tempStore(): Promise<{ store: Store; file: string }> {
  const file = path.join(tempDir("cairn-store-"), "data", "cairn.db");
  const store = Store.open(file);
  open.push(store);
  return { store, file };
}

/** Another connection, as a second process would have; closed after the test. */
export function reopen(file: string): Store {
  const store = Store.open(file);
  open.push(store);
  return store;
}

/**
 * Writes one session's events as the bus would stamp them, on a clock the test sets: each event
 * `step` ms after the last, from `start`.
 */
export function sessionWriter(store: Store, sessionId: string, start: Date, step = 1000) {
  let seq = 0;
  let at = start.getTime() - step;
  return {
    emit(event: CairnEvent): StampedEvent {
      at += step;
      const stamped = { ...event, session_id: sessionId, seq: ++seq, ts: new Date(at).toISOString() };
      store.appendEvent(stamped as StampedEvent);
      return stamped as StampedEvent;
    },
    /** Moves the clock to `when` for the next event. */
    at(when: Date) {
      at = when.getTime() - step;
    },
  };
}

export function started(workspace = "/work/app", task = "fix the failing test"): CairnEvent {
  return { type: "session.started", mode: "do", task, model: "openai/gpt-test", workspace };
}

export function usage(
  phase: Phase,
  model: string,
  tokens: { input: number; output: number; cached?: number },
  cost: number | null,
): EventOf<"usage"> {
  return {
    type: "usage",
    phase,
    model,
    input_tokens: tokens.input,
    output_tokens: tokens.output,
    cached_input_tokens: tokens.cached ?? 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: cost,
    duration_ms: 1200,
    tokens_per_second: 40,
  };
}

export function finished(sessionId: string, status: "completed" | "failed" = "completed"): CairnEvent {
  return {
    type: "session.finished",
    result: {
      session_id: sessionId,
      status,
      reason: status === "completed" ? "checks_passed" : "checks_failed",
      summary: "Fixed `add` in src/math.ts; the tests pass.",
      iterations: 1,
      files_changed: ["src/math.ts"],
      validation: { ran: true, passed: true, command: "npm test" },
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
        by_phase: {},
        by_agent: {},
      },
      cost_usd: null,
      duration_ms: 5000,
      assessment: {
        confidence: status === "completed" ? "high" : "low",
        verified_by: [{ command: "npm test", source: "project", passed: status === "completed" }],
        not_verified: [],
        self_assessment: "",
        remaining: [],
      },
    },
  };
}

export interface UsageRow {
  ts: string;
  model: string;
  phase: string;
  agent: string;
  workspace: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: number | null;
}

/** The usage table as it is, to add up in the test and check every total the store reports. */
export function usageRows(store: Store): UsageRow[] {
  return store.db
    .prepare("SELECT u.*, s.workspace FROM usage u JOIN sessions s ON s.id = u.session_id")
    .all() as unknown as UsageRow[];
}

/** Output streams for a command, and what was written to them. */
export function captureIo(): { io: CommandIo; out: () => string; err: () => string } {
  const text = { out: "", err: "" };
  const stream = (name: keyof typeof text) =>
    new Writable({
      write(chunk, _encoding, done) {
        text[name] += String(chunk);
        done();
      },
    });
  return { io: { out: stream("out"), err: stream("err") }, out: () => text.out, err: () => text.err };
}
