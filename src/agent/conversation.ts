/**
 * The one door: every front end — the CLI, the terminal UI, an editor over ACP, the HTTP server,
 * `cairn mcp serve` — drives cairn through a conversation and nothing else of src/agent
 * (a dependency-cruiser rule holds them to it). It takes ops (`submit`) and answers with events
 * (`subscribe`); `view()` says where it stands, derived from its event log; `close()` ends it.
 * Codex's `CodexConversation` is the model: a conversation lives on a host (the config, the
 * store) and moves from session to session as it is cleared or resumed.
 */

import type { ApprovalMode, Config } from "../config/schema.js";
import type { WorkspaceTrust } from "../config/trust/decide.js";
import { History } from "../context/history.js";
import type { EventListener } from "../events/bus.js";
import type { Mode, Op, OpOf } from "../events/types.js";
import type { CommandCatalog } from "../extensions/customCommands.js";
import type { SkillCatalog } from "../extensions/skills.js";
import type { ServerState } from "../mcp/hub.js";
import type { ModelInfo } from "../model/catalog.js";
import type { Store } from "../store/sessions.js";
import { Chat, historyFromEvents } from "./chat.js";
import type { CompactionStats } from "./compact.js";
import { emptyLogView, foldView, type LogView, storedView } from "./conversationView.js";
import { type Host, type HostOptions, openHost } from "./host.js";
import { resumePoint } from "./resume.js";
import type { Session } from "./session.js";
import { announceSession, type Outcome } from "./settle.js";

export type { Attachment } from "./chat.js";
export type { LogView, PendingRequest } from "./conversationView.js";
export { storedView } from "./conversationView.js";
export { workspaceContributions } from "./host.js";
export { AnswerError } from "./inbox.js";
export { imageLabel, isImagePath } from "./mentions.js";
export { routeByPattern } from "./route.js";
export type { Outcome } from "./settle.js";

export interface ConversationOptions extends HostOptions {
  /** The id of its first session, as its caller chose it (the HTTP API's `session_id`); a new one otherwise. */
  sessionId?: string;
  /**
   * Record the first session at once (its `session.started`, with no task yet): an editor lists
   * and reopens a thread it has just opened, whether or not anything was said in it.
   */
  recordAtOnce?: boolean;
}

/**
 * Where a conversation stands: what its log says (`LogView`: what waits for a person, whether it
 * is at work, the TODO list, the spending, how it last ended), and what its session is and
 * offers — its workspace, its own agent's model and approval mode, its custom commands, skills and
 * MCP servers. A front end reads this instead of the session.
 */
export interface ConversationView extends LogView {
  sessionId: string;
  mode: Mode;
  workspace: string;
  /** The model the next message goes to. */
  model: { id: string; info: ModelInfo };
  approval: ApprovalMode;
  /** Whether the workspace is trusted, and what of its own files applied or was left out. */
  trust: WorkspaceTrust | undefined;
  config: Config;
  /** The person's and the project's own slash commands (`.cairn/commands/*.md`). */
  commands: CommandCatalog;
  skills: SkillCatalog;
  /** The MCP servers and how each stands: not started until the first message that offers tools. */
  servers: readonly ServerState[];
}

/** The ops that are a piece of work of the conversation, each settled into an outcome. */
export type WorkOp = OpOf<"user_input" | "shell" | "command">;

/** A conversation with the agent: the one way a front end drives cairn. */
export interface Conversation {
  /** Work: resolved with how it ended. */
  submit(op: WorkOp): Promise<Outcome>;
  /** `compact`: what it shrank, or nothing when there was nothing to shrink. */
  submit(op: OpOf<"compact">): Promise<CompactionStats | undefined>;
  /** `resume`: a do or run taken up is work, resolved with how it ended; a chat goes on at the next message. */
  submit(op: OpOf<"resume">): Promise<Outcome | undefined>;
  /** Any other op acts at once. */
  submit(op: Op): Promise<Outcome | CompactionStats | undefined>;
  /** Hears every event of the conversation, across a /clear or a resume (each a session of its own). */
  subscribe(listener: EventListener): () => void;
  view(): ConversationView;
  /** Stops what runs, ends the session (its end is stored) and lets its host go. */
  close(): Promise<void>;
}

/**
 * Opens a conversation: the config loaded and merged for the workspace, the model resolved, the
 * store subscribed before any listener (so every event is on disk before it is shown), and its
 * first session.
 */
export async function openConversation(options: ConversationOptions): Promise<Conversation> {
  const host = await openHost(options);
  try {
    const conversation = new HostedConversation(host.open, host.store, host.close);
    await conversation.start(options.sessionId);
    if (options.recordAtOnce) conversation.record();
    return conversation;
  } catch (error) {
    await host.close();
    throw error;
  }
}

/**
 * A conversation on the sessions `open` makes, for a caller that makes its sessions itself (the
 * terminal UI's benchmark); with no store to read, it cannot resume one. Closing it closes the
 * session it is on.
 */
export async function conversationOn(open: Host["open"]): Promise<Conversation> {
  const conversation: HostedConversation = new HostedConversation(open, undefined, () =>
    conversation.current.close(),
  );
  await conversation.start(undefined);
  return conversation;
}

class HostedConversation implements Conversation {
  private readonly chat = new Chat();
  private readonly open: Host["open"];
  private readonly store: Store | undefined;
  private readonly release: () => Promise<void>;
  /** Each listener with its subscription to the current session's bus. */
  private readonly listeners = new Map<EventListener, () => void>();
  /** What the log says so far, for `view()`. */
  private log: LogView = emptyLogView();
  private unfold: (() => void) | undefined;
  /** The approval mode the person chose: a /clear or a resume keeps it. */
  private approval: ApprovalMode | undefined;
  private closing: Promise<void> | undefined;

  constructor(open: HostedConversation["open"], store: Store | undefined, release: () => Promise<void>) {
    this.open = open;
    this.store = store;
    this.release = release;
  }

  /** The session it is on now. */
  get current(): Session {
    return this.chat.session;
  }

  async start(id: string | undefined): Promise<void> {
    this.adopt(await this.open(undefined, id), new History(), emptyLogView());
  }

  /** Records the session now, before its first message. */
  record(): void {
    announceSession(this.chat.session, "");
  }

  /** Goes on in `session`: its log folded into the view first, then every listener told. */
  private adopt(session: Session, history: History, log: LogView): void {
    this.chat.adopt(session, history);
    if (this.approval) session.main.policy = session.main.policy.with({ mode: this.approval });
    this.unfold?.();
    this.log = log;
    this.unfold = session.bus.subscribe((event) => {
      this.log = foldView(this.log, event);
    });
    for (const [listener, off] of this.listeners) {
      off();
      this.listeners.set(listener, session.bus.subscribe(listener));
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.set(listener, this.chat.session.bus.subscribe(listener));
    return () => {
      this.listeners.get(listener)?.();
      this.listeners.delete(listener);
    };
  }

  view(): ConversationView {
    const { session } = this.chat;
    const { model, policy } = session.main;
    const { pending, activity } = this.log;
    return {
      ...this.log,
      // At work from the moment work is taken up, before its turn is announced.
      status: pending.length ? "waiting" : activity || this.chat.busy ? "working" : "idle",
      sessionId: session.id,
      mode: session.mode,
      workspace: session.workspace,
      model: { id: model.id, info: model.info },
      approval: policy.mode,
      trust: session.trust,
      config: session.config,
      commands: session.found.commands,
      skills: session.found.skills,
      servers: session.mcp?.servers ?? [],
    };
  }

  submit(op: WorkOp): Promise<Outcome>;
  submit(op: OpOf<"compact">): Promise<CompactionStats | undefined>;
  submit(op: OpOf<"resume">): Promise<Outcome | undefined>;
  submit(op: Op): Promise<Outcome | CompactionStats | undefined>;
  async submit(op: Op): Promise<Outcome | CompactionStats | undefined> {
    const { chat } = this;
    switch (op.type) {
      case "user_input":
        return op.mode === "chat"
          ? chat.message({
              shown: op.text,
              prompt: op.text,
              attachments: op.attachments ?? [],
              images: op.images ?? [],
            })
          : chat.task(op.mode, op.text, {
              ...(op.agent ? { agent: op.agent } : {}),
              ...(op.images?.length ? { images: op.images } : {}),
              ...(op.greetings_to_model ? { chitchat: false } : {}),
              ...(op.context ? { context: op.context } : {}),
            });
      case "shell":
        return chat.shell(op.command);
      case "command":
        return chat.command(this.customCommand(op.name), op.arguments ?? "", {
          mode: op.mode ?? "chat",
          agent: op.agent,
        });
      case "compact":
        return chat.compact();
      case "interrupt":
        chat.interrupt(op.reason);
        return undefined;
      case "note":
        chat.tell(op.text);
        return undefined;
      case "override":
        // The approval mode outlives the session: /clear keeps it.
        if (op.approval) this.approval = op.approval;
        await chat.session.submit(op);
        return undefined;
      case "approve":
      case "answer":
        await chat.session.submit(op);
        return undefined;
      case "clear":
        this.adopt(await this.open(), new History(), emptyLogView());
        return undefined;
      case "resume":
        return this.resume(op.session_id);
      default: {
        const unknown: never = op;
        throw new Error(`unknown op ${JSON.stringify(unknown)}`);
      }
    }
  }

  private customCommand(name: string) {
    const command = this.chat.session.found.commands.commands.get(name);
    if (!command) throw new Error(`there is no command /${name} here; /help lists the commands there are.`);
    return command;
  }

  /**
   * A stored session, continued under its own id where its log ends: a chat goes on from its
   * history (its next message continues it); an interrupted do or run takes its work up where it
   * stood, the one place that reads where (`resumePoint`).
   */
  private async resume(ref: string): Promise<Outcome | undefined> {
    if (!this.store) throw new Error("this conversation keeps no store: it has no session to resume");
    const found = this.store.requireSession(ref);
    const events = this.store.events(found.id);
    const session = await this.open({ id: found.id, events });
    const chat = session.mode === "chat";
    this.adopt(session, chat ? historyFromEvents(events) : new History(), storedView(events));
    if (chat) return undefined;
    return this.chat.task(session.mode === "run" ? "run" : "do", found.task, {
      resume: resumePoint(events),
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.chat.close();
      this.unfold?.();
      await this.release();
    })();
    return this.closing;
  }
}
