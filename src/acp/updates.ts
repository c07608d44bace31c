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
import type { EvaluatedCode, EventOf, Permission, StampedEvent, ToolData } from "../events/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import { describeEvent } from "../ui/eventLines.js";

/** Kinds the tool's name says better than its permission class does. */
const KIND_BY_NAME: Record<string, ToolKind> = {
  grep: "search",
  search_files: "search",
  list_files: "search",
  file_tree: "search",
  explore_codebase: "search",
  delete_file: "delete",
  move_file: "move",
  todo_write: "think",
  consult: "think",
  ask_user: "other",
  task: "other",
};

const KIND_BY_PERMISSION: Record<Permission, ToolKind> = {
  read: "read",
  write: "edit",
  exec: "execute",
  network: "fetch",
  // A call that reads a file that looks like a secret.
  secret: "read",
};

/** How an editor should show a call (its icon): from the tool's name, else its permission class. */
export function toolKind(tool: string, permission: Permission | null): ToolKind {
  return KIND_BY_NAME[tool] ?? (permission ? KIND_BY_PERMISSION[permission] : "other");
}

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
  private readonly registry: () => ToolRegistry;
  /** Calls by cairn's key (the sub-agent and the model's call id). */
  private readonly calls = new Map<string, CallView>();
  private readonly used = new Set<string>();
  /** The answer being written was streamed, so its whole text is not sent again. */
  private streamed = false;

  constructor(workspace: () => string, registry: () => ToolRegistry) {
    this.workspace = workspace;
    this.registry = registry;
  }

  private absolute(file: string): string {
    return path.resolve(this.workspace(), file);
  }

  /**
   * A call by the id its tool context or its approval carries, which says nothing of the
   * sub-agent that made it: the session's own call by that id, else a sub-agent's.
   */
  call(callId: string): CallView | undefined {
    const own = this.calls.get(callId);
    if (own) return own;
    return [...this.calls].find(([key]) => key.endsWith(`/${callId}`))?.[1];
  }

  /** The places a call's arguments name, and what a write proposes to change. */
  preview(event: EventOf<"tool.call">): { locations: ToolCallLocation[]; content: ToolCallContent[] } {
    const tool = this.registry().get(event.tool);
    const parsed = tool?.schema.safeParse(event.args);
    const touches = parsed?.success ? tool?.touches?.(parsed.data) : undefined;
    // The workspace itself (a search of all of it) is no place to follow the agent to.
    const locations = (touches?.paths ?? [])
      .map((file) => ({ path: this.absolute(file) }))
      .filter((location) => location.path !== this.workspace());
    const content: ToolCallContent[] = [];
    const { change, command, code } = touches ?? {};
    if (change && tool?.permission === "write") {
      content.push({
        type: "diff",
        path: this.absolute(change.path),
        oldText: change.old_text,
        newText: change.new_text,
      });
    }
    if (command) content.push(fenced(`$ ${command.text}`));
    if (code) content.push({ type: "content", content: { type: "text", text: fencedCode(code) } });
    return { locations, content };
  }

  private startCall(event: Extract<StampedEvent, { type: "tool.call" }>): SessionUpdate {
    const key = event.agent ? `${event.agent}/${event.call_id}` : event.call_id;
    // Ids the model or cairn gives may come back in a later message (`mention-1`): each call is its own.
    let id = key;
    for (let n = 2; this.used.has(id); n++) id = `${key}#${n}`;
    this.used.add(id);
    const target = this.registry().describe(event.tool, event.args).replace(/\s+/g, " ");
    const title = `${event.agent ? `[${event.agent}] ` : ""}${event.tool}${target ? ` ${target}` : ""}`;
    const view: CallView = { id, tool: event.tool, kind: toolKind(event.tool, event.permission), title };
    this.calls.set(key, view);
    return {
      sessionUpdate: "tool_call",
      toolCallId: id,
      title,
      kind: view.kind,
      status: "pending",
      rawInput: event.args,
      ...this.preview(event),
    };
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

  /**
   * The updates an event makes. `live`: as it happens (the answer streams, the person's own
   * message is already on their screen); otherwise replayed from the store.
   */
  translate(
    event: StampedEvent,
    live: boolean,
    terminalOf?: (callId: string) => string | undefined,
  ): SessionUpdate[] {
    const text = (
      kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
      body: string,
    ) =>
      body
        ? [{ sessionUpdate: kind, content: { type: "text" as const, text: body } } satisfies SessionUpdate]
        : [];
    switch (event.type) {
      case "session.started":
        return live ? [] : text("user_message_chunk", event.task);
      case "status":
        if (event.status === "thinking") this.streamed = false;
        return [];
      case "message.delta":
        if (!live || event.agent) return [];
        this.streamed = true;
        return text("agent_message_chunk", event.text);
      case "message": {
        if (event.agent) return [];
        const streamed = live && this.streamed;
        this.streamed = false;
        return streamed ? [] : text("agent_message_chunk", event.text);
      }
      case "reasoning":
        return event.agent ? [] : text("agent_thought_chunk", event.text);
      case "tool.call":
        return [this.startCall(event)];
      case "tool.result": {
        const key = event.agent ? `${event.agent}/${event.call_id}` : event.call_id;
        const view = this.calls.get(key);
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
      case "todos":
        return [
          {
            sessionUpdate: "plan",
            entries: event.todos.map((todo) => ({
              content: todo.content,
              status: todo.status,
              priority: todo.priority ?? "medium",
            })),
          },
        ];
      case "plan":
        return event.steps?.length ? text("agent_thought_chunk", `Plan: ${event.summary}\n`) : [];
      case "validation":
        return text("agent_thought_chunk", `Checks: ${event.summary}\n`);
      case "review":
        return text(
          "agent_thought_chunk",
          `Review: ${event.ready ? "ready" : "not ready"}, quality ${event.quality}/10\n`,
        );
      case "escalation":
        return text("agent_thought_chunk", `Now on ${event.to}: ${event.reason}\n`);
      case "compaction":
        return text(
          "agent_message_chunk",
          `Compacted the conversation: ${event.before_tokens} → ${event.after_tokens} tokens.\n`,
        );
      case "error":
        return event.fatal ? text("agent_message_chunk", `\n\n**Stopped:** ${event.message}\n`) : [];
      case "retry":
        return text(
          "agent_thought_chunk",
          `The provider failed (${event.reason}); trying again in ${Math.ceil(event.delay_ms / 1000)} s.\n`,
        );
      case "agent.status": {
        const who = event.agent ?? event.name;
        if (event.status === "running") return text("agent_thought_chunk", `${who} started: ${event.task}\n`);
        return text(
          "agent_thought_chunk",
          `${who}: ${event.status}${event.detail ? ` (${event.detail})` : ""}\n`,
        );
      }
      case "workspace.trust":
        return event.trusted
          ? []
          : text(
              "agent_thought_chunk",
              `${describeEvent(event)
                ?.map((l) => l.text)
                .join("\n")}\n`,
            );
      case "mcp.server":
        return event.status === "failed"
          ? text(
              "agent_thought_chunk",
              `MCP server ${event.server} failed: ${event.message ?? "no reason given"}\n`,
            )
          : [];
      // Shown another way (approvals and questions are requests of their own, costs per turn in the
      // prompt's response), or the session's bookkeeping, which an editor has no place for.
      case "approval.requested":
      case "approval.resolved":
      case "question":
      case "question.asked":
      case "question.answered":
      case "usage":
      case "route":
      case "intent":
      case "repair":
      case "progress":
      case "session.resumed":
      case "session.finished":
        return [];
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  }
}
