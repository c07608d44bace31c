/**
 * Head+tail truncation for long tool output. The start of an output usually says what ran and
 * the end says how it finished (the failing test, the final error), so both are kept and the
 * middle is replaced by one marked line the model can recognise as a cut.
 */

export interface TruncateLimits {
  /** Bytes kept from the start. */
  headBytes: number;
  /** Bytes kept from the end. */
  tailBytes: number;
}

const DEFAULT_LIMITS: TruncateLimits = { headBytes: 8_000, tailBytes: 16_000 };

export interface TruncatedText {
  text: string;
  truncated: boolean;
  total_bytes: number;
  cut_bytes: number;
  cut_lines: number;
}

const NEWLINE = 0x0a;

function countNewlines(buffer: Buffer): number {
  let count = 0;
  for (let at = buffer.indexOf(NEWLINE); at !== -1; at = buffer.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * Where the kept head should end: after the last newline when one is near the end (so no line
 * is shown half), otherwise at a UTF-8 character boundary.
 */
function headEnd(head: Buffer): number {
  const lastNewline = head.lastIndexOf(NEWLINE);
  if (lastNewline !== -1 && lastNewline >= head.length * 0.75) return lastNewline + 1;
  let lead = head.length - 1;
  while (lead > 0 && isContinuationByte(head[lead])) lead--;
  const byte = head[lead] ?? 0;
  const width = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + width > head.length ? lead : head.length;
}

/** Where the kept tail should start: the mirror image of headEnd. */
function tailStart(tail: Buffer): number {
  const firstNewline = tail.indexOf(NEWLINE);
  if (firstNewline !== -1 && firstNewline < tail.length * 0.25) return firstNewline + 1;
  let start = 0;
  while (start < tail.length && isContinuationByte(tail[start])) start++;
  return start;
}

function cutMarker(lines: number, bytes: number): string {
  return `... [${lines} lines / ${bytes} bytes cut] ...`;
}

/**
 * Collects a stream of output in bounded memory: the first `headBytes` are kept, then a rolling
 * window of the last `tailBytes`; everything in between is only counted.
 */
export class HeadTailBuffer {
  readonly #limits: TruncateLimits;
  #head: Buffer[] = [];
  #headLength = 0;
  #tail: Buffer[] = [];
  #tailLength = 0;
  #totalBytes = 0;
  #totalNewlines = 0;

  constructor(limits: TruncateLimits = DEFAULT_LIMITS) {
    this.#limits = limits;
  }

  push(chunk: Buffer | string): void {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.#totalBytes += data.length;
    this.#totalNewlines += countNewlines(data);
    const headRoom = this.#limits.headBytes - this.#headLength;
    if (headRoom > 0) {
      const taken = data.subarray(0, headRoom);
      this.#head.push(Buffer.from(taken));
      this.#headLength += taken.length;
      data = data.subarray(taken.length);
    }
    if (data.length === 0) return;
    // Copy so a slice does not pin a large parent buffer in memory.
    this.#tail.push(Buffer.from(data.subarray(Math.max(0, data.length - this.#limits.tailBytes))));
    this.#tailLength += Math.min(data.length, this.#limits.tailBytes);
    while (this.#tail.length > 1 && this.#tailLength - this.#tail[0]!.length >= this.#limits.tailBytes) {
      this.#tailLength -= this.#tail.shift()!.length;
    }
  }

  finish(): TruncatedText {
    const head = Buffer.concat(this.#head);
    const rawTail = Buffer.concat(this.#tail);
    const total = this.#totalBytes;
    if (head.length + rawTail.length === total) {
      return {
        text: Buffer.concat([head, rawTail]).toString("utf8"),
        truncated: false,
        total_bytes: total,
        cut_bytes: 0,
        cut_lines: 0,
      };
    }
    const tail = rawTail.subarray(Math.max(0, rawTail.length - this.#limits.tailBytes));
    const keptHead = head.subarray(0, headEnd(head));
    const keptTail = tail.subarray(tailStart(tail));
    const cutBytes = total - keptHead.length - keptTail.length;
    const cutLines = this.#totalNewlines - countNewlines(keptHead) - countNewlines(keptTail);
    const headText = keptHead.toString("utf8");
    const separator = headText === "" || headText.endsWith("\n") ? "" : "\n";
    return {
      text: `${headText}${separator}${cutMarker(cutLines, cutBytes)}\n${keptTail.toString("utf8")}`,
      truncated: true,
      total_bytes: total,
      cut_bytes: cutBytes,
      cut_lines: cutLines,
    };
  }
}

/**
 * Truncates text already in memory the same way a streamed output is. Text that fits, as almost
 * every tool's output does, is only measured: not copied to a buffer and back with its lines
 * counted (15-20 µs for a 5 kB read here). It comes back as that round trip through UTF-8 made it,
 * a lone surrogate as U+FFFD.
 */
export function truncateHeadTail(text: string, limits: TruncateLimits = DEFAULT_LIMITS): TruncatedText {
  const bytes = Buffer.byteLength(text);
  if (bytes <= limits.headBytes + limits.tailBytes) {
    const wellFormed = (text as string & { toWellFormed(): string }).toWellFormed();
    return { text: wellFormed, truncated: false, total_bytes: bytes, cut_bytes: 0, cut_lines: 0 };
  }
  const buffer = new HeadTailBuffer(limits);
  buffer.push(text);
  return buffer.finish();
}
