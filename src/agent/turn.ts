import type { Permission } from "../events/types.js";
import type { ApprovalPolicy } from "../safety/approval.js";
import type { AgentContext, ModelHandle } from "./agentContext.js";
import type { Interruptible, Session } from "./session.js";

/** A tool call the model's answer cut off before its arguments were whole: it never ran. */
export interface CutCall {
  tool: string;
  /** Its title as far as it can be read: `write_file big.txt`. */
  summary: string;
  /** The workspace paths it would have written, when they can be read: a later change to them makes it good. */
  writes: string[] | undefined;
}

export interface TurnOptions {
  /** The step file changes are checkpointed under: undo goes back a step at a time. */
  label: string;
  /** The model answering in this turn; the session's otherwise. */
  model?: ModelHandle;
  /** A policy of the turn's own (the person's own `!command`); the session's, read live, otherwise. */
  policy?: ApprovalPolicy;
  /** Ends this turn too when it ends: the run a step belongs to. */
  within?: Turn;
  /** The agent the turn runs as: a sub-agent's own; the one of the turn it is within, else the session's. */
  agent?: AgentContext;
}

/**
 * One piece of work on a session — a `cairn do`, a step of `cairn run`, a chat message — with
 * what belongs to it alone: its cancellation, its model, its checkpoint label. The session's
 * `interrupt` aborts every open turn; the wall-time cap ends them all.
 */
export class Turn implements Interruptible {
  readonly session: Session;
  /** Whose turn it is: what it emits, spends, calls and asks is that agent's. */
  readonly agent: AgentContext;
  readonly label: string;
  readonly model: ModelHandle;
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly ownPolicy: ApprovalPolicy | undefined;
  private readonly within: Turn | undefined;
  /** Calls refused only because nobody could approve them, with their permission. */
  private readonly unattended: Array<{ permission: Permission; summary: string }> = [];
  /** Permissions of the calls that ran. */
  private readonly ran = new Set<Permission>();
  /** Files this turn's work changed, its sub-agents' included: what a chat message's ending rests on. */
  readonly changedFiles = new Set<string>();
  /** Calls cut off before their arguments were whole, with the files of theirs no later call has changed. */
  private cut: Array<{ call: CutCall; unwritten: Set<string> }> = [];

  private constructor(session: Session, options: TurnOptions) {
    this.session = session;
    this.within = options.within;
    this.agent = options.agent ?? options.within?.agent ?? session.main;
    this.label = options.label;
    this.model = options.model ?? options.within?.model ?? this.agent.model;
    this.ownPolicy = options.policy ?? options.within?.ownPolicy;
    const signals = [this.controller.signal, options.within?.signal, session.deadline].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    this.signal = signals.length === 1 ? this.controller.signal : AbortSignal.any(signals);
  }

  /** Opens a turn on the session; `close` it when its work is done. */
  static open(session: Session, options: TurnOptions): Turn {
    const turn = new Turn(session, options);
    session.running.add(turn);
    return turn;
  }

  get policy(): ApprovalPolicy {
    return this.ownPolicy ?? this.agent.policy;
  }

  /** The work ran into the wall-time cap rather than being stopped by someone. */
  get timedOut(): boolean {
    return this.session.deadline?.aborted ?? false;
  }

  /** Books a tool call's fate here and in the turns this one is part of. */
  noteCall(permission: Permission, refusedUnattended?: string): void {
    for (let turn: Turn | undefined = this; turn; turn = turn.within) {
      if (refusedUnattended === undefined) turn.ran.add(permission);
      else turn.unattended.push({ permission, summary: refusedUnattended });
    }
  }

  /** Books files the work changed, here, in the turns this one is part of, and on the session. */
  noteChanged(files: readonly string[]): void {
    for (const file of files) {
      for (let turn: Turn | undefined = this; turn; turn = turn.within) turn.changedFiles.add(file);
      this.session.filesChanged.add(file);
    }
    // A cut-off write whose files later calls changed (in smaller parts, by a command) is made good.
    this.forCuts((cuts) => {
      for (const { unwritten } of cuts) for (const file of files) unwritten.delete(file);
      return cuts.filter((cut) => cut.unwritten.size > 0 || !cut.call.writes?.length);
    });
  }

  /** Books a call cut off at the answer's length limit, here and in the turns this one is part of. */
  noteCut(call: CutCall): void {
    const cut = { call, unwritten: new Set(call.writes) };
    this.forCuts((cuts) => [...cuts, cut]);
  }

  /** A call of `tool` ran: a cut-off call of it whose files cannot be told is made good by it. */
  noteSucceeded(tool: string): void {
    this.forCuts((cuts) => cuts.filter((cut) => cut.call.tool !== tool || cut.call.writes?.length));
  }

  private forCuts(change: (cuts: Turn["cut"]) => Turn["cut"]): void {
    for (let turn: Turn | undefined = this; turn; turn = turn.within) turn.cut = change(turn.cut);
  }

  /** The calls the answer cap cut off and nothing made good since: what the ending must not call done. */
  cutCalls(): string[] {
    return [...new Set(this.cut.map((cut) => cut.call.summary))];
  }

  /**
   * The calls the work needed and could not get: refused for want of someone to approve them,
   * of a kind (commands, writes) of which not one ran. Empty when the work found its way.
   */
  blockedCalls(): string[] {
    return this.unattended
      .filter(({ permission }) => !this.ran.has(permission))
      .map(({ summary }) => summary);
  }

  abort(reason: Error): void {
    this.controller.abort(reason);
  }

  close(): void {
    this.session.running.delete(this);
  }

  /** Runs `work` in a turn opened for it, closed however the work ends. */
  static async run<T>(session: Session, options: TurnOptions, work: (turn: Turn) => Promise<T>): Promise<T> {
    const turn = Turn.open(session, options);
    try {
      return await work(turn);
    } finally {
      turn.close();
    }
  }
}
