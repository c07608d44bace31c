import type { StampedEvent } from "../events/types.js";

type Out = NodeJS.WritableStream;

/** `--output-format json`: one object, the result, when the session ends. */
export function jsonRenderer(out: Out): (event: StampedEvent) => void {
  return (event) => {
    if (event.type === "session.finished") out.write(`${JSON.stringify(event.result, null, 2)}\n`);
  };
}

/**
 * `--output-format stream-json`: every event as a JSON line, then a `result` line. The lines of
 * one turn of the event loop go out in one write (a write to a pipe is a system call, and a turn
 * emits several events), before the next turn; at once the last ones and those a person may be
 * asked about right after them at the same terminal; and at exit whatever waits.
 */
export function streamJsonRenderer(out: Out): (event: StampedEvent) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const lines = pending.join("");
    pending = [];
    out.write(lines);
  };
  process.once("exit", flush);
  return (event) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(`${JSON.stringify(event)}\n`);
    if (event.type === "session.finished")
      pending.push(`${JSON.stringify({ type: "result", ...event.result })}\n`);
    if (
      event.type === "session.finished" ||
      event.type === "approval.requested" ||
      event.type === "question.asked"
    )
      flush();
  };
}
