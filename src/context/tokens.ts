import { setImmediate as nextTurn } from "node:timers/promises";

/** Counts a text's tokens without holding the event loop for long: cancel it with `signal`. */
export type CountTokens = (text: string, signal?: AbortSignal) => Promise<number>;

/** The tokenizer itself: exact, synchronous, and quadratic in the length of one pre-token. */
type Encode = (text: string) => number;

/**
 * How the tokenizer is fed. BPE merges within one pre-token (a run of letters, of spaces, of one
 * punctuation mark) in time that grows with its square: 64 KiB of one character took seconds, 1
 * MiB minutes. No run handed to it is longer than `RUN_CHARS`, so a long run costs time linear in
 * its length (and a cut costs a token or two); pieces are cut where a word starts, as the
 * tokenizer itself splits, at about `PIECE_CHARS`, and never longer than twice that.
 */
const RUN_CHARS = 128;
const PIECE_CHARS = 2048;
/** Text up to this long is counted whole; longer text is estimated from samples of it. */
export const EXACT_CHARS = 64 * 1024;
/** The samples of a long text: evenly spread, together `EXACT_CHARS` long. */
const SAMPLES = 16;
/** Counting gives other work (a timer, Ctrl-C, a stream) its turn at least this often. */
const SLICE_MS = 4;

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The text in pieces the tokenizer handles in linear time; joined, they are the text. */
export function* tokenizerPieces(text: string): Generator<string> {
  let start = 0;
  /** Where the current run of spaces, or of anything but spaces, started. */
  let runStart = 0;
  /** The latest space in this piece that a word follows: the tokenizer splits before it. */
  let wordStart = -1;
  for (let at = 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    const space = isSpace(code);
    const afterSpace = isSpace(text.charCodeAt(at - 1));
    if (space !== afterSpace) runStart = at;
    if (afterSpace && !space) wordStart = at - 1;
    let cut = -1;
    if (at - runStart >= RUN_CHARS || at - start >= 2 * PIECE_CHARS) cut = at;
    else if (at - start >= PIECE_CHARS && wordStart > start) cut = wordStart;
    if (cut < 0 || isLowSurrogate(text.charCodeAt(cut))) continue;
    yield text.slice(start, cut);
    start = cut;
    runStart = Math.max(runStart, cut);
    wordStart = -1;
  }
  if (start < text.length) yield text.slice(start);
}

/** Evenly spread windows of a long text, together `EXACT_CHARS` long. */
function samples(text: string): string[] {
  const size = EXACT_CHARS / SAMPLES;
  const stride = (text.length - size) / (SAMPLES - 1);
  return Array.from({ length: SAMPLES }, (_, i) => {
    const start = Math.floor(i * stride);
    return text.slice(start, start + size);
  });
}

/**
 * Counts `text` with `encode` in bounded time: exactly up to `EXACT_CHARS`, beyond that by
 * scaling the count of evenly spread samples, so a 10 MiB tool result costs what 64 KiB does.
 */
export async function countBounded(encode: Encode, text: string, signal?: AbortSignal): Promise<number> {
  const parts = text.length <= EXACT_CHARS ? [text] : samples(text);
  let tokens = 0;
  let counted = 0;
  let since = performance.now();
  for (const part of parts) {
    for (const piece of tokenizerPieces(part)) {
      if (performance.now() - since > SLICE_MS) {
        await nextTurn();
        signal?.throwIfAborted();
        since = performance.now();
      }
      tokens += encode(piece);
    }
    counted += part.length;
  }
  return counted === text.length ? tokens : Math.round((tokens * text.length) / counted);
}

let loading: Promise<CountTokens> | undefined;

/**
 * The o200k tokenizer, loaded on first use: its tables take a quarter of a second to load, which
 * only a session that is near its window should pay. Other providers' tokenizers differ by a few
 * per cent, which is why compaction triggers at a threshold well below the window.
 */
export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(
    (module) => (text: string, signal?: AbortSignal) => countBounded(module.countTokens, text, signal),
  );
  return loading;
}
