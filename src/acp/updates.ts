import path from "node:path";
import type {
  Diff,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from "@agentclientprotocol/sdk";
import { parsePatch } from "diff";
import type { EvaluatedCode, EventOf, StampedEvent, ToolData } from "../events/types.js";
import type { CallRef } from "../tools/types.js";
import { describeEvent, turnInput } from "../ui/eventLines.js";

/** Grep hits and diff hunks shown as places in the editor: enough to follow, not every one. */
const MAX_LOCATIONS = 20;

const fenced = (text: string): ToolCallContent => ({
  type: "content",
  content: { type: "text", text: `\`\`\`\n${text.replace(/\n+$/, "")}\n\`\`\`` },
});

/** Code a call evaluates (emacs_eval), as Markdown a person reads before approving it. */
export function fencedCode(code: EvaluatedCode): string {
  return `\`\`\`${code.language}\n${code.text.replace(/\n+$/, "")}\n\`\`\``;
}

/**
 * A unified diff as the editor's diff blocks: each hunk's old and new text, context included,
 * so the editor can show the change where it is.
 */
function diffBlocks(file: string, diff: string, created: boolean): { content: Diff[]; lines: number[] } {
  const hunks = parsePatch(diff)[0]?.hunks ?? [];
  const side = (lines: string[], drop: string) =>
    lines
      .filter((line) => !line.startsWith(drop) && !line.startsWith("\\"))
      .map((line) => line.slice(1))
      .join("\n");
  return {
    content: hunks.map((hunk) => ({
      path: file,
      oldText: created ? null : side(hunk.lines, "+"),
      newText: side(hunk.lines, "-"),
    })),
    lines: hunks.map((hunk) => hunk.newStart),
  };
}

/** A call's key among those of the session: a sub-agent's model may give its calls the same ids as the main one's. */
function callKey(ref: CallRef): string {
  return ref.agent ? `${ref.agent}/${ref.callId}` : ref.callId;
}

/** Text for the editor to show as the agent's message or thought, or as the person's own; none for no text. */
function textUpdate(
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  body: string,
): SessionUpdate[] {
  return body ? [{ sessionUpdate: kind, content: { type: "text", text: body } }] : [];
}

/** The words every front end gives the event (eventLines.ts), a line each. */
function wordsOf(event: StampedEvent): string {
  return `${describeEvent(event)
    .map((l) => (event.agent ? `${event.agent} ${l.text}` : l.text))
    .join("\n")}\n`;
}

/** The TODO list as the editor's plan. */
function planUpdate(event: EventOf<"todos">): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: event.todos.map((todo) => ({
      content: todo.content,
      status: todo.status,
      priority: todo.priority ?? "medium",
    })),
  };
}

/** What a call was, remembered from its start so its result can be shown in the same place. */
interface CallView {
  /** The id the editor knows it by. */
  id: string;
  tool: string;
  kind: ToolKind;
  title: string;
}

/**
 * Turns cairn's events into ACP `session/update`s for one session: live as they happen, or
 * replayed from the store when a session is loaded. Stateful only in what the protocol needs to
 * tie together: a call's id from its start to its result, and whether an answer was streamed.
 */
export class UpdateTranslator {
  private readonly workspace: () => string;
  /** Calls by cairn's key (the sub-agent and the model's call id). */
  private readonly calls = new Map<string, CallView>();
  private readonly used = new Set<string>();
  /** The answer being written was streamed, so its whole text is not sent again. */
  private streamed = false;

  constructor(workspace: () => string) {
    this.workspace = workspace;
  }

  private absolute(file: string): string {
    return path.resolve(this.workspace(), file);
  }

  /** A call as its approval or its tool context names it: its id, and the sub-agent that made it. */
  call(ref: CallRef): CallView | undefined {
    return this.calls.get(callKey(ref));
  }

  /** The places a call acts on, as its tool said: where the editor can follow the agent. */
  private locations(event: EventOf<"tool.call">): ToolCallLocation[] {
    // The workspace itself (a search of all of it) is no place to follow the agent to.
    return (event.paths ?? [])
      .map((file) => ({ path: this.absolute(file) }))
      .filter((location) => location.path !== this.workspace());
  }

  private startCall(event: Extract<StampedEvent, { type: "tool.call" }>): SessionUpdate {
    const key = callKey({ callId: event.call_id, ...(event.agent ? { agent: event.agent } : {}) });
    // Ids the model or cairn gives may come back in a later message (`mention-1`): each call is its own.
    let id = key;
    for (let n = 2; this.used.has(id); n++) id = `${key}#${n}`;
    this.used.add(id);
    const title = `${event.agent ? `[${event.agent}] ` : ""}${event.title}`;
    const view: CallView = { id, tool: event.tool, kind: event.kind, title };
    this.calls.set(key, view);
    return {
      sessionUpdate: "tool_call",
      toolCallId: id,
      title,
      kind: view.kind,
      status: "pending",
      rawInput: event.args,
      locations: this.locations(event),
    };
  }

  /** A call's end: its status, and its diff, places and output; nothing for a call never started here. */
  private finishCall(
    event: Extract<StampedEvent, { type: "tool.result" }>,
    terminalOf?: (callId: string) => string | undefined,
  ): SessionUpdate[] {
    const view = this.call({ callId: event.call_id, ...(event.agent ? { agent: event.agent } : {}) });
    if (!view) return [];
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: view.id,
        status: event.ok ? "completed" : "failed",
        rawOutput: event.data ?? event.output,
        ...this.result(event, terminalOf?.(view.id)),
      },
    ];
  }

  /** What a finished call shows: its diff, its places with line numbers, its output. */
  private result(
    event: EventOf<"tool.result">,
    terminal?: string,
  ): Pick<ToolCallUpdate, "content" | "locations"> {
    const data: ToolData | undefined = event.data;
    if (!event.ok) return { content: [fenced(event.output)] };
    const output = terminal ? [{ type: "terminal" as const, terminalId: terminal }] : [fenced(event.output)];
    switch (data?.kind) {
      case "file_change": {
        const file = this.absolute(data.path);
        // A diff the event carries cut (src/events/cap.ts) is no patch any more: shown as text.
        if (event.cut?.some((cut) => cut.field === "data.diff"))
          return { content: [fenced(data.diff)], locations: [{ path: file }] };
        const { content, lines } = diffBlocks(file, data.diff, data.created === true);
        const locations = lines.slice(0, MAX_LOCATIONS).map((line) => ({ path: file, line }));
        return { content: content.map((diff) => ({ type: "diff", ...diff })), locations };
      }
      case "file_read":
        return { content: output, locations: [{ path: this.absolute(data.path), line: data.offset }] };
      case "grep":
        return {
          content: output,
          locations: data.hits
            .slice(0, MAX_LOCATIONS)
            .map((hit): ToolCallLocation => ({ path: this.absolute(hit.path), line: hit.line })),
        };
      default:
        return { content: output };
    }
  }

  /** The answer whole, unless it was streamed as it was written. A sub-agent's is its caller's to give. */
  private answer(event: Extract<StampedEvent, { type: "message" }>, live: boolean): SessionUpdate[] {
    if (event.agent) return [];
    const streamed = live && this.streamed;
    this.streamed = false;
    return streamed ? [] : textUpdate("agent_message_chunk", event.text);
  }

  /**
   * The updates an event makes. `live`: as it happens (the answer streams, the person's own
   * message is already on their screen); otherwise replayed from the store.
   */
  translate(
    event: StampedEvent,
    live: boolean,
    terminalOf?: (callId: string) => string | undefined,
  ): SessionUpdate[] {
    switch (event.type) {
      case "turn.started":
        return live ? [] : textUpdate("user_message_chunk", turnInput(event));
      case "status":
        if (event.status === "thinking") this.streamed = false;
        return [];
      case "message.delta":
        if (!live || event.agent) return [];
        this.streamed = true;
        return textUpdate("agent_message_chunk", event.text);
      case "message":
        return this.answer(event, live);
      case "reasoning":
        return event.agent ? [] : textUpdate("agent_thought_chunk", event.text);
      case "tool.call":
        return [this.startCall(event)];
      case "tool.result":
        return this.finishCall(event, terminalOf);
      case "todos":
        return [planUpdate(event)];
      // A one-sentence plan is what the model just said; a run's plan of steps is news.
      case "plan":
        return event.steps?.length ? textUpdate("agent_thought_chunk", wordsOf(event)) : [];
      // A failed server and an untrusted folder's left-out settings are news; the rest is not.
      case "mcp.server":
        return event.status === "failed" ? textUpdate("agent_thought_chunk", wordsOf(event)) : [];
      case "workspace.trust":
        return event.trusted ? [] : textUpdate("agent_thought_chunk", wordsOf(event));
      case "compaction":
        return textUpdate("agent_message_chunk", wordsOf(event));
      // An error that ended the work is part of the answer; a warning, a thought beside it.
      case "error":
        return event.fatal
          ? textUpdate("agent_message_chunk", `\n\n${wordsOf(event)}`)
          : textUpdate("agent_thought_chunk", wordsOf(event));
      // Shown another way: approvals and questions are requests of their own, how a turn ended is
      // the prompt's stop reason and its cost the response's usage; a replayed session's start is
      // its first message. Routing and intent are the run's own bookkeeping.
      case "session.started":
      case "session.resumed":
      case "turn.finished":
      case "session.finished":
      case "approval.requested":
      case "approval.resolved":
      case "question.asked":
      case "question.answered":
      case "usage":
      case "route":
      case "intent":
        return [];
      // Anything else is news beside the answer, in its words.
      default:
        return textUpdate("agent_thought_chunk", wordsOf(event));
    }
  }
}
