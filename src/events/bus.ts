import type { CairnEvent, StampedEvent } from "./types.js";

export type EventListener = (event: StampedEvent) => void;

/**
 * Fans events out to the store and renderers in emission order. Listeners are synchronous on
 * purpose: an event must be written before the next action starts.
 */
export class EventBus {
  private seq = 0;
  private readonly listeners = new Set<EventListener>();

  readonly sessionId: string;

  /** `lastSeq`: where a resumed session's log left off, so its events keep one sequence. */
  constructor(sessionId: string, lastSeq = 0) {
    this.sessionId = sessionId;
    this.seq = lastSeq;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: CairnEvent): StampedEvent {
    const stamped = {
      ...event,
      session_id: this.sessionId,
      seq: ++this.seq,
      ts: new Date().toISOString(),
    } as StampedEvent;
    for (const listener of this.listeners) listener(stamped);
    return stamped;
  }
}
