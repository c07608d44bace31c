import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { ModelMessage } from "ai";
import { History } from "../context/history.js";
import type { StampedEvent } from "../events/types.js";
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
import type { Session } from "./session.js";
import {
  announce,
  announceSession,
  type Ending,
  endingOf,
  finishSession,
  loopEnding,
  type Outcome,
  settle,
  type TurnInput,
} from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn, type TurnOptions } from "./turn.js";

/** Something the person put beside a message for the model to see: a file's text (an editor's @-mention). */
export interface Attachment {
  /** The workspace path, or where it came from. */
  name: string;
  text: string;
}

/** A message of the conversation: what is shown and stored, what the model is sent, and what goes beside it. */
interface Message {
  /** What the person typed: the turn's task, as shown and stored. */
  shown: string;
  /** What the model is sent. */
  prompt: string;
  attachments: readonly Attachment[];
  images: readonly ToolImage[];
  turn?: Pick<TurnOptions, "model" | "policy">;
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
 * The conversation's work on its session: one session and one tool loop, so each message continues
 * the same history (DESIGN.md: chat is a sequence of `do` turns over one history); a `cairn do` or
 * `cairn run` is a conversation of one turn. Each piece of work is a turn, announced and settled
 * the same way, so it is stored and rendered the same way; a do or run inside a chat runs its loop
 * on the same session, and what it found is passed on to the conversation. It never prints:
 * everything it does is an event. Front ends reach it through the conversation
 * (conversation.ts), which turns their ops into its calls.
 */
export class Chat {
  session!: Session;
  private loop!: ToolLoop;
  private current: Promise<unknown> | undefined;
  /** How the session's last turn ended: what the session ends with when it is left. */
  private lastEnding: Ending | undefined;
  private unheard: (() => void) | undefined;
  private interrupted = false;
  private steps = 0;
  /** What the model should hear with the next message: interruptions, commands the person ran. */
  private notes: string[] = [];
  /**
   * Whether the conversation has begun: any message, /do, /run or !command run in it (or a
   * resumed history). Until then a greeting may be answered without the model.
   */
  private begun = false;

  /** Goes on in `session` with `history`; the session it was in ends (its `session.finished`) and lets go. */
  adopt(session: Session, history: History): void {
    const left = this.session as Session | undefined;
    this.finishSession();
    this.unheard?.();
    // The conversation left behind needs its MCP servers no more.
    void left?.close("clear");
    this.session = session;
    // Read from the log, not from what the work returned: a turn a bug ended is settled
    // (failed, internal) and its error thrown on, and the session still ends as that turn did.
    this.unheard = session.bus.subscribe((event) => {
      if (event.type === "turn.finished" && !event.agent) this.lastEnding = endingOf(event.result);
    });
    this.notes = [];
    this.begun = history.all().length > 0;
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

  /** Some work is under way. */
  get busy(): boolean {
    return this.current !== undefined;
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

  /** Something the model should know with the next message, such as files the person put back. */
  tell(note: string): void {
    this.notes.push(`[${note}]`);
  }

  private withNotes(text: string): string {
    const notes = this.notes.splice(0);
    return notes.length ? `${notes.join("\n\n")}\n\n${text}` : text;
  }

  /**
   * The images a message or task mentions (`@shot.png`), beside those `given` with it, and the
   * labels that name them, for `model`: the one place images are read for the model.
   */
  private async images(text: string, given: readonly ToolImage[], model: ModelHandle) {
    const { workspace, env } = this.session;
    const mentioned = await imagesToSend(text, { workspace, env, model }, given.length);
    return { images: [...given, ...mentioned.images], labels: mentioned.labels };
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
      return Turn.run(this.session, { label: this.label(label), ...options }, work);
    });
  }

  /**
   * One message of the conversation: answered with the tools, in the same history as the last.
   * Attachments and images go to the model with it, not into the message shown and stored;
   * images only to a model that takes them (`model.info.images`), the message saying what they
   * were for any other.
   */
  async message(message: Message): Promise<Outcome> {
    const { shown, prompt, attachments } = message;
    // Images the message mentions (`@shot.png`) go beside it; a model that reads text only is not
    // sent a message about an image it cannot see.
    const model = message.turn?.model ?? this.session.main.model;
    const { images, labels } = await this.images(prompt, message.images, model);
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
   * `cairn do|run`, /do and /run in a chat, and a stored one taken up where its log left off
   * (`resume`). A do's task goes with the images it mentions.
   */
  async task(
    mode: "do" | "run",
    text: string,
    options: TaskOptions & { resume?: ResumePoint } = {},
  ): Promise<Outcome> {
    const { resume, ...taskOptions } = options;
    // A target that does not exist is bad usage, found before anything runs.
    if (options.agent && !resume) (await import("./delegation.js")).checkTarget(this.session, options.agent);
    let task = text;
    if (mode === "do" && !resume) {
      const { images, labels } = await this.images(text, options.images ?? [], this.session.main.model);
      task = labels ? `${text}\n\n${labels}` : text;
      if (images.length) taskOptions.images = images;
    }
    return this.exclusive(async () => {
      // Recorded at once, before the run loop's modules load: a caller that started the task
      // (the HTTP API) finds the session stored as soon as it is begun.
      if (!resume) announceSession(this.session, task, taskOptions.context);
      const outcome =
        mode === "run"
          ? await (await import("./runTask.js")).runTask(this.session, task, resume, taskOptions)
          : await doTask(this.session, task, resume, taskOptions);
      this.notes.push(
        `[Meanwhile the user had you run /${mode} on: ${task}\nIt ended ${outcome.result.status}: ${outcome.result.summary}]`,
      );
      return outcome;
    });
  }

  /**
   * A custom command (`/review src/app.ts`): its prompt, with the arguments in it, on the
   * command's model when it names one, its allowed tools running without asking. In a chat it is a
   * message, and those hold for its turn only; what is shown and stored is the command as typed.
   * As a session's one task (`cairn -p "/review …"`) they are the session's, and the model
   * answers it, greeting or not: the person chose the command.
   */
  async command(
    command: CustomCommand,
    args: string,
    how: { mode: "chat" | "do"; agent?: string | undefined },
  ): Promise<Outcome> {
    const { session } = this;
    const prompt = expandCommand(command, args);
    if (how.mode === "do") {
      if (command.model) await session.submit({ type: "override", model: command.model });
      session.main.policy = session.main.policy.allowing(command.allows);
      return this.task("do", prompt, { agent: how.agent, chitchat: false });
    }
    const model = command.model ? await session.modelFor(command.model) : undefined;
    return this.message({
      shown: `/${command.name}${args ? ` ${args}` : ""}`,
      prompt,
      attachments: [],
      images: [],
      turn: { ...(model ? { model } : {}), policy: session.main.policy.allowing(command.allows) },
    });
  }

  /**
   * `!command`: the person runs a command themselves, as a turn of its own so it is stored and
   * shown like any other; the model sees it with the next message.
   */
  shell(command: string): Promise<Outcome> {
    const policy = this.session.main.policy.with({ mode: "ask", ask: typedByThePerson });
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

  /** /compact: shrinks the conversation now instead of when the window fills. */
  compact(): Promise<CompactionStats | undefined> {
    return this.exclusive(async () => {
      if (!this.session.announced) return undefined;
      return Turn.run(this.session, { label: "/compact" }, (turn) => this.loop.compact(turn));
    });
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
