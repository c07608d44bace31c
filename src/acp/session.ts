import type {
  AgentContext,
  AvailableCommand,
  ClientCapabilities,
  ContentBlock,
  PromptResponse,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from "@agentclientprotocol/sdk";
import { type Conversation, openConversation } from "../agent/conversation.js";
import { type ConfigFlags, dataDir } from "../config/load.js";
import type { ApprovalMode } from "../config/schema.js";
import type { EndingReason, RunResult, RunStatus, StampedEvent, UsageTotals } from "../events/types.js";
import { addCall, emptyUsage } from "../model/usage.js";
import { storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import type { CallRef } from "../tools/types.js";
import {
  CHAT_COMMANDS,
  type ChatCommand,
  type ChatHost,
  commandNames,
  customChatCommands,
  SKILLS_COMMAND,
} from "../ui/chatCommands.js";
import { warnUntrusted } from "../ui/trustNotice.js";
import { findCommand, parseCommand } from "../ui/tui/commands.js";
import { type Asker, askPermission, askQuestion } from "./asking.js";
import { editorAccess, type TerminalStarted } from "./editor.js";
import { readPrompt } from "./prompt.js";
import { UpdateTranslator } from "./updates.js";

/** cairn's approval modes as the editor's session modes. */
const MODES: Record<ApprovalMode, { name: string; description: string }> = {
  ask: { name: "Ask", description: "asks before it edits a file or runs a command" },
  "auto-edit": { name: "Auto-edit", description: "edits files without asking; asks before commands" },
  auto: {
    name: "Auto",
    description: "edits and runs sandboxed commands without asking; still asks before dangerous ones",
  },
  "read-only": { name: "Read-only", description: "reads and answers; changes nothing" },
};

/** The chat's slash commands that make sense in an editor, offered as its available commands. */
const EDITOR_COMMANDS: ChatCommand[] = [
  CHAT_COMMANDS.model,
  CHAT_COMMANDS.run,
  CHAT_COMMANDS.cost,
  CHAT_COMMANDS.undo,
  CHAT_COMMANDS.compact,
  SKILLS_COMMAND,
];

/** Where and how a session's host is set up: the editor's project folder, the flags `cairn acp` was given. */
export interface AcpSessionOptions {
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  cwd: string;
  configFile?: string | undefined;
  flags: ConfigFlags;
  /** The person trusts the folder: `cairn acp --trust-workspace`, or the editor said so for this session. */
  trustWorkspace: boolean;
  env: NodeJS.ProcessEnv;
  debugLog?: string | undefined;
  /** Writes a line to cairn's log (stderr): never stdout, which carries the protocol. */
  log: (message: string) => void;
}

/**
 * One ACP session: a cairn conversation on the editor's folder, and the bridge from its events to
 * `session/update`s, approvals and questions to the editor. Every event reaches the store first
 * (the conversation subscribes it before anything else).
 */
export class AcpSession {
  readonly id: string;
  private readonly conversation: Conversation;
  /** The chat's own look at the store (/cost), beside the conversation's record. */
  private readonly store: Store;
  private readonly options: AcpSessionOptions;
  private readonly translator: UpdateTranslator;
  private readonly asker: Asker;
  /** The editor's terminal shown in each call that ran in one. */
  private readonly terminals = new Map<string, string>();
  /** The model calls of the prompt being answered, sub-agents' included. */
  private turnUsage: UsageTotals = emptyUsage();
  /** How the prompt's work ended (a message, /agent): its `turn.finished`. */
  private ended: RunResult | undefined;
  private cancelled = false;

  private constructor(id: string, conversation: Conversation, store: Store, options: AcpSessionOptions) {
    this.id = id;
    this.conversation = conversation;
    this.store = store;
    this.options = options;
    this.translator = new UpdateTranslator(() => conversation.view().workspace);
    this.asker = {
      client: options.client,
      sessionId: id,
      capabilities: options.capabilities,
      conversation,
    };
    conversation.subscribe(this.onEvent);
  }

  /** A new session in the editor's folder, or a stored one continued (`session/load`). */
  static async open(options: AcpSessionOptions, resume?: string) {
    // The editor knows the session by the id of its first cairn session, known once it opens.
    let id = resume;
    // The editor's access is lent before the AcpSession that shows its terminals exists.
    let showTerminal: TerminalStarted | undefined;
    const editor = editorAccess(
      options.client,
      () => id ?? "",
      options.capabilities,
      (terminalId, call) => showTerminal?.(terminalId, call),
    );
    const store = Store.open(storePath(options.env));
    try {
      const conversation = await openConversation({
        cwd: options.cwd,
        configFile: options.configFile,
        flags: options.flags,
        env: options.env,
        mode: "chat",
        attended: true,
        debugLog: options.debugLog,
        // Nobody is asked before the session: the editor has no place for the question yet. What
        // an untrusted folder asked for is said in the log and, at the first prompt, to the editor.
        trust: { flag: options.trustWorkspace },
        ...(editor ? { editor } : {}),
        store,
        // A new thread is stored now, so session/list shows it and session/load finds it even if
        // nothing is ever said in it.
        recordAtOnce: !resume,
      });
      try {
        const { trust } = conversation.view();
        if (trust) warnUntrusted(trust, options.log);
        if (resume) await conversation.submit({ type: "resume", session_id: resume });
        id ??= conversation.view().sessionId;
        const acp = new AcpSession(id, conversation, store, options);
        showTerminal = acp.showTerminal;
        return acp;
      } catch (error) {
        await conversation.close();
        throw error;
      }
    } catch (error) {
      store.close();
      throw error;
    }
  }

  private send(update: SessionUpdate): void {
    this.options.client.notify("session/update", { sessionId: this.id, update }).catch(() => {});
  }

  private readonly showTerminal = (terminalId: string, call: CallRef | undefined): void => {
    const toolCallId = call && this.translator.call(call)?.id;
    if (!toolCallId) return;
    this.terminals.set(toolCallId, terminalId);
    this.send({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
  };

  private readonly onEvent = (event: StampedEvent): void => {
    for (const update of this.translator.translate(event, true, (id) => this.terminals.get(id)))
      this.send(update);
    switch (event.type) {
      case "usage":
        this.turnUsage = addCall(this.turnUsage, event, event.cost_usd);
        return;
      case "approval.requested":
        void this.approve(event);
        return;
      case "question.asked":
        askQuestion(this.asker, event).catch((error: unknown) => this.options.log(String(error)));
        return;
      case "turn.finished":
        if (!event.agent) this.ended = event.result;
        return;
      case "retry":
        this.options.log(`retrying in ${event.delay_ms} ms (${event.reason}, attempt ${event.attempt})`);
        return;
      case "error":
        if (!event.fatal) this.options.log(event.message);
        return;
    }
  };

  private async approve(event: Extract<StampedEvent, { type: "approval.requested" }>): Promise<void> {
    // The approval names the agent whose call it is, as the call did.
    const view = this.translator.call({
      callId: event.call_id,
      ...(event.agent ? { agent: event.agent } : {}),
    });
    const toolCallId = view?.id ?? event.call_id;
    try {
      const choice = await askPermission(this.asker, event, {
        toolCallId,
        title: view?.title ?? event.prompt.summary,
        ...(view ? { kind: view.kind } : {}),
        status: "pending",
      });
      // A question that is no tool call of the model's (starting a workspace's MCP server) has no
      // call on the editor's screen to update.
      if (choice !== "deny" && view)
        this.send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    } catch (error) {
      this.options.log(`approval of ${event.prompt.summary} failed: ${String(error)}`);
    }
  }

  /** The approval modes, and the one the session is in. */
  modes(): SessionModeState {
    return {
      currentModeId: this.conversation.view().approval,
      availableModes: Object.entries(MODES).map(([id, mode]) => ({ id, ...mode })),
    };
  }

  setMode(mode: ApprovalMode): void {
    void this.conversation.submit({ type: "override", approval: mode });
  }

  /** cairn's commands for an editor, then the person's and the project's own (`.cairn/commands/*.md`). */
  private get commands(): ChatCommand[] {
    const taken = commandNames(EDITOR_COMMANDS);
    return [...EDITOR_COMMANDS, ...customChatCommands(this.conversation, taken).commands];
  }

  /** Tells the editor which slash commands there are; sent once the session exists for it. */
  announceCommands(): void {
    const availableCommands: AvailableCommand[] = this.commands.map((command) => ({
      name: command.name,
      description: command.summary,
      ...(command.args ? { input: { hint: command.args } } : {}),
    }));
    this.send({ sessionUpdate: "available_commands_update", availableCommands });
  }

  /** A stored session's history, as the updates it made: what was asked, done and answered. */
  replay(events: readonly StampedEvent[]): void {
    const replayed = new UpdateTranslator(() => this.conversation.view().workspace);
    for (const event of events) for (const update of replayed.translate(event, false)) this.send(update);
  }

  private get chat(): ChatHost {
    return { conversation: this.conversation, store: this.store, dataDir: dataDir(this.options.env) };
  }

  private async runCommand(command: ChatCommand, arg: string): Promise<void> {
    const reply = await command.run(this.chat, arg);
    if (!reply) return;
    const text = reply.title ? `\`\`\`\n${reply.text}\n\`\`\`` : reply.text;
    this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  /** How the turn ended, in the protocol's words: from its result's status and reason code. */
  private stopReason(): StopReason {
    if (this.cancelled || this.ended?.status === "cancelled") return "cancelled";
    switch (this.ended?.reason) {
      case "output_cap":
      case "token_cap":
        return "max_tokens";
      case "refused":
        return "refusal";
      case "tool_call_cap":
      case "iteration_cap":
      case "cost_cap":
      case "time_cap":
        return "max_turn_requests";
      default:
        return "end_turn";
    }
  }

  /**
   * How the turn ended in cairn's words, beside the protocol's stop reason: an `end_turn` whose
   * changes nothing checked is `unverified`, which an editor can say.
   */
  private ending(): { status?: RunStatus; reason?: EndingReason } {
    return this.ended ? { status: this.ended.status, reason: this.ended.reason } : {};
  }

  /** The context window's use and the session's cost so far, where the protocol shows them. */
  private reportUsage(): void {
    const { model, usage, lastCall } = this.conversation.view();
    this.send({
      sessionUpdate: "usage_update",
      used: lastCall ? lastCall.input_tokens + lastCall.output_tokens : 0,
      size: model.info.contextWindow,
      ...(usage.cost_usd !== null ? { cost: { amount: usage.cost_usd, currency: "USD" } } : {}),
    });
  }

  /** `session/prompt`: a message (or a slash command) as one turn of the chat. */
  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    this.cancelled = false;
    this.ended = undefined;
    this.turnUsage = emptyUsage();
    const { workspace, model } = this.conversation.view();
    const message = readPrompt(blocks, workspace, model.info.images);
    const plain = message.attachments.length === 0 && message.images.length === 0;
    const parsed = plain ? parseCommand(message.text) : undefined;
    const command = parsed && findCommand(this.commands, parsed.name);
    if (command && parsed) await this.runCommand(command, parsed.arg);
    else
      await this.conversation.submit({
        type: "user_input",
        mode: "chat",
        text: message.text,
        attachments: message.attachments,
        images: message.images,
      });
    this.reportUsage();
    return { stopReason: this.stopReason(), _meta: { cairn: { usage: this.turnUsage, ...this.ending() } } };
  }

  /** `session/cancel`: stops the model call and any running command now, keeping what was done. */
  cancel(): void {
    this.cancelled = this.conversation.view().status !== "idle" || this.cancelled;
    void this.conversation.submit({ type: "interrupt" });
  }

  async close(): Promise<void> {
    await this.conversation.close();
    this.store.close();
  }
}
