import type { EventOf, RunResult, StampedEvent, Status, TodoItem, UsageTotals } from "../events/types.js";
import { addCall, emptyUsage } from "../model/usage.js";

type Stamped<T extends StampedEvent["type"]> = Extract<StampedEvent, { type: T }>;

/** A request waiting for a person, as it was asked: an approval with its prompt and choices, or a question. */
export type PendingRequest = Stamped<"approval.requested"> | Stamped<"question.asked">;

/**
 * What a conversation's event log says of it now: what waits for a person (each request whole,
 * oldest first), whether a turn is at work, the TODO list, what it has spent, how its last turn
 * ended. Every front end reads this rather than keeping its own account of the stream.
 */
export interface LogView {
  /** `working` from a turn's start to its end; `waiting` while a request waits for a person, working or not. */
  status: "idle" | "working" | "waiting";
  /** What the agent is doing in the turn at work (its last `status`); none between turns. */
  activity: Status | undefined;
  pending: PendingRequest[];
  todos: TodoItem[];
  /** Every model call of the session, its sub-agents' included. */
  usage: UsageTotals;
  /** The session's own agent's last model call: how much of the window its context took. */
  lastCall: EventOf<"usage"> | undefined;
  /** How the session's work last ended: its last turn, or the session itself. */
  result: RunResult | undefined;
  /** Turns begun, stored ones included. */
  turns: number;
}

export function emptyLogView(): LogView {
  return {
    status: "idle",
    activity: undefined,
    pending: [],
    todos: [],
    usage: emptyUsage(),
    lastCall: undefined,
    result: undefined,
    turns: 0,
  };
}

/** `waiting` while anything waits for a person, else `working` while a turn is at work. */
function settled(view: LogView): LogView {
  return { ...view, status: view.pending.length ? "waiting" : view.activity ? "working" : "idle" };
}

/** The view after one more event of the log. A sub-agent's events count only in what it spent and asked. */
export function foldView(view: LogView, event: StampedEvent): LogView {
  const own = !event.agent;
  switch (event.type) {
    case "turn.started":
      return own ? settled({ ...view, turns: event.turn, activity: "thinking" }) : view;
    case "status":
      return own && view.activity ? { ...view, activity: event.status } : view;
    case "turn.finished":
      return own ? settled({ ...view, result: event.result, activity: undefined }) : view;
    case "session.finished":
      return own ? { ...view, result: event.result } : view;
    case "todos":
      return own ? { ...view, todos: event.todos } : view;
    case "usage":
      return {
        ...view,
        usage: addCall(view.usage, event, event.cost_usd),
        ...(own ? { lastCall: event } : {}),
      };
    case "approval.requested":
    case "question.asked":
      return settled({ ...view, pending: [...view.pending, event] });
    case "approval.resolved":
    case "question.answered":
      return settled({
        ...view,
        pending: view.pending.filter((request) => request.request_id !== event.request_id),
      });
    default:
      return view;
  }
}

/**
 * A stored session's log as the view it leaves: what it spent, its TODO list, how it ended. Its
 * process is gone, so nothing of it is at work and nothing it asked still waits.
 */
export function storedView(events: readonly StampedEvent[]): LogView {
  return { ...events.reduce(foldView, emptyLogView()), status: "idle", activity: undefined, pending: [] };
}
