import { useRef, useState } from "react";

/**
 * How long the keyboard must have been still, and the question on screen, before a key may
 * answer it. Longer than a key's repeat delay (about 250–660 ms on common systems), so a held key
 * never answers, and far longer than the gap between keys typed in a stream (a tenth of a second),
 * so text typed ahead for the prompt never does either.
 */
export const ANSWER_QUIET_MS = 800;

/**
 * Tells a key pressed on purpose from one typed ahead, repeated or pasted: a key answers only
 * when nothing came in (no key, no paste, not the question itself appearing) for `quietMs`
 * before it, and when it is one key, not a burst of them. Every key and paste is recorded,
 * taken or not, so a stream of keys keeps the guard shut until it stops.
 */
export class KeyGuard {
  private last: number;
  private readonly quietMs: number;

  constructor(quietMs = ANSWER_QUIET_MS, shownAt = Date.now()) {
    this.quietMs = quietMs;
    this.last = shownAt;
  }

  /** Records a key (`single`) or a burst or paste; true when it may answer. */
  take(single: boolean, now = Date.now()): boolean {
    const quiet = now - this.last >= this.quietMs;
    this.last = now;
    return single && quiet;
  }
}

/** A `KeyGuard` for a component on screen, and how many keys it has turned away (to say so). */
export function useKeyGuard(quietMs = ANSWER_QUIET_MS): {
  take: (single: boolean) => boolean;
  turnedAway: number;
} {
  const guard = useRef<KeyGuard | undefined>(undefined);
  guard.current ??= new KeyGuard(quietMs);
  const [turnedAway, setTurnedAway] = useState(0);
  return {
    take(single) {
      const taken = guard.current?.take(single) ?? false;
      if (!taken) setTurnedAway((n) => n + 1);
      return taken;
    },
    turnedAway,
  };
}
