import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { ModelMessage } from "ai";
import type { ApprovalMode } from "../config/schema.js";
import { History } from "../context/history.js";
import type { EventListener } from "../events/bus.js";
import type { StampedEvent } from "../events/types.js";
import { modelInfo } from "../model/catalog.js";
import { createLanguageModel, type ModelRole } from "../model/providers.js";
import type { AskApproval } from "../safety/approval.js";
import type { CompactionStats } from "./compact.js";
import { executeToolCall, prepareToolCall } from "./dispatch.js";
import { announce, doTask } from "./doTask.js";
import { answerByPattern } from "./route.js";
import { runTask } from "./runTask.js";
import type { AgentSession, ModelHandle } from "./session.js";
import { type Outcome, settle } from "./settle.js";
import { ToolLoop } from "./toolLoop.js";

/** Builds a session for the chat: a new one, or a stored one to continue. */
export type SessionFactory = (resume?: { id: string; events: StampedEvent[] }) => Promise<AgentSession>;

const ROLES: readonly ModelRole[] = ["default", "cheap", "strong", "review"];

/** The person's own `!command` is approved by their typing it. */
const typedByThePerson: AskApproval = async () => ({ choice: "once" });

/** `@path` in a message: a file (or folder) of the workspace the person wants the model to see. */
const MENTION = /(^|\s)@([^\s@]+)/g;

function mentionedPaths(text: string, workspace: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const mention = (match[2] ?? "").replace(/[.,;:!?)]+$/, "");
    const full = path.resolve(workspace, mention);
    if (mention && existsSync(full)) found.add(mention);
  }
  return [...found];
}

/**
 * A conversation with the agent: one session and one tool loop, so each message continues the
 * same history (DESIGN.md: chat is a sequence of `do` turns over one history). Each turn is
 * announced and settled like `cairn do`, so it is stored and rendered the same way; /do and
 * /agent run the existing loops on the same session, and what they found is passed on to the
 * conversation. The engine never prints: everything it does is an event.
 */
export class ChatEngine {
  session!: AgentSession;
  private loop!: ToolLoop;
  private readonly newSession: SessionFactory;
  /** Each listener with its subscription to the current session's bus. */
  private readonly listeners = new Map<EventListener, () => void>();
  private approval: ApprovalMode | undefined;
  private current: { controller: AbortController; done: Promise<unknown> } | undefined;
  private started = false;
  private steps = 0;
  /** What the model should hear with the next message: interruptions, commands the person ran. */
  private notes: string[] = [];

  private constructor(newSession: SessionFactory) {
    this.newSession = newSession;
  }

  static async start(newSession: SessionFactory): Promise<ChatEngine> {
    const engine = new ChatEngine(newSession);
    engine.adopt(await newSession(), new History(), false);
    return engine;
  }

  get approvalMode(): ApprovalMode {
    return this.session.policy.mode;
  }

  /** Listens to the events of this chat, across /clear and /resume (each a session of its own). */
  subscribe(listener: EventListener): () => void {
    this.listeners.set(listener, this.session.bus.subscribe(listener));
    return () => {
      this.listeners.get(listener)?.();
      this.listeners.delete(listener);
    };
  }

  private adopt(session: AgentSession, history: History, started: boolean): void {
    for (const [listener, off] of this.listeners) {
      off();
      this.listeners.set(listener, session.bus.subscribe(listener));
    }
    this.session = session;
    this.started = started;
    this.notes = [];
    if (this.approval) session.policy = session.policy.with({ mode: this.approval });
    this.loop = new ToolLoop(session, {
      phase: "execution",
      maxToolCalls: session.config.max_tool_calls,
      announcePlan: true,
      history,
    });
  }

  /**
   * Runs one piece of work under a signal of its own: Esc stops that work and the chat goes on.
   * The session's signal is swapped because every model call and tool reads it from there.
   */
  private async exclusive<T>(label: string, work: () => Promise<T>): Promise<T> {
    if (this.current) throw new Error("cairn is still working on the last message");
    // Checkpoints are per step: /undo takes back one message's changes at a time.
    this.session.stepLabel = `${++this.steps}. ${label.replace(/\s+/g, " ").slice(0, 60)}`;
    const controller = new AbortController();
    const { deadline } = this.session;
    const signal = deadline ? AbortSignal.any([controller.signal, deadline]) : controller.signal;
    this.session.signal = signal;
    this.session.toolContext.signal = signal;
    const done = work();
    this.current = { controller, done };
    try {
      return await done;
    } finally {
      this.current = undefined;
      if (controller.signal.aborted) {
        this.notes.push(
          "[The user interrupted what you were doing. What was done until then is kept; the files are as they are now.]",
        );
      }
    }
  }

  /** Stops the current work, keeping what it did. False when there was nothing to stop. */
  interrupt(): boolean {
    if (!this.current) return false;
    this.current.controller.abort(new Error("interrupted by the user"));
    return true;
  }

  /** Stops whatever runs and waits until it has settled, so its end is stored. */
  async close(): Promise<void> {
    const running = this.current?.done;
    this.interrupt();
    await running?.catch(() => undefined);
  }

  /** Something the model should know with the next message, such as files the person put back. */
  tell(note: string): void {
    this.notes.push(`[${note}]`);
  }

  private withNotes(text: string): string {
    const notes = this.notes.splice(0);
    return notes.length ? `${notes.join("\n\n")}\n\n${text}` : text;
  }

  private begin(task: string): void {
    this.started = true;
    announce(this.session, task);
  }

  /** Reads the files and folders a message mentions, as tool calls the person can see. */
  private async attachments(text: string): Promise<string> {
    const parts: string[] = [];
    for (const [i, mention] of mentionedPaths(text, this.session.workspace).entries()) {
      const folder = statSync(path.resolve(this.session.workspace, mention)).isDirectory();
      const call = prepareToolCall(this.session, {
        id: `mention-${i + 1}`,
        name: folder ? "file_tree" : "read_file",
        input: { path: mention },
      });
      const result = await executeToolCall(this.session, call);
      if (result.ok)
        parts.push(`<attached ${folder ? "folder" : "file"}="${mention}">\n${result.text}\n</attached>`);
    }
    return parts.length ? `\n\n${parts.join("\n\n")}` : "";
  }

  /** One message of the conversation: answered with the tools, in the same history as the last. */
  send(text: string): Promise<Outcome> {
    return this.exclusive(text, () => {
      this.begin(text);
      return settle(
        this.session,
        async () => {
          const direct = await answerByPattern(this.session, text);
          if (direct) {
            this.loop.history.add({ role: "user", content: text }, { role: "assistant", content: direct });
            return { status: "completed", summary: direct, iterations: 1 };
          }
          const outcome = await this.loop.run(this.withNotes(text + (await this.attachments(text))));
          return { status: outcome.status, summary: outcome.answer || outcome.reason || "", iterations: 1 };
        },
        () => 1,
      );
    });
  }

  /** /agent and /do: the autonomous or one-shot loop on a task, told to the conversation after. */
  runTask(kind: "agent" | "do", task: string): Promise<Outcome> {
    return this.exclusive(`/${kind} ${task}`, async () => {
      this.started = true;
      const outcome = await (kind === "agent" ? runTask : doTask)(this.session, task);
      this.notes.push(
        `[Meanwhile the user had you run /${kind} on: ${task}\nIt ended ${outcome.result.status}: ${outcome.result.summary}]`,
      );
      return outcome;
    });
  }

  /**
   * `!command`: the person runs a command themselves, as a turn of its own so it is stored and
   * shown like any other; the model sees it with the next message.
   */
  shell(command: string): Promise<Outcome> {
    const line = `!${command}`;
    return this.exclusive(line, () => {
      this.begin(line);
      return settle(
        this.session,
        async () => {
          const { policy } = this.session;
          const call = prepareToolCall(this.session, {
            id: `user-${Date.now()}`,
            name: "run_command",
            input: { command },
          });
          this.session.policy = policy.with({ mode: "ask", ask: typedByThePerson });
          try {
            const result = await executeToolCall(this.session, call);
            this.notes.push(`[The user ran \`${command}\` themselves:\n${result.text}]`);
            return { status: result.ok ? "completed" : "failed", summary: result.text, iterations: 1 };
          } finally {
            this.session.policy = policy;
          }
        },
        () => 1,
      );
    });
  }

  /** /model: a role of the config (cheap, strong, …) or any provider/model id. */
  async switchModel(ref: string): Promise<ModelHandle> {
    const role = ROLES.find((r) => r === ref);
    const handle: ModelHandle = role
      ? await this.session.modelFor(role)
      : {
          id: ref,
          model: await createLanguageModel(ref, this.session.config),
          info: modelInfo(ref, this.session.config),
        };
    const from = this.session.model.id;
    this.session.model = handle;
    this.loop.model = handle;
    // Before the first message there is no session in the store for an event to belong to.
    if (this.started && from !== handle.id)
      this.session.bus.emit({ type: "escalation", from, to: handle.id, reason: "switched by the user" });
    return handle;
  }

  setApproval(mode: ApprovalMode): void {
    this.approval = mode;
    this.session.policy = this.session.policy.with({ mode });
  }

  /** /compact: shrinks the conversation now instead of when the window fills. */
  compact(): Promise<CompactionStats | undefined> {
    return this.exclusive("/compact", async () => {
      if (!this.started) return undefined;
      return this.loop.compact();
    });
  }

  /** /clear: a new conversation, in a new session. */
  async clear(): Promise<void> {
    this.adopt(await this.newSession(), new History(), false);
  }

  /** /resume: continues a stored conversation, its history rebuilt from its events. */
  async resume(id: string, events: StampedEvent[]): Promise<void> {
    this.adopt(await this.newSession({ id, events }), historyFromEvents(events), true);
  }
}

/**
 * A conversation's history as the model saw it, from its event log: each turn's message (the
 * task of its `session.started`) and the answer it ended with. Tool calls in between are left
 * out; the answers say what they found.
 */
export function historyFromEvents(events: readonly StampedEvent[]): History {
  const history = new History();
  let answer: string | undefined;
  const close = () => {
    if (answer !== undefined) history.add({ role: "assistant", content: answer || "(no answer)" });
    answer = undefined;
  };
  for (const event of events) {
    if (event.type === "session.started") {
      close();
      history.add({ role: "user", content: event.task } satisfies ModelMessage);
      answer = "";
    }
    if (event.type === "message" && answer !== undefined) answer = event.text;
  }
  close();
  return history;
}
