import type { EventOf, RunResult, StampedEvent, TodoItem } from "../events/types.js";
import { storedView } from "./conversationView.js";
import type { RunPhase } from "./phases.js";

interface CallRecord {
  tool: string;
  args: unknown;
  ok?: boolean;
  output?: string;
}

/** Where an interrupted session stood, read back from its event log. */
export interface ResumePoint {
  events: StampedEvent[];
  /** What the caller gave the model besides the task when the session started. */
  context?: string;
  intent?: EventOf<"intent">;
  plan?: EventOf<"plan">;
  todos: TodoItem[];
  /** Index of the first plan step not completed. */
  stepIndex: number;
  /** Tool calls of the interrupted step that finished: they are not run again. */
  done: CallRecord[];
  /** Tool calls that started and never reported: the process died during them. */
  interrupted: CallRecord[];
  lastReview?: EventOf<"review">;
  lastValidation?: EventOf<"validation">;
  /** How the work last ended, when it reached an ending (a do that ended unverified, say). */
  ended?: RunResult;
}

function lastOf<T extends StampedEvent["type"]>(events: StampedEvent[], type: T): EventOf<T> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === type) return event as unknown as EventOf<T>;
  }
  return undefined;
}

export function resumePoint(events: StampedEvent[]): ResumePoint {
  const plan = lastOf(events, "plan");
  const todosEvent = lastOf(events, "todos");
  const todos = todosEvent?.todos ?? [];
  const firstOpen = todos.findIndex((todo) => todo.status !== "completed");
  const stepIndex = firstOpen === -1 ? (plan?.steps?.length ?? 0) : firstOpen;

  // The calls of the interrupted step: those after the step was last marked in progress (the
  // whole log for a session without a plan).
  let from = 0;
  events.forEach((event, i) => {
    if (event.type === "todos" && event.todos.some((todo) => todo.status === "in_progress")) from = i;
    if (event.type === "plan") from = i;
  });
  const calls = new Map<string, CallRecord>();
  for (const event of events.slice(from)) {
    if (event.type === "tool.call") calls.set(event.call_id, { tool: event.tool, args: event.args });
    if (event.type === "tool.result") {
      const call = calls.get(event.call_id);
      if (call) Object.assign(call, { ok: event.ok, output: event.output });
    }
  }
  const records = [...calls.values()];
  const point: ResumePoint = {
    events,
    todos,
    stepIndex,
    done: records.filter((call) => call.ok !== undefined),
    interrupted: records.filter((call) => call.ok === undefined),
  };
  const context = events.find((event) => event.type === "session.started")?.context;
  if (context) point.context = context;
  const intent = lastOf(events, "intent");
  const review = lastOf(events, "review");
  const validation = lastOf(events, "validation");
  if (intent) point.intent = intent;
  if (plan) point.plan = plan;
  if (review) point.lastReview = review;
  if (validation) point.lastValidation = validation;
  const { result } = storedView(events);
  if (result) point.ended = result;
  return point;
}

/**
 * The phase of `cairn run` an interrupted run picks up at (phases.ts), read from where its log
 * stood: a run that never planned starts over at `routing`; one with steps left carries on with
 * `execution` at the first unfinished one; one whose steps were all done goes to `validation`, since
 * the work must be checked as it stands now, whatever was checked before the interruption.
 */
export function resumePhase(point: ResumePoint): Extract<RunPhase, "routing" | "execution" | "validation"> {
  if (!point.plan?.steps || !point.intent) return "routing";
  return point.stepIndex < point.plan.steps.length ? "execution" : "validation";
}

function callLine(call: CallRecord): string {
  const args = JSON.stringify(call.args);
  return `- ${call.tool} ${args.length > 300 ? `${args.slice(0, 300)}…` : args}`;
}

/** What the model is told when it picks an interrupted step back up. */
export function resumeNote(point: ResumePoint): string {
  const parts = ["This session was interrupted and is being resumed."];
  if (point.done.length) {
    const lines = point.done.map(
      (call) => `${callLine(call)} → ${call.ok ? "ok" : "error"}: ${(call.output ?? "").split("\n")[0]}`,
    );
    parts.push(`These tool calls of the current step already ran; do not repeat them:\n${lines.join("\n")}`);
  }
  if (point.interrupted.length) {
    parts.push(
      `These tool calls were cut off by the interruption and may or may not have taken effect; check the current state before repeating any:\n${point.interrupted.map(callLine).join("\n")}`,
    );
  }
  return parts.join("\n\n");
}
