import {
  AnswerError,
  type Conversation,
  type ConversationOptions,
  openConversation,
  type PendingRequest,
} from "../agent/conversation.js";
import type { ConfigFlags } from "../config/load.js";
import type { Mode, OpOf, StampedEvent } from "../events/types.js";
import { warnUntrusted } from "../ui/trustNotice.js";
import { ApiError } from "./apiError.js";

/** What a stream of the session's events is told: each event, then that the session left this server. */
export interface Watcher {
  event: (event: StampedEvent) => void;
  end: () => void;
}

export interface LiveStart {
  mode: Mode;
  task: string;
  /** The real path of an allowed workspace. */
  workspace: string;
  flags: ConfigFlags;
  /** The id of a stored session to continue under its own id. */
  resume?: string;
  /** The id of a new session, as its caller chose it. */
  sessionId?: string;
  /** What the caller says about the task apart from it: given to the model with the task. */
  context?: string;
}

export interface LiveOptions {
  configFile?: string;
  /** The environment sessions run with (the server's, without its token). */
  env: NodeJS.ProcessEnv;
  /** Where a session's work failed in a way no status covers (a bug): the server's own log. */
  log: (message: string) => void;
}

/**
 * A session running in this server: a `do` or `run` until its work ends, a chat until the server
 * stops. Its work goes on whether or not any client is connected; clients watch its events and
 * answer it through `submit`.
 */
export class LiveSession {
  readonly id: string;
  readonly mode: Mode;
  private readonly conversation: Conversation;
  private work: Promise<void> | undefined;
  private readonly watchers = new Set<Watcher>();
  private readonly onEnd: () => void;
  private readonly log: LiveOptions["log"];
  private ending: Promise<void> | undefined;
  /** Resolves once the session is in the store: its first event is heard, or its work is over. */
  readonly stored: Promise<void>;
  private isStored!: () => void;

  constructor(
    id: string,
    conversation: Conversation,
    hooks: { onEnd: () => void; log: LiveOptions["log"]; stored: boolean },
  ) {
    this.id = id;
    this.conversation = conversation;
    this.mode = conversation.view().mode;
    this.onEnd = hooks.onEnd;
    this.log = hooks.log;
    this.stored = new Promise((resolve) => {
      this.isStored = resolve;
    });
    if (hooks.stored) this.isStored();
    conversation.subscribe((event) => {
      // The store hears every event first.
      if (event.type === "session.started") this.isStored();
      for (const watcher of this.watchers) watcher.event(event);
    });
  }

  get busy(): boolean {
    return this.work !== undefined;
  }

  /** The requests waiting for a person, oldest first. */
  pending(): PendingRequest[] {
    return this.conversation.view().pending;
  }

  watch(watcher: Watcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Starts a piece of work; a `do` or `run` session leaves the server when it ends. */
  begin(work: () => Promise<unknown>): void {
    this.work = work()
      .then(
        () => undefined,
        (error: unknown) => {
          // Every ending is settled inside the work, a bug's too (failed, reason internal): what
          // reaches here is said in the server's log.
          const message = error instanceof Error ? error.message : String(error);
          this.log(`session ${this.id} failed: ${message}`);
        },
      )
      .finally(() => {
        this.work = undefined;
        this.isStored();
        // A do or run is one turn: its session ends with it.
        if (this.mode !== "chat") void this.end();
      });
  }

  /** A chat message; the conversation goes on in the same history. */
  message(text: string): void {
    if (this.mode !== "chat")
      throw new ApiError(409, `session ${this.id} is a ${this.mode} session; messages go to chat sessions.`);
    if (this.busy) throw new ApiError(409, `session ${this.id} is still working on the last message.`);
    this.begin(() => this.conversation.submit({ type: "user_input", mode: "chat", text }));
  }

  /** An answer to what the session waits for: an approval or a question. */
  async submit(op: OpOf<"approve"> | OpOf<"answer">): Promise<void> {
    try {
      await this.conversation.submit(op);
    } catch (error) {
      if (error instanceof AnswerError) throw new ApiError(409, error.message);
      throw error;
    }
  }

  /** Stops the work that runs now, keeping what it did; it ends as cancelled. */
  cancel(): void {
    if (this.conversation.view().status === "idle")
      throw new ApiError(409, `session ${this.id} has nothing running to cancel.`);
    void this.conversation.submit({ type: "interrupt", reason: "cancelled over the API" });
  }

  /** Cancels what runs and waits until its end is stored. */
  async stop(): Promise<void> {
    const running = this.work;
    if (running) {
      await this.conversation.submit({ type: "interrupt", reason: "the server is stopping" });
      await running;
    }
    await this.end();
  }

  /** Ends the session (its `session.finished`), then lets it go: watchers are told, the conversation closed. */
  private end(): Promise<void> {
    this.ending ??= this.leave();
    return this.ending;
  }

  private async leave(): Promise<void> {
    await this.conversation.close();
    this.onEnd();
    for (const watcher of [...this.watchers]) watcher.end();
    this.watchers.clear();
  }
}

/** The sessions running in this server, by id. */
export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>();
  /** Ids callers chose for sessions being opened now, so two requests cannot both take one. */
  private readonly claimed = new Set<string>();
  private readonly options: LiveOptions;

  constructor(options: LiveOptions) {
    this.options = options;
  }

  get(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }

  /** A live session, or a 409 saying it is not running here. */
  require(id: string): LiveSession {
    const live = this.sessions.get(id);
    if (!live)
      throw new ApiError(409, `session ${id} is not running in this server; resume it to continue it.`);
    return live;
  }

  /**
   * Opens the session and starts its work; resolves once it is announced (stored), not when it
   * ends. A new chat starts on its first message; a resumed one waits for the next.
   */
  async start(spec: LiveStart): Promise<LiveSession> {
    const { sessionId } = spec;
    if (sessionId !== undefined) {
      if (this.claimed.has(sessionId) || this.sessions.has(sessionId))
        throw new ApiError(
          409,
          `session_id ${sessionId} is taken: a session by that id exists. Choose another.`,
        );
      this.claimed.add(sessionId);
    }
    try {
      return await this.open(spec);
    } finally {
      if (sessionId !== undefined) this.claimed.delete(sessionId);
    }
  }

  private async open(spec: LiveStart): Promise<LiveSession> {
    const options: ConversationOptions = {
      cwd: spec.workspace,
      ...(this.options.configFile ? { configFile: this.options.configFile } : {}),
      flags: spec.flags,
      env: this.options.env,
      mode: spec.mode,
      attended: true,
      // The caller's id is the first session's; a /clear later starts one with an id of its own.
      ...(spec.sessionId ? { sessionId: spec.sessionId } : {}),
    };
    const conversation = await openConversation(options);
    // The folder's trust is the person's, recorded with `cairn trust` or `trusted_folders`.
    const { trust } = conversation.view();
    if (trust) warnUntrusted(trust, this.options.log);
    try {
      const live =
        spec.mode === "chat"
          ? await this.chat(conversation, spec)
          : this.task(conversation, { ...spec, mode: spec.mode });
      await live.stored;
      return live;
    } catch (error) {
      await conversation.close();
      throw error;
    }
  }

  private task(conversation: Conversation, spec: LiveStart & { mode: "do" | "run" }): LiveSession {
    const { mode, task, resume, context } = spec;
    const live = this.add(resume ?? conversation.view().sessionId, conversation, resume !== undefined);
    live.begin(() =>
      resume
        ? conversation.submit({ type: "resume", session_id: resume })
        : conversation.submit({
            type: "user_input",
            mode,
            text: task,
            ...(context?.trim() ? { context } : {}),
          }),
    );
    return live;
  }

  private async chat(conversation: Conversation, spec: LiveStart): Promise<LiveSession> {
    if (spec.resume) await conversation.submit({ type: "resume", session_id: spec.resume });
    const live = this.add(conversation.view().sessionId, conversation, spec.resume !== undefined);
    const context = spec.context?.trim();
    if (context) await conversation.submit({ type: "note", text: `Context given with the task: ${context}` });
    if (!spec.resume) live.message(spec.task);
    return live;
  }

  private add(id: string, conversation: Conversation, stored: boolean): LiveSession {
    const live = new LiveSession(id, conversation, {
      onEnd: () => this.sessions.delete(id),
      log: this.options.log,
      stored,
    });
    this.sessions.set(id, live);
    return live;
  }

  /** Cancels everything running and waits until each end is stored. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((live) => live.stop()));
  }
}
