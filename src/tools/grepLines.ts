import { open } from "node:fs/promises";

/**
 * Lines as grep reads and shows them, bounded: a file is scanned a block at a time holding at
 * most one line, and a matching line longer than HIT_CHARS is shown cut around its first match,
 * so a minified bundle or a data dump on one line costs one line of memory and a short hit.
 */

/** A matching line up to this many characters is shown whole. */
export const HIT_CHARS = 300;
/** Of a longer line, this many characters before the first match, and the rest after it. */
const CHARS_BEFORE = 100;
const CHARS_AFTER = HIT_CHARS - CHARS_BEFORE;
/**
 * Bytes read on each side of a match when the line is cut from the file: enough for HIT_CHARS
 * characters of four bytes, plus a character the window's edge may cut in two.
 */
const WINDOW_BYTES = 4 * HIT_CHARS + 4;
/** ripgrep reads in blocks of this size and drops the block a NUL byte shows up in. */
const BLOCK_BYTES = 64 * 1024;
/**
 * The longest line the JS search holds to match; past it (JavaScript strings stop at about half
 * a gigabyte anyway) the rest of that file is not searched, rather than memory running out.
 */
const MAX_LINE_BYTES = 128 * 1024 * 1024;

/** A matching line split where its first match starts; each side may be all of it or a stretch. */
export interface MatchedLine {
  before: string;
  after: string;
  /** `before` starts where the line starts. */
  startKnown: boolean;
  /** `after` ends where the line ends (line break removed). */
  endKnown: boolean;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The text a hit shows. Both engines call this with the same line and match, so they show the
 * same text whether ripgrep sent the line or it was cut from the file.
 */
export function hitText({ before, after, startKnown, endKnown }: MatchedLine): string {
  if (startKnown && endKnown && before.length + after.length <= HIT_CHARS) return before + after;
  let head = before;
  if (!startKnown || before.length > CHARS_BEFORE) {
    head = before.slice(-CHARS_BEFORE);
    if (isLowSurrogate(head.charCodeAt(0))) head = head.slice(1);
    head = `…${head}`;
  }
  let tail = after;
  if (!endKnown || after.length > CHARS_AFTER) {
    tail = after.slice(0, CHARS_AFTER);
    if (isHighSurrogate(tail.charCodeAt(tail.length - 1))) tail = tail.slice(0, -1);
    tail = `${tail}…`;
  }
  return head + tail;
}

/** A line as read, without its line break (`\n`, or `\r\n`). */
export function withoutBreak(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** A whole line split at `matchIndex` (in UTF-16 units). */
export function splitLine(line: string, matchIndex: number): MatchedLine {
  return {
    before: line.slice(0, matchIndex),
    after: line.slice(matchIndex),
    startKnown: true,
    endKnown: true,
  };
}

/**
 * The part of a long line around a match, read from the file: `lineOffset` is where the line
 * starts and `matchInLine` where the match starts in it, both in bytes after any UTF-8
 * byte-order mark, as ripgrep counts them.
 */
export async function readMatchedLine(
  file: string,
  lineOffset: number,
  matchInLine: number,
): Promise<MatchedLine> {
  const handle = await open(file, "r");
  try {
    const mark = Buffer.alloc(3);
    await handle.read(mark, 0, 3, 0);
    const lineStart = lineOffset + (mark[0] === 0xef && mark[1] === 0xbb && mark[2] === 0xbf ? 3 : 0);
    const match = lineStart + matchInLine;
    const start = Math.max(lineStart, match - WINDOW_BYTES);
    const window = Buffer.alloc(match - start + WINDOW_BYTES);
    const { bytesRead } = await handle.read(window, 0, window.length, start);
    const after = window.toString("utf8", match - start, bytesRead);
    const lineBreak = after.indexOf("\n");
    return {
      before: window.toString("utf8", 0, match - start),
      after: withoutBreak(lineBreak === -1 ? after : after.slice(0, lineBreak)),
      startKnown: start === lineStart,
      endKnown: lineBreak !== -1 || bytesRead < window.length,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Calls `onLine` with each line of the part of a file ripgrep would search (without the `\n`),
 * until it returns false. A walked file is binary from the block holding its first NUL byte on,
 * and only the lines before that block are searched; a file named explicitly is searched whole,
 * as ripgrep does. A UTF-8 byte-order mark is skipped.
 */
export async function scanLines(
  file: string,
  explicit: boolean,
  onLine: (line: Buffer, number: number) => boolean,
): Promise<void> {
  const handle = await open(file, "r");
  try {
    // Pieces of a line that began in an earlier block; joined once, when the line ends.
    let pieces: Buffer[] = [];
    let piecesBytes = 0;
    let number = 0;
    for (let position = 0; ; ) {
      const block = Buffer.allocUnsafe(BLOCK_BYTES);
      const { bytesRead } = await handle.read(block, 0, BLOCK_BYTES, position);
      if (bytesRead === 0) break;
      let data = block.subarray(0, bytesRead);
      if (!explicit && data.includes(0)) return;
      if (position === 0 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) data = data.subarray(3);
      position += bytesRead;
      let start = 0;
      for (let end = data.indexOf(0x0a); end !== -1; end = data.indexOf(0x0a, start)) {
        const piece = data.subarray(start, end);
        const line = pieces.length ? Buffer.concat([...pieces, piece]) : piece;
        pieces = [];
        piecesBytes = 0;
        start = end + 1;
        if (!onLine(line, ++number)) return;
      }
      if (start < data.length) {
        pieces.push(data.subarray(start));
        piecesBytes += data.length - start;
        if (piecesBytes > MAX_LINE_BYTES) return;
      }
    }
    if (pieces.length) onLine(Buffer.concat(pieces), ++number);
  } finally {
    await handle.close();
  }
}
