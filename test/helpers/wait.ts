import { scaled } from "./timeScale.js";

/**
 * Polls `probe` (or awaits it, when it answers with a promise) until it gives something (not
 * undefined or false) and returns that. After
 * `timeoutMs`, stretched by the machine's load, it fails the test naming `what` it waited for:
 * the deadline ends a test that would hang, it does not judge speed.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
