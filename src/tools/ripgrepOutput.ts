/**
 * ripgrep's plain output with `--null --line-number --column --byte-offset --no-heading
 * --with-filename`: one record a matching line, `path NUL line:column:offset:text LF`. It is read
 * straight from the bytes, a fraction of the work of its JSON output (which spells out every
 * submatch), and a record is never longer than `--max-columns` allows plus its path.
 */

export interface RipgrepRecord {
  /** As ripgrep printed it, without a leading `./`. */
  path: string;
  line: number;
  /** Byte offset of the line's first match within the line. */
  matchInLine: number;
  /** Byte offset of the line in the file, not counting a UTF-8 byte-order mark. */
  lineOffset: number;
  /** Where the line's bytes are, without the line feed, in `data`; omitted when ripgrep left a long line out. */
  data: Buffer;
  textStart: number;
  textEnd: number;
  omitted: boolean;
}

/** What ripgrep prints instead of a line longer than `--max-columns` (the second without match counts). */
const OMITTED = /^\[Omitted long (?:line with \d+ matches?|matching line)\]$/;

function parseNumber(data: Buffer, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index++) value = value * 10 + (data[index]! - 0x30);
  return value;
}

export class RipgrepOutput {
  private rest: Buffer = Buffer.alloc(0);
  private lastPath: { bytes: Buffer; text: string } | undefined;

  /**
   * Reads a chunk of ripgrep's stdout, calling `onRecord` for every record it completes, until
   * `onRecord` returns false. Only the unfinished record is carried over to the next chunk.
   */
  push(chunk: Buffer, onRecord: (record: RipgrepRecord) => boolean): void {
    const data = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (;;) {
      // The path ends at the first NUL: a path holds none, and the line may (a file named explicitly).
      const nul = data.indexOf(0, start);
      if (nul === -1) break;
      const end = data.indexOf(0x0a, nul);
      if (end === -1) break;
      const record = this.parse(data, start, nul, end);
      start = end + 1;
      if (!onRecord(record)) break;
    }
    this.rest = data.subarray(start);
  }

  private parse(data: Buffer, start: number, nul: number, end: number): RipgrepRecord {
    const lineEnd = data.indexOf(0x3a, nul + 1);
    const columnEnd = data.indexOf(0x3a, lineEnd + 1);
    const offsetEnd = data.indexOf(0x3a, columnEnd + 1);
    const textStart = offsetEnd + 1;
    return {
      path: this.pathOf(data, start, nul),
      line: parseNumber(data, nul + 1, lineEnd),
      matchInLine: parseNumber(data, lineEnd + 1, columnEnd) - 1,
      lineOffset: parseNumber(data, columnEnd + 1, offsetEnd),
      data,
      textStart,
      textEnd: end,
      // A line that merely reads like the marker is read back from the file, which is still right.
      omitted: data[textStart] === 0x5b && OMITTED.test(data.toString("utf8", textStart, end)),
    };
  }

  /** Hits come file by file: the path of the last one is decoded once, and is the same string. */
  private pathOf(data: Buffer, start: number, end: number): string {
    const last = this.lastPath;
    if (
      last &&
      last.bytes.length === end - start &&
      data.compare(last.bytes, 0, last.bytes.length, start, end) === 0
    ) {
      return last.text;
    }
    const bytes = Buffer.from(data.subarray(start, end));
    this.lastPath = { bytes, text: bytes.toString("utf8").replace(/^\.\//, "") };
    return this.lastPath.text;
  }
}
