import type { CairnEvent, StampedEvent } from "./types.js";

export type EventListener = (event: StampedEvent) => void;

/**
 * Rewrites each event before anyone sees it (secret redaction): into zero, one or more events,
 * so that a transform may hold streamed text back until it can judge it whole.
 */
export type EventTransform = (event: CairnEvent) => CairnEvent[];

/**
 * Fans events out to the store and renderers in emission order. Listeners are synchronous on
 * purpose: an event must be written before the next action starts.
 */
export class EventBus {
  private seq = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly transform: EventTransform | undefined;

  readonly sessionId: string;

  /** `lastSeq`: where a resumed session's log left off, so its events keep one sequence. */
  constructor(sessionId: string, lastSeq = 0, transform?: EventTransform) {
    this.sessionId = sessionId;
    this.seq = lastSeq;
    this.transform = transform;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Returns the last event delivered, or undefined when the transform held this one back. */
  emit(event: CairnEvent): StampedEvent | undefined {
    let last: StampedEvent | undefined;
    for (const out of this.transform ? this.transform(event) : [event]) {
      last = {
        ...out,
        session_id: this.sessionId,
        seq: ++this.seq,
        ts: new Date().toISOString(),
      } as StampedEvent;
      for (const listener of this.listeners) listener(last);
    }
    return last;
  }
}
