import type {
  CairnEvent,
  Permission,
  StampedEvent,
  Status,
  TodoItem,
  ToolData,
  UsageTotals,
} from "../../events/types.js";
import { addCall, emptyUsage } from "../../model/usage.js";
import { describeEvent, endingTone, type Tone, turnInput } from "../eventLines.js";
import { agentEnding, endingLine } from "../format.js";
import { appendStream, type BlockStream, emptyStream, unfinishedText } from "./blocks.js";

/**
 * The terminal UI's state, and the one function that changes it: `reduce(state, action)`. An
 * action is an event of the session or something the person did in the UI itself (typed a
 * command, read its output); the components only draw what is here.
 */

export type { Tone };

export interface ToolView {
  callId: string;
  tool: string;
  /** The call in a line: its tool's name and what it acts on. */
  title: string;
  args: unknown;
  permission: Permission | null;
  ok?: boolean;
  output?: string;
  diff?: string;
  exitCode?: number | null;
  /** The output is a message (a TODO list, an answer, advice), not content to measure. */
  message?: boolean;
  durationMs?: number;
}

/** A sub-agent or delegate at work: one live line each. */
export interface AgentView {
  id: string;
  task: string;
  model?: string;
  since: number;
}

export type Item =
  | { kind: "user"; id: number; text: string }
  | { kind: "markdown"; id: number; text: string }
  | { kind: "tool"; id: number; call: ToolView }
  | { kind: "line"; id: number; text: string; tone: Tone }
  | { kind: "todos"; id: number; todos: TodoItem[] }
  /** Preformatted output of a slash command. */
  | { kind: "block"; id: number; title: string; text: string };

type NewItem = Item extends infer I ? (I extends Item ? Omit<I, "id"> : never) : never;

export type UiAction =
  | { type: "ui.user"; text: string }
  | { type: "ui.block"; title: string; text: string }
  | { type: "ui.line"; text: string; tone: Tone }
  | { type: "ui.info"; model?: string; approval?: string; sessionId?: string }
  /** The items of transcript batch `key` up to `count` are on the screen for good. */
  | { type: "ui.printed"; key: number; count: number }
  | { type: "ui.reset" }
  /** The screen was cleared (the terminal's width changed): these printed items are printed again, first. */
  | { type: "ui.reprint"; items: Item[] }
  /** A stored session was replayed: a turn it left unfinished is not running now. */
  | { type: "ui.replayed" };

export type Action = StampedEvent | UiAction;

export interface TuiState {
  /**
   * Finished items not yet printed. Once printed they live only on the terminal: the batch key
   * changes and the list starts again, so a long session costs no more per turn than a short one.
   */
  transcript: { key: number; items: Item[] };
  nextId: number;
  /** The Markdown block being streamed. */
  stream: BlockStream;
  /** Characters streamed in the current model turn: whether its answer was already shown. */
  streamed: number;
  /** Tool calls started and not yet finished. */
  running: ToolView[];
  /** Sub-agents and delegates running now. */
  agents: AgentView[];
  /** The latest finished tool calls, for Ctrl-O. */
  recentTools: ToolView[];
  /** What the agent does now, since when, and anything it says besides (a local model still reading its prompt). */
  status: { status: Status; since: number; detail?: string } | null;
  /** Requests of this turn that did not fit the model's window whole. */
  cutToFit: number;
  /** A turn is in progress: from its `turn.started` to its `turn.finished`. */
  busy: boolean;
  turnStartedAt: number | null;
  turnFiles: string[];
  todos: TodoItem[];
  usage: UsageTotals;
  model: string;
  approval: string;
  sessionId: string;
  workspace: string;
}

export const RECENT_TOOLS = 50;

export function initialState(info: {
  model: string;
  approval: string;
  sessionId: string;
  workspace: string;
}): TuiState {
  return {
    transcript: { key: 0, items: [] },
    nextId: 1,
    stream: emptyStream,
    streamed: 0,
    running: [],
    agents: [],
    recentTools: [],
    status: null,
    cutToFit: 0,
    busy: false,
    turnStartedAt: null,
    turnFiles: [],
    todos: [],
    usage: emptyUsage(),
    ...info,
  };
}

function push(state: TuiState, ...items: NewItem[]): TuiState {
  if (items.length === 0) return state;
  const added = items.map((item, i) => ({ ...item, id: state.nextId + i }) as Item);
  return {
    ...state,
    nextId: state.nextId + items.length,
    transcript: { key: state.transcript.key, items: [...state.transcript.items, ...added] },
  };
}

const line = (text: string, tone: Tone = "dim"): NewItem => ({ kind: "line", text, tone });

/** Whatever is left of the streamed block becomes a transcript item. */
function flushStream(state: TuiState): TuiState {
  const text = state.stream.visible ? unfinishedText(state.stream).trim() : "";
  const next = { ...state, stream: emptyStream };
  return text ? push(next, { kind: "markdown", text }) : next;
}

type Stamped<T extends StampedEvent["type"]> = Extract<StampedEvent, { type: T }>;

const timeOf = (event: StampedEvent): number => Date.parse(event.ts);

/** What a tool line shows of a result's data: an edit's diff, a command's exit code. */
function resultView(data: ToolData | undefined): Pick<ToolView, "diff" | "exitCode" | "message"> {
  if (!data) return {};
  switch (data.kind) {
    case "file_change":
      return data.diff ? { diff: data.diff } : {};
    case "command":
      return { exitCode: data.exit_code };
    case "todos":
    case "answer":
    case "advice":
      return { message: true };
    case "file_read":
    case "file_deleted":
    case "file_copied":
    case "file_moved":
    case "listing":
    case "tree":
    case "grep":
    case "workspace":
    case "git_status":
    case "git_diff":
    case "git_log":
    case "git_staged":
    case "git_commit":
    case "data_read":
    case "data_written":
    case "web_page":
    case "web_search":
    case "mcp":
      return {};
    default: {
      // A kind added to ToolData and not handled above fails to compile here.
      const _: never = data;
      return {};
    }
  }
}

function finishTool(state: TuiState, event: Stamped<"tool.result">): TuiState {
  const started = state.running.find((call) => call.callId === event.call_id);
  const call: ToolView = {
    ...(started ?? {
      callId: event.call_id,
      tool: event.tool,
      title: event.tool,
      args: undefined,
      permission: null,
    }),
    ok: event.ok,
    output: event.output,
    durationMs: event.duration_ms,
    ...resultView(event.data),
  };
  const files = [...new Set([...state.turnFiles, ...(event.changed_files ?? [])])];
  const next = {
    ...state,
    running: state.running.filter((c) => c.callId !== event.call_id),
    recentTools: [...state.recentTools.slice(-(RECENT_TOOLS - 1)), call],
    turnFiles: files,
  };
  // The TODO panel shows what a list update did; a line for each would only repeat it.
  return event.data?.kind === "todos" ? next : push(next, { kind: "tool", call });
}

function finishTurn(state: TuiState, event: Stamped<"turn.finished">): TuiState {
  const { result } = event;
  let next = flushStream(state);
  // A finished list goes into the transcript, where it stays; an unfinished one stays on the panel.
  const allDone = next.todos.length > 0 && next.todos.every((todo) => todo.status === "completed");
  if (allDone) next = push({ ...next, todos: [] }, { kind: "todos", todos: next.todos });
  // What this turn changed and took, in the words every front end uses for an ending. A chat
  // message is never checked without --verify: saying so after every edit would be noise.
  if (result.status !== "completed" || next.turnFiles.length > 0 || next.cutToFit > 0) {
    const turn = {
      ...result,
      files_changed: next.turnFiles,
      duration_ms: next.turnStartedAt === null ? result.duration_ms : timeOf(event) - next.turnStartedAt,
    };
    next = push(
      next,
      line(endingLine(turn, { unchecked: false, cutToFit: next.cutToFit }), endingTone(result.status)),
    );
  }
  return { ...next, busy: false, status: null, cutToFit: 0, running: [], agents: [], turnStartedAt: null };
}

/**
 * A sub-agent's events: a live line while it runs, a transcript line when it ends, its spending
 * in the totals. Its tool calls and text stay its own; its caller reports what it found.
 */
function reduceSubAgent(state: TuiState, event: StampedEvent, id: string): TuiState {
  switch (event.type) {
    case "agent.status": {
      if (event.status === "running") {
        const view = {
          id,
          task: event.task,
          since: timeOf(event),
          ...(event.model ? { model: event.model } : {}),
        };
        return { ...state, agents: [...state.agents, view] };
      }
      const rest = { ...state, agents: state.agents.filter((agent) => agent.id !== id) };
      const tone: Tone = event.status === "done" ? "ok" : event.status === "over_budget" ? "warn" : "error";
      return push(rest, line(`◆ ${id} ${agentEnding(event)}`, tone));
    }
    case "usage":
      return {
        ...state,
        usage: addCall(state.usage, event, event.cost_usd),
        cutToFit: state.cutToFit + (event.cut_to_fit ? 1 : 0),
      };
    case "error":
      return push(state, line(`◆ ${id} ✗ ${event.message}`, "error"));
    default:
      return state;
  }
}

function startTurn(state: TuiState, event: Stamped<"turn.started">): TuiState {
  return push(
    {
      ...state,
      busy: true,
      // A new turn: nothing of its answer is on screen yet, whatever the last one streamed.
      streamed: 0,
      turnStartedAt: timeOf(event),
      turnFiles: [],
    },
    { kind: "user", text: turnInput(event) },
  );
}

/** The answer as it streams: each Markdown block printed once it is whole. */
function streamText(state: TuiState, event: Stamped<"message.delta">): TuiState {
  const { stream, blocks } = appendStream(state.stream, event.text);
  return push(
    { ...state, stream, streamed: state.streamed + event.text.length },
    ...blocks.map((text): NewItem => ({ kind: "markdown", text })),
  );
}

function startTool(state: TuiState, event: Stamped<"tool.call">): TuiState {
  const call: ToolView = {
    callId: event.call_id,
    tool: event.tool,
    title: event.title,
    args: event.args,
    permission: event.permission,
  };
  return { ...flushStream(state), running: [...state.running, call] };
}

function reduceEvent(state: TuiState, event: StampedEvent): TuiState {
  if (event.agent) return reduceSubAgent(state, event, event.agent);
  switch (event.type) {
    case "session.started":
      return { ...state, model: event.model, sessionId: event.session_id, workspace: event.workspace };
    case "turn.started":
      return startTurn(state, event);
    case "status":
      return {
        ...state,
        // A status that only adds or drops its detail goes on from when it began.
        status: {
          status: event.status,
          since: state.status?.status === event.status ? state.status.since : timeOf(event),
          ...(event.detail ? { detail: event.detail } : {}),
        },
        // A new model turn: what it streams is a new answer.
        streamed: event.status === "thinking" || event.status === "summarizing" ? 0 : state.streamed,
      };
    case "message.delta":
      return streamText(state, event);
    case "message":
      // Streamed answers are already on screen; others (tier-0 routes, run reports) arrive whole.
      return state.streamed > 0 ? flushStream(state) : push(state, { kind: "markdown", text: event.text });
    case "plan":
      // A one-sentence plan is the first sentence of what was just streamed: shown already.
      return !event.steps && state.streamed > 0 ? state : pushLines(state, event);
    case "todos":
      return { ...state, todos: event.todos };
    case "tool.call":
      return startTool(state, event);
    case "tool.result":
      return finishTool(state, event);
    case "usage":
      return {
        ...state,
        model: event.model,
        usage: addCall(state.usage, event, event.cost_usd),
        cutToFit: state.cutToFit + (event.cut_to_fit ? 1 : 0),
      };
    case "route":
      // A route that needs no model answers at once: the answer says enough.
      return event.tier === 0 ? state : pushLines(state, event);
    case "escalation":
      return pushLines({ ...state, model: event.to }, event);
    case "approval.requested":
    case "question.asked":
      // Drawn as a panel to answer, not as a line.
      return state;
    case "error":
      return pushLines(flushStream(state), event);
    case "turn.finished":
      return finishTurn(state, event);
    // How the session ended is how its last turn did; the model's thinking is its own business.
    case "session.finished":
    case "reasoning":
      return state;
    default:
      return pushLines(state, event);
  }
}

/** The event's words (eventLines.ts), as in every renderer. */
function pushLines(state: TuiState, event: CairnEvent): TuiState {
  return push(state, ...describeEvent(event).map(({ text, tone }) => line(text, tone)));
}

export function reduce(state: TuiState, action: Action): TuiState {
  switch (action.type) {
    case "ui.user":
      return push(state, { kind: "user", text: action.text });
    case "ui.block":
      return push(state, { kind: "block", title: action.title, text: action.text });
    case "ui.line":
      return push(state, line(action.text, action.tone));
    case "ui.info":
      return {
        ...state,
        ...(action.model ? { model: action.model } : {}),
        ...(action.approval ? { approval: action.approval } : {}),
        ...(action.sessionId ? { sessionId: action.sessionId } : {}),
      };
    case "ui.printed":
      if (action.key !== state.transcript.key) return state;
      return {
        ...state,
        transcript: { key: action.key + 1, items: state.transcript.items.slice(action.count) },
      };
    case "ui.reprint":
      return {
        ...state,
        transcript: { key: state.transcript.key + 1, items: [...action.items, ...state.transcript.items] },
      };
    case "ui.replayed":
      return {
        ...flushStream(state),
        busy: false,
        status: null,
        running: [],
        agents: [],
        turnStartedAt: null,
      };
    case "ui.reset": {
      const { model, approval, sessionId, workspace } = state;
      return {
        ...initialState({ model, approval, sessionId, workspace }),
        nextId: state.nextId,
        transcript: { key: state.transcript.key + 1, items: [] },
      };
    }
    default:
      return reduceEvent(state, action);
  }
}
