import { ChatEngine } from "../agent/chat.js";
import { type Host, openHost } from "../agent/host.js";
import { AnswerError } from "../agent/inbox.js";
import { resumePoint } from "../agent/resume.js";
import type { Session } from "../agent/session.js";
import { buildResult } from "../agent/settle.js";
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
  /** A stored session to continue under its own id. */
  resume?: { id: string; events: StampedEvent[] };
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
  readonly mode: Mode;
  readonly session: Session;
  private readonly host: Host;
  private readonly engine: ChatEngine;
  private work: Promise<void> | undefined;
  /** approval.requested and question.asked events not answered yet. */
  private readonly waiting = new Map<string, StampedEvent>();
  private readonly watchers = new Set<Watcher>();
  private readonly onEnd: () => void;
  private readonly log: LiveOptions["log"];
  private ending: Promise<void> | undefined;

  constructor(host: Host, engine: ChatEngine, hooks: { onEnd: () => void; log: LiveOptions["log"] }) {
    this.host = host;
    this.session = engine.session;
    this.engine = engine;
    this.mode = engine.session.mode;
    this.onEnd = hooks.onEnd;
    this.log = hooks.log;
    engine.subscribe((event) => {
      if (event.type === "approval.requested" || event.type === "question.asked")
        this.waiting.set(event.request_id, event);
      if (event.type === "approval.resolved" || event.type === "question.answered")
        this.waiting.delete(event.request_id);
      for (const watcher of this.watchers) watcher.event(event);
    });
  }

  get id(): string {
    return this.session.id;
  }

  get busy(): boolean {
    return this.work !== undefined;
  }

  /** The requests waiting for a person, oldest first. */
  pending(): StampedEvent[] {
    return [...this.waiting.values()];
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
          // Every status a task can end in is settled inside the work; what escapes is a bug,
          // ended here as failed so the session does not stay "running" for ever.
          const message = error instanceof Error ? error.message : String(error);
          this.log(`session ${this.id} failed: ${message}`);
          this.session.bus.emit({ type: "error", message, fatal: true, reason: "internal" });
          this.session.bus.emit({
            type: "turn.finished",
            turn: this.session.turns,
            result: buildResult(this.session, {
              status: "failed",
              reason: "internal",
              summary: message,
              iterations: 0,
            }),
          });
        },
      )
      .finally(() => {
        this.work = undefined;
        // A do or run is one turn: its session ends with it.
        if (this.mode !== "chat") void this.end();
      });
  }

  /** A chat message; the conversation goes on in the same history. */
  message(text: string): void {
    if (this.mode !== "chat")
      throw new ApiError(409, `session ${this.id} is a ${this.mode} session; messages go to chat sessions.`);
    if (this.busy) throw new ApiError(409, `session ${this.id} is still working on the last message.`);
    this.begin(() => this.engine.submit({ type: "user_input", mode: "chat", text }));
  }

  /** An answer to what the session waits for: an approval or a question. */
  async submit(op: OpOf<"approve"> | OpOf<"answer">): Promise<void> {
    try {
      await this.engine.submit(op);
    } catch (error) {
      if (error instanceof AnswerError) throw new ApiError(409, error.message);
      throw error;
    }
  }

  /** Stops the work that runs now, keeping what it did; it ends as cancelled. */
  cancel(): void {
    if (!this.engine.interrupt("cancelled over the API"))
      throw new ApiError(409, `session ${this.id} has nothing running to cancel.`);
  }

  /** Cancels what runs and waits until its end is stored. */
  async stop(): Promise<void> {
    const running = this.work;
    if (running) {
      this.engine.interrupt("the server is stopping");
      await running;
    }
    await this.end();
  }

  /** Ends the session (its `session.finished`), then lets it go: watchers are told, the host closed. */
  private end(): Promise<void> {
    this.ending ??= this.leave();
    return this.ending;
  }

  private async leave(): Promise<void> {
    await this.engine.close();
    this.host.close();
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
    const host = await openHost({
      cwd: spec.workspace,
      ...(this.options.configFile ? { configFile: this.options.configFile } : {}),
      flags: spec.flags,
      env: this.options.env,
      mode: spec.mode,
      attended: true,
    });
    // The folder's trust is the person's, recorded with `cairn trust` or `trusted_folders`.
    warnUntrusted(host.trust, this.options.log);
    try {
      return spec.mode === "chat"
        ? await this.chat(host, spec)
        : await this.task(host, { ...spec, mode: spec.mode });
    } catch (error) {
      host.close();
      throw error;
    }
  }

  private async task(host: Host, spec: LiveStart & { mode: "do" | "run" }): Promise<LiveSession> {
    const { mode, task, resume, context } = spec;
    const engine = await ChatEngine.start(() => host.open(resume, spec.sessionId));
    const live = this.add(host, engine);
    live.begin(() =>
      resume
        ? engine.resumeTask(mode, task, resumePoint(resume.events))
        : engine.submit({ type: "user_input", mode, text: task, ...(context?.trim() ? { context } : {}) }),
    );
    return live;
  }

  private async chat(host: Host, spec: LiveStart): Promise<LiveSession> {
    // The caller's id is the first session's; a /clear later starts one with an id of its own.
    let id = spec.sessionId;
    const engine = await ChatEngine.start((resume) => {
      const chosen = id;
      id = undefined;
      return host.open(resume, chosen);
    });
    if (spec.resume) await engine.resume(spec.resume.id, spec.resume.events);
    const live = this.add(host, engine);
    if (spec.context?.trim()) engine.tell(`Context given with the task: ${spec.context.trim()}`);
    if (!spec.resume) live.message(spec.task);
    return live;
  }

  private add(host: Host, engine: ChatEngine): LiveSession {
    const { id } = engine.session;
    const live = new LiveSession(host, engine, {
      onEnd: () => this.sessions.delete(id),
      log: this.options.log,
    });
    this.sessions.set(id, live);
    return live;
  }

  /** Cancels everything running and waits until each end is stored. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((live) => live.stop()));
  }
}
