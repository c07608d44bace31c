import type { StampedEvent } from "../events/types.js";

type Out = NodeJS.WritableStream;

/** `--output-format json`: one object, the result, when the session ends. */
export function jsonRenderer(out: Out): (event: StampedEvent) => void {
  return (event) => {
    if (event.type === "session.finished") out.write(`${JSON.stringify(event.result, null, 2)}\n`);
  };
}

/** `--output-format stream-json`: every event as a JSON line, then a `result` line. */
export function streamJsonRenderer(out: Out): (event: StampedEvent) => void {
  return (event) => {
    out.write(`${JSON.stringify(event)}\n`);
    if (event.type === "session.finished")
      out.write(`${JSON.stringify({ type: "result", ...event.result })}\n`);
  };
}
