import { describe, expect, it } from "vitest";
import { KeyGuard } from "../../../src/ui/tui/keyGuard.js";

describe("the key guard of a question on screen", () => {
  it("takes a key only after the question and the keyboard have been still a moment", () => {
    const guard = new KeyGuard(800, 0);
    expect(guard.take(true, 500)).toBe(false);
    expect(guard.take(true, 1400)).toBe(true);
  });

  it("never takes a key of a stream: twenty keys a tenth of a second apart, or a held key", () => {
    const typed = new KeyGuard(800, 0);
    const taken = Array.from({ length: 20 }, (_, i) => typed.take(true, 50 + i * 100));
    expect(taken.some(Boolean)).toBe(false);
    // A held key: the first repeat comes after the system's delay, the rest 30 ms apart.
    const held = new KeyGuard(800, 0);
    const repeats = [660, ...Array.from({ length: 30 }, (_, i) => 690 + i * 30)];
    expect(repeats.some((at) => held.take(true, at))).toBe(false);
  });

  it("never takes a burst or a paste, and a burst keeps it shut", () => {
    const guard = new KeyGuard(800, 0);
    expect(guard.take(false, 5000)).toBe(false);
    expect(guard.take(true, 5100)).toBe(false);
    expect(guard.take(true, 6000)).toBe(true);
  });
});
