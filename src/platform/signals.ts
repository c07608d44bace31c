/**
 * The signals that ask cairn to stop — SIGINT (Ctrl-C), SIGTERM (a kill, a supervisor), SIGHUP
 * (the terminal closed) — as one stream of stop requests, whether they reach this process
 * directly or through bin/cairn.js, which restarts cairn on a newer Node and passes on the
 * signals it gets over its IPC channel.
 *
 * Ctrl-C reaches both processes (they share the terminal's process group), so the child gets the
 * same stop twice: once itself, once passed on. A signal and its passed-on copy are one request;
 * a second Ctrl-C is another.
 */

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type ListenedSignal = (typeof STOP_SIGNALS)[number];
/**
 * A stop request: one of the signals, or SIGPIPE, which Node ignores: a write whose reader has
 * gone fails with EPIPE instead (see stopWhenOutputCloses).
 */
export type StopSignal = ListenedSignal | "SIGPIPE";

/** What bin/cairn.js sends its child for a signal it got: keep in step with it. */
interface ForwardedSignal {
  type: "cairn.signal";
  signal: ListenedSignal;
}

/**
 * How long a signal and its passed-on copy can be apart and still be the same one: long, since a
 * loaded machine can keep the wrapper from running for seconds, and a copy is only ever paired
 * with a signal that reached this process directly and has no copy yet.
 */
const PAIRING_MS = 10_000;

type Handler = (signal: StopSignal) => void;

const handlers = new Set<Handler>();
/** Stops one path brought and the other has not yet: the one its copy will pair with. */
const unpaired: Array<{ signal: ListenedSignal; via: "direct" | "forwarded"; at: number }> = [];

/**
 * One stop, however it came: to the handlers when there are any. A passed-on one with nobody
 * listening is done as the signal itself would be (the process ends), so a process nobody
 * listens in is still stopped; but never the copy of a signal that already came directly, which
 * may arrive after its stop has ended the work and the handlers have gone.
 */
function deliver(signal: ListenedSignal, via: "direct" | "forwarded"): void {
  const now = Date.now();
  const match = unpaired.findIndex(
    (stop) => stop.signal === signal && stop.via !== via && now - stop.at <= PAIRING_MS,
  );
  if (match !== -1) {
    unpaired.splice(match, 1);
    return;
  }
  unpaired.push({ signal, via, at: now });
  while (unpaired.length > 0 && now - (unpaired[0]?.at ?? now) > PAIRING_MS) unpaired.shift();
  if (handlers.size > 0) for (const handler of [...handlers]) handler(signal);
  else if (via === "forwarded") process.kill(process.pid, signal);
}

const direct = Object.fromEntries(
  STOP_SIGNALS.map((signal) => [signal, () => deliver(signal, "direct")]),
) as Record<ListenedSignal, () => void>;

function isForwarded(message: unknown): message is ForwardedSignal {
  const candidate = message as Partial<ForwardedSignal> | null;
  return candidate?.type === "cairn.signal" && STOP_SIGNALS.includes(candidate.signal as ListenedSignal);
}

/** A stop passed on by bin/cairn.js. */
function onMessage(message: unknown): void {
  if (isForwarded(message)) deliver(message.signal, "forwarded");
}

/** Listens for passed-on signals from the start when there is a parent to pass them on. */
export function listenForForwardedSignals(): void {
  if (typeof process.send !== "function" || process.listeners("message").includes(onMessage)) return;
  process.on("message", onMessage);
  // The channel is only for this: it must not keep the process alive when its work is done.
  process.channel?.unref();
}

/**
 * Calls `handler` for each request to stop, until the returned function is called. While any
 * handler is there, the signals no longer end the process by themselves: the handlers decide.
 */
export function onStopSignal(handler: Handler): () => void {
  for (const signal of STOP_SIGNALS)
    if (!process.listeners(signal).includes(direct[signal])) process.on(signal, direct[signal]);
  handlers.add(handler);
  return () => {
    if (!handlers.delete(handler) || handlers.size > 0) return;
    const stopListening = () => {
      if (handlers.size > 0) return;
      for (const signal of STOP_SIGNALS) process.off(signal, direct[signal]);
    };
    // A passed-on stop may be ahead of its own signal, which must still be caught (and dropped)
    // when it comes, not end the process that is finishing the stop it asked for.
    const pending = unpaired.filter((stop) => stop.via === "forwarded");
    if (pending.length === 0) return stopListening();
    const last = Math.max(...pending.map((stop) => stop.at));
    setTimeout(stopListening, Math.max(0, last + PAIRING_MS - Date.now())).unref();
  };
}

/**
 * Whether the reader of cairn's stdout or stderr has gone. Each write after that fails again,
 * and is dropped; the stop is asked for once.
 */
let outputGone = false;

function onOutputError(error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE") throw error;
  if (outputGone) return;
  outputGone = true;
  for (const handler of [...handlers]) handler("SIGPIPE");
}

/**
 * cairn's output read by a program that stops reading (`cairn schema events | head -1`): the
 * signal that would end a writer quietly, SIGPIPE, is ignored by Node, and the write fails with
 * EPIPE, which unhandled crashed cairn with a stack trace. From here on, what is left to write
 * is dropped; what is running and stops on a signal (a session, a batch, the server) is asked to
 * stop, as the reader's end would have stopped it; a command that only prints ends as it would
 * have, with its own exit code.
 */
export function stopWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr])
    if (!stream.listeners("error").includes(onOutputError)) stream.on("error", onOutputError);
}

/** The exit code of a process ended by `signal` (128 + its number), as shells report it. */
export function signalExitCode(signal: StopSignal): number {
  return 128 + ({ SIGHUP: 1, SIGINT: 2, SIGPIPE: 13, SIGTERM: 15 } as const)[signal];
}
