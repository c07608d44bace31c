import type { EventBus } from "../events/bus.js";
import type { Status } from "../events/types.js";
import { formatTokens } from "../platform/format.js";

/**
 * How long a local model may go without its first token before the person is told it is still
 * reading the prompt: on a CPU that can take minutes, which should not look like a hang.
 */
const NOTICE_AFTER_MS = 3_000;

/**
 * Says, as the status's detail, that the model is still reading a prompt of `promptTokens`
 * tokens once it has taken a while; `stop` (its first token, or the call's end) takes it back.
 */
export function readingNotice(bus: EventBus, status: Status, promptTokens: number): { stop(): void } {
  let shown = false;
  const timer = setTimeout(() => {
    shown = true;
    bus.emit({ type: "status", status, detail: `reading the prompt (${formatTokens(promptTokens)} tokens)` });
  }, NOTICE_AFTER_MS);
  return {
    stop() {
      clearTimeout(timer);
      if (!shown) return;
      shown = false;
      bus.emit({ type: "status", status });
    },
  };
}
