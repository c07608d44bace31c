import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { StampedEvent } from "../events/types.js";
import type { Store } from "../store/sessions.js";
import type { LiveSession } from "./live.js";

/** A comment line now and then keeps proxies and browsers from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

/**
 * A session's events as Server-Sent Events, after `after`: first those in the store, then the
 * live ones, until the session leaves this server. The live feed is joined before the store is
 * read, and a live event is sent only when its seq is past the last one sent, so nothing falls
 * in the gap between the two and nothing comes twice. Each event's `id` is its seq, which is
 * what the browser sends back as `Last-Event-ID` when it reconnects.
 */
export function eventStream(
  c: Context,
  store: Store,
  live: LiveSession | undefined,
  sessionId: string,
  after: number,
): Response {
  return streamSSE(c, async (stream) => {
    const queue: StampedEvent[] = [];
    let ended = live === undefined;
    let closed = false;
    let wake: (() => void) | undefined;
    const stopWatching = live?.watch({
      event: (event) => {
        queue.push(event);
        wake?.();
      },
      end: () => {
        ended = true;
        wake?.();
      },
    });
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    const keepAlive = setInterval(() => void stream.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    let last = after;
    const send = async (event: StampedEvent) => {
      if (event.seq <= last) return;
      last = event.seq;
      await stream.writeSSE({ id: String(event.seq), data: JSON.stringify(event) });
    };
    try {
      for (const event of store.events(sessionId, after)) await send(event);
      while (!closed) {
        const next = queue.shift();
        if (next) {
          await send(next);
          continue;
        }
        if (ended) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (!closed) await stream.writeSSE({ event: "end", data: "" });
    } finally {
      clearInterval(keepAlive);
      stopWatching?.();
    }
  });
}
