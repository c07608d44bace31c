import type { AgentStamp, CairnEvent, StampedEvent } from "./types.js";

export type EventListener = (event: StampedEvent) => void;

/**
 * Rewrites each event before anyone sees it (secret redaction): into zero, one or more events,
 * so that a transform may hold streamed text back until it can judge it whole.
 */
export type EventTransform = (event: CairnEvent) => CairnEvent[];

/** What the session's bus and the sub-agents' views of it share: one sequence, one set of listeners. */
interface Stream {
  seq: number;
  readonly listeners: Set<EventListener>;
}

/**
 * Fans events out to the store and renderers in emission order. Listeners are synchronous on
 * purpose: an event must be written before the next action starts.
 */
export class EventBus {
  private readonly stream: Stream;
  private readonly transform: EventTransform | undefined;
  /** Set on a sub-agent's view: every event it emits says which agent emitted it. */
  readonly scope: AgentStamp | undefined;

  readonly sessionId: string;

  /**
   * `lastSeq`: where a resumed session's log left off, so its events keep one sequence. `shared`:
   * the stream of the bus a sub-agent's view is made from, and the agent it speaks for.
   */
  constructor(
    sessionId: string,
    lastSeq = 0,
    transform?: EventTransform,
    shared?: { stream: Stream; scope: AgentStamp },
  ) {
    this.sessionId = sessionId;
    this.stream = shared?.stream ?? { seq: lastSeq, listeners: new Set() };
    this.transform = transform;
    this.scope = shared?.scope;
  }

  /**
   * The same stream, for a sub-agent: what it emits is stamped with its id and its parent's. It
   * takes a transform of its own, because one that holds text back must not hold one agent's
   * text until another agent's event comes along.
   */
  scoped(scope: AgentStamp, transform?: EventTransform): EventBus {
    return new EventBus(this.sessionId, 0, transform, { stream: this.stream, scope });
  }

  subscribe(listener: EventListener): () => void {
    this.stream.listeners.add(listener);
    return () => this.stream.listeners.delete(listener);
  }

  /** Returns the last event delivered, or undefined when the transform held this one back. */
  emit(event: CairnEvent): StampedEvent | undefined {
    const { stream } = this;
    let last: StampedEvent | undefined;
    for (const out of this.transform ? this.transform(event) : [event]) {
      last = {
        ...out,
        session_id: this.sessionId,
        seq: ++stream.seq,
        ts: new Date().toISOString(),
        ...this.scope,
      } as StampedEvent;
      for (const listener of stream.listeners) listener(last);
    }
    return last;
  }
}
