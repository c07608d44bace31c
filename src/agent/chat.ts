import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { ModelMessage } from "ai";
import type { ApprovalMode } from "../config/schema.js";
import { History } from "../context/history.js";
import type { EventListener } from "../events/bus.js";
import type { Op, OpOf, StampedEvent } from "../events/types.js";
import { type CustomCommand, expandCommand } from "../extensions/customCommands.js";
import type { AskApproval } from "../safety/approval.js";
import type { ToolImage } from "../tools/types.js";
import { RanByAgent } from "./agentChecks.js";
import type { ModelHandle } from "./agentContext.js";
import type { CompactionStats } from "./compact.js";
import { executeToolCall, prepareToolCall } from "./dispatch.js";
import { checkedEnding, doTask, fileCommandEnding, type TaskOptions } from "./doTask.js";
import { imagesToSend, isImagePath, mentions } from "./mentions.js";
import { promptThroughHooks } from "./promptHooks.js";
import type { ResumePoint } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { ResumedLog, Session } from "./session.js";
import {
  announce,
  announceSession,
  type Ending,
  finishSession,
  loopEnding,
  type Outcome,
  settle,
  type TurnInput,
} from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn, type TurnOptions } from "./turn.js";

/** Builds a session for the chat: a new one, or a stored one to continue. */
export type SessionFactory = (resume?: ResumedLog) => Promise<Session>;

/** Something the person put beside a message for the model to see: a file's text (an editor's @-mention). */
export interface Attachment {
  /** The workspace path, or where it came from. */
  name: string;
  text: string;
}

/** An attachment as the model reads it, after the message. */
function attached(kind: "file" | "folder", name: string, text: string): string {
  return `<attached ${kind}="${name}">\n${text}\n</attached>`;
}

/** The person's own `!command` is approved by their typing it. */
const typedByThePerson: AskApproval = async () => ({ choice: "once" });

/** The files and folders of the workspace a message mentions (`@path`), for the model to see; images go as images. */
function mentionedPaths(text: string, workspace: string): string[] {
  return mentions(text).filter(
    (mention) => !isImagePath(mention) && existsSync(path.resolve(workspace, mention)),
  );
}

/**
 * A conversation with the agent, and the one way a front end drives a session: it takes ops
 * (`submit`) and the session answers with events. One session and one tool loop, so each
 * message continues the same history (DESIGN.md: chat is a sequence of `do` turns over one
 * history); a `cairn do` or `cairn run` is a conversation of one turn. Each piece of work is a
 * turn, announced and settled the same way, so it is stored and rendered the same way; a do or
 * run inside a chat runs its loop on the same session, and what it found is passed on to the
 * conversation. The engine never prints: everything it does is an event.
 */
export class ChatEngine {
  session!: Session;
  private loop!: ToolLoop;
  private readonly newSession: SessionFactory;
  /** Each listener with its subscription to the current session's bus. */
  private readonly listeners = new Map<EventListener, () => void>();
  private approval: ApprovalMode | undefined;
  private current: Promise<unknown> | undefined;
  /** How the session's last turn ended: what the session ends with when it is left. */
  private lastEnding: Ending | undefined;
  private interrupted = false;
  private steps = 0;
  /** What the model should hear with the next message: interruptions, commands the person ran. */
  private notes: string[] = [];
  /**
   * Whether the conversation has begun: any message, /do, /run or !command run in it (or a
   * resumed history). Until then a greeting may be answered without the model.
   */
  private begun = false;

  private constructor(newSession: SessionFactory) {
    this.newSession = newSession;
  }

  static async start(newSession: SessionFactory): Promise<ChatEngine> {
    const engine = new ChatEngine(newSession);
    engine.adopt(await newSession(), new History());
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

  private adopt(session: Session, history: History): void {
    this.finishSession();
    for (const [listener, off] of this.listeners) {
      off();
      this.listeners.set(listener, session.bus.subscribe(listener));
    }
    // The conversation left behind needs its MCP servers no more.
    void this.session?.close("clear");
    this.session = session;
    this.notes = [];
    this.begun = history.all().length > 0;
    if (this.approval) session.policy = session.policy.with({ mode: this.approval });
    this.loop = new ToolLoop({
      phase: "execution",
      maxToolCalls: session.config.max_tool_calls,
      announcePlan: true,
      stopHooks: true,
      history,
    });
  }

  /**
   * Runs one piece of work at a time; an interrupt (Esc) stops it and the chat goes on, told
   * with the next message that it was interrupted.
   */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.current) throw new Error("cairn is still working on the last message");
    const done = work();
    this.current = done;
    try {
      return await done;
    } finally {
      this.current = undefined;
      this.begun = true;
      if (this.interrupted) {
        this.interrupted = false;
        this.notes.push(
          "[The user interrupted what you were doing. What was done until then is kept; the files are as they are now.]",
        );
      }
    }
  }

  /** Checkpoints are per step: /undo takes back one message's changes at a time. */
  private label(text: string): string {
    return `${++this.steps}. ${text.replace(/\s+/g, " ").slice(0, 60)}`;
  }

  /**
   * The one way in: whatever a front end tells the session. The person's input and their own
   * command are turns of work, resolved with how they ended; the others act at once.
   */
  submit(op: OpOf<"user_input"> | OpOf<"shell">): Promise<Outcome>;
  submit(op: Op): Promise<Outcome | undefined>;
  async submit(op: Op): Promise<Outcome | undefined> {
    switch (op.type) {
      case "user_input":
        return this.input(op);
      case "shell":
        return this.shell(op.command);
      case "compact":
        await this.compact();
        return undefined;
      case "interrupt":
        this.interrupt(op.reason);
        return undefined;
      case "override":
        // The approval mode outlives the session: /clear keeps it.
        if (op.approval) this.approval = op.approval;
        await this.session.submit(op);
        return undefined;
      case "approve":
      case "answer":
        await this.session.submit(op);
        return undefined;
      default: {
        const unknown: never = op;
        throw new Error(`unknown op ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** The person's input, worked on as its mode says: the one place do, run and chat are told apart. */
  private input(op: OpOf<"user_input">): Promise<Outcome> {
    if (op.mode === "chat") return this.send(op.text, op.attachments ?? [], op.images ?? []);
    return this.task(op.mode, op.text, {
      ...(op.agent ? { agent: op.agent } : {}),
      ...(op.images?.length ? { images: op.images } : {}),
      ...(op.greetings_to_model ? { chitchat: false } : {}),
      ...(op.context ? { context: op.context } : {}),
    });
  }

  /** Stops the current work, keeping what it did. False when there was nothing to stop. */
  interrupt(reason?: string): boolean {
    if (!this.current) return false;
    this.interrupted = true;
    void this.session.submit({ type: "interrupt", ...(reason ? { reason } : {}) });
    return true;
  }

  /** Stops whatever runs and waits until it has settled, then ends the session, so its end is stored. */
  async close(): Promise<void> {
    const running = this.current;
    this.interrupt();
    await running?.catch(() => undefined);
    this.finishSession();
  }

  /** The session's `session.finished`, as its last turn ended; none for a session that had no turn. */
  private finishSession(): void {
    if (this.lastEnding) finishSession(this.session, this.lastEnding);
    this.lastEnding = undefined;
  }

  /** Keeps how a turn ended, for the session's own ending. */
  private ended(outcome: Outcome): Outcome {
    this.lastEnding = outcome.ending;
    return outcome;
  }

  /**
   * Records the session now, before its first message (its `session.started`, with no task yet):
   * an editor lists and reopens a thread it has just opened, whether or not anything was said in it.
   */
  announce(): void {
    announceSession(this.session, "");
  }

  /** Something the model should know with the next message, such as files the person put back. */
  tell(note: string): void {
    this.notes.push(`[${note}]`);
  }

  private withNotes(text: string): string {
    const notes = this.notes.splice(0);
    return notes.length ? `${notes.join("\n\n")}\n\n${text}` : text;
  }

  /**
   * What goes with a message: the files and folders it mentions, read as tool calls the person
   * can see, and what was attached to it.
   */
  private async attachments(turn: Turn, text: string, given: readonly Attachment[]): Promise<string> {
    const parts: string[] = [];
    for (const [i, mention] of mentionedPaths(text, this.session.workspace).entries()) {
      const folder = statSync(path.resolve(this.session.workspace, mention)).isDirectory();
      const call = prepareToolCall(this.session.registry, {
        id: `mention-${i + 1}`,
        name: folder ? "file_tree" : "read_file",
        input: { path: mention },
      });
      const result = await executeToolCall(turn, call);
      if (result.ok) parts.push(attached(folder ? "folder" : "file", mention, result.text));
    }
    for (const { name, text: content } of given) parts.push(attached("file", name, content));
    return parts.length ? `\n\n${parts.join("\n\n")}` : "";
  }

  /** A turn of the conversation, announced and settled like `cairn do`. */
  private turn(
    input: TurnInput,
    options: Pick<TurnOptions, "model" | "policy">,
    work: (turn: Turn) => Promise<Outcome>,
  ) {
    return this.exclusive(async () => {
      announce(this.session, input);
      const label = input.mode === "shell" ? `!${input.input}` : input.input;
      return this.ended(await Turn.run(this.session, { label: this.label(label), ...options }, work));
    });
  }

  /**
   * One message of the conversation: answered with the tools, in the same history as the last.
   * `attachments` and `images` go to the model with it, not into the message shown and stored;
   * `images` only to a model that takes them (`model.info.images`), the message saying what
   * they were for any other.
   */
  private send(
    text: string,
    attachments: readonly Attachment[],
    images: readonly ToolImage[],
  ): Promise<Outcome> {
    return this.message({ shown: text, prompt: text, attachments, images });
  }

  /**
   * A custom command (`/review src/app.ts`): its prompt, with the arguments in it, sent as a
   * message, on the command's model when it names one, its allowed tools running without asking
   * for this turn only. What is shown and stored is the command as typed.
   */
  async runCommand(command: CustomCommand, args: string): Promise<Outcome> {
    const model = command.model ? await this.session.modelFor(command.model) : undefined;
    return this.message({
      shown: `/${command.name}${args ? ` ${args}` : ""}`,
      prompt: expandCommand(command, args),
      attachments: [],
      images: [],
      turn: { ...(model ? { model } : {}), policy: this.session.policy.allowing(command.allows) },
    });
  }

  private async message(message: {
    /** What the person typed: the turn's task, as shown and stored. */
    shown: string;
    /** What the model is sent. */
    prompt: string;
    attachments: readonly Attachment[];
    images: readonly ToolImage[];
    turn?: Pick<TurnOptions, "model" | "policy">;
  }): Promise<Outcome> {
    const { shown, prompt, attachments } = message;
    // Images the message mentions (`@shot.png`) go beside it; a model that reads text only is not
    // sent a message about an image it cannot see.
    const model = message.turn?.model ?? this.session.model;
    const { workspace, env } = this.session;
    const mentioned = await imagesToSend(prompt, { workspace, env, model }, message.images.length);
    const images = [...message.images, ...mentioned.images];
    const { labels } = mentioned;
    return this.turn({ mode: "chat", input: shown }, message.turn ?? {}, (turn) =>
      settle(
        turn,
        async () => {
          // Patterns that need no model are for opening a conversation: inside one (after a
          // message, a /do, an /run or a !command, none of which need be in this history),
          // "ok" or "thanks" may carry meaning only the model can read in context, as may what
          // is attached, or a command's prompt.
          const opening = !this.begun && attachments.length === 0 && images.length === 0 && shown === prompt;
          const hooked = await promptThroughHooks(turn, prompt);
          if ("blocked" in hooked) return hooked.blocked;
          const direct = opening ? await answerByPattern(turn, prompt) : undefined;
          if (direct) {
            this.loop.history.add(
              { role: "user", content: prompt },
              { role: "assistant", content: direct.answer },
            );
            if (direct.check) return fileCommandEnding(turn, direct.answer, direct.check);
            const work = {
              status: direct.ok ? "completed" : "failed",
              answer: direct.answer,
              toolCalls: 0,
            } as const;
            return loopEnding(false, work, direct.answer);
          }
          const ran = new RanByAgent(this.session);
          try {
            const outcome = await this.loop.run(
              turn,
              this.withNotes(
                hooked.prompt +
                  (labels ? `\n\n${labels}` : "") +
                  (await this.attachments(turn, prompt, attachments)),
              ),
              turn.model.info.images ? images : [],
            );
            const ending = loopEnding(
              turn.changedFiles.size > 0,
              outcome,
              outcome.answer || outcome.reason || "",
            );
            // A message that changed files is checked (by --verify, or by the agent); an answer is not.
            return turn.changedFiles.size > 0 ? await checkedEnding(turn, ending, ran, prompt) : ending;
          } finally {
            ran.stop();
          }
        },
        () => 1,
      ),
    );
  }

  /**
   * A do (one tool loop) or run (to a verified finish) on a task, told to the conversation after:
   * `cairn do|run`, and /do and /run in a chat.
   */
  private task(
    mode: "do" | "run",
    task: string,
    options: TaskOptions & { resume?: ResumePoint },
  ): Promise<Outcome> {
    return this.exclusive(async () => {
      const { resume, ...taskOptions } = options;
      // Recorded at once, before the run loop's modules load: a caller that started the task
      // (the HTTP API) finds the session stored as soon as it is begun.
      if (!resume) announceSession(this.session, task, taskOptions.context);
      const outcome = this.ended(
        mode === "run"
          ? await (await import("./runTask.js")).runTask(this.session, task, resume, taskOptions)
          : await doTask(this.session, task, resume, taskOptions),
      );
      this.notes.push(
        `[Meanwhile the user had you run /${mode} on: ${task}\nIt ended ${outcome.result.status}: ${outcome.result.summary}]`,
      );
      return outcome;
    });
  }

  /** Continues the interrupted do or run of a stored session from where its log left off. */
  resumeTask(mode: "do" | "run", task: string, point: ResumePoint): Promise<Outcome> {
    return this.task(mode, task, { resume: point });
  }

  /**
   * `!command`: the person runs a command themselves, as a turn of its own so it is stored and
   * shown like any other; the model sees it with the next message.
   */
  private shell(command: string): Promise<Outcome> {
    const policy = this.session.policy.with({ mode: "ask", ask: typedByThePerson });
    return this.turn({ mode: "shell", input: command }, { policy }, (turn) =>
      settle(
        turn,
        async () => {
          const call = prepareToolCall(this.session.registry, {
            id: `user-${Date.now()}`,
            name: "run_command",
            input: { command },
          });
          const result = await executeToolCall(turn, call);
          this.notes.push(`[The user ran \`${command}\` themselves:\n${result.text}]`);
          return result.ok
            ? // The person's own command: its output is the answer, nothing of the model's to check.
              loopEnding(false, { status: "completed", answer: result.text, toolCalls: 1 }, result.text)
            : { status: "failed", reason: "work_failed", summary: result.text, iterations: 1 };
        },
        () => 1,
      ),
    );
  }

  /** /model: a role of the config (cheap, strong, …) or any provider/model id. */
  async switchModel(ref: string): Promise<ModelHandle> {
    await this.submit({ type: "override", model: ref });
    return this.session.model;
  }

  setApproval(mode: ApprovalMode): void {
    void this.submit({ type: "override", approval: mode });
  }

  /** /compact: shrinks the conversation now instead of when the window fills. */
  compact(): Promise<CompactionStats | undefined> {
    return this.exclusive(async () => {
      if (!this.session.announced) return undefined;
      return Turn.run(this.session, { label: "/compact" }, (turn) => this.loop.compact(turn));
    });
  }

  /** /clear: a new conversation, in a new session. */
  async clear(): Promise<void> {
    this.adopt(await this.newSession(), new History());
  }

  /** /resume: continues a stored conversation, its history rebuilt from its events. */
  async resume(id: string, events: StampedEvent[]): Promise<void> {
    this.adopt(await this.newSession({ id, events }), historyFromEvents(events));
  }
}

/**
 * A conversation's history as the model saw it, from its event log: each turn's input (its
 * `turn.started`; in a log from before turns, each `session.started`) and the answer it ended
 * with. Tool calls in between are left out; the answers say what they found.
 */
export function historyFromEvents(events: readonly StampedEvent[]): History {
  const history = new History();
  const turns = events.some((event) => event.type === "turn.started");
  let answer: string | undefined;
  const close = () => {
    if (answer !== undefined) history.add({ role: "assistant", content: answer || "(no answer)" });
    answer = undefined;
  };
  for (const event of events) {
    const input = turns
      ? event.type === "turn.started" && `${event.mode === "shell" ? "!" : ""}${event.input}`
      : event.type === "session.started" && event.task;
    if (input) {
      close();
      history.add({ role: "user", content: input } satisfies ModelMessage);
      answer = "";
    }
    if (event.type === "message" && !event.agent && answer !== undefined) answer = event.text;
  }
  close();
  return history;
}
