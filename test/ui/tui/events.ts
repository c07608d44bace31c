import type { CairnEvent, StampedEvent } from "../../../src/events/types.js";

let seq = 0;

/** An event as the bus stamps it, `ms` after a fixed start. */
export function stamp(event: CairnEvent, ms = 0): StampedEvent {
  seq++;
  return {
    ...event,
    session_id: "s1",
    seq,
    ts: new Date(Date.UTC(2026, 10, 22, 12, 0, 0) + ms).toISOString(),
  } as StampedEvent;
}

let turn = 0;

/** A chat message's turn beginning, as the engine announces it. */
export const started = (task: string, ms = 0) =>
  stamp({ type: "turn.started", turn: ++turn, mode: "chat", input: task }, ms);

/** How the last turn ended. */
export const finished = (status: "completed" | "unverified" | "cancelled" | "failed", ms = 0) =>
  stamp(
    {
      type: "turn.finished",
      turn,
      result: {
        session_id: "s1",
        status,
        reason: (
          {
            completed: "answered",
            unverified: "unchecked",
            cancelled: "interrupted",
            failed: "work_failed",
          } as const
        )[status],
        summary: "",
        iterations: 1,
        files_changed: [],
        validation: null,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cached_input_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
          by_phase: {},
          by_agent: {},
        },
        cost_usd: 0,
        duration_ms: ms,
        assessment: {
          confidence: "low",
          verified_by: [],
          not_verified: [],
          self_assessment: "",
          remaining: [],
        },
      },
    },
    ms,
  );

export const usage = (input: number, output: number, cost: number | null) =>
  stamp({
    type: "usage",
    phase: "execution",
    model: "openai/gpt-4o",
    input_tokens: input,
    output_tokens: output,
    cached_input_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: cost,
    duration_ms: 10,
    tokens_per_second: null,
  });

export const EDIT_DIFF =
  "Index: math.js\n===================================================================\n--- math.js\n+++ math.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a - b;\n+  return a + b;\n }\n";
