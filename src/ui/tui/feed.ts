import type { Action } from "./state.js";

/** About 30 frames a second: smooth to the eye, and the terminal is not redrawn per token. */
export const FRAME_MS = 33;

/** Adjacent deltas become one, so a frame costs one reduction however many tokens came in. */
export function coalesce(actions: readonly Action[]): Action[] {
  const out: Action[] = [];
  for (const action of actions) {
    const last = out.at(-1);
    if (action.type === "message.delta" && last?.type === "message.delta") {
      out[out.length - 1] = { ...action, text: last.text + action.text };
    } else {
      out.push(action);
    }
  }
  return out;
}

/**
 * Carries events and UI actions to the state in batches, one a frame, in the order they
 * happened. Nothing is lost while no one listens: the batch waits for the sink.
 */
export class ActionFeed {
  private queue: Action[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sink: ((actions: Action[]) => void) | undefined;
  private readonly frameMs: number;

  constructor(frameMs = FRAME_MS) {
    this.frameMs = frameMs;
  }

  push = (action: Action): void => {
    this.queue.push(action);
    this.timer ??= setTimeout(this.flush, this.frameMs);
  };

  flush = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.sink || this.queue.length === 0) return;
    const batch = coalesce(this.queue);
    this.queue = [];
    this.sink(batch);
  };

  attach(sink: (actions: Action[]) => void): () => void {
    this.sink = sink;
    this.flush();
    return () => {
      this.sink = undefined;
    };
  }
}
