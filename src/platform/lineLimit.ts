import { Transform, type TransformCallback } from "node:stream";

/** A line that was too long and was dropped: its length, and its first and last bytes to say what it was. */
export interface DroppedLine {
  bytes: number;
  head: string;
  tail: string;
}

/** How much of each end of a dropped line is kept: a JSON-RPC message's id is near one or the other. */
const END_BYTES = 1024;
const NEWLINE = 0x0a;

/** The last `END_BYTES` of these buffers, copying no more than that. */
function lastBytes(buffers: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let length = 0;
  for (let i = buffers.length - 1; i >= 0 && length < END_BYTES; i--) {
    const buffer = buffers[i]!;
    const part = buffer.subarray(Math.max(0, buffer.length - (END_BYTES - length)));
    kept.unshift(part);
    length += part.length;
  }
  return Buffer.concat(kept);
}

/**
 * Newline-delimited messages (JSON-RPC over stdio), each no longer than `maxBytes`: a line is
 * passed on whole once its newline arrives, and one that grows past the limit is dropped as it
 * comes in, never held, and reported once it ends, so the reader can answer it with an error
 * and go on with the next.
 */
export class LineLimit extends Transform {
  private readonly maxBytes: number;
  private readonly onDropped: (line: DroppedLine) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the line being dropped, and its ends; undefined while the line is within the limit. */
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(maxBytes: number, onDropped: (line: DroppedLine) => void) {
    super();
    this.maxBytes = maxBytes;
    this.onDropped = onDropped;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.accept(chunk.subarray(start, end), newline !== -1);
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    this.accept(Buffer.alloc(0), true);
    done();
  }

  private accept(piece: Buffer, ends: boolean): void {
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      this.dropping.tail = lastBytes([this.dropping.tail, piece]);
    } else if (this.pendingBytes + piece.length > this.maxBytes) {
      const head = Buffer.concat([...this.pending, piece.subarray(0, END_BYTES)]).subarray(0, END_BYTES);
      const tail = lastBytes([...this.pending, piece]);
      this.dropping = { bytes: this.pendingBytes + piece.length, head, tail };
      this.pending = [];
      this.pendingBytes = 0;
    } else {
      this.pending.push(piece);
      this.pendingBytes += piece.length;
    }
    if (!ends) return;
    if (this.dropping) {
      const { bytes, head, tail } = this.dropping;
      this.onDropped({ bytes, head: head.toString("utf8"), tail: tail.toString("utf8") });
      this.dropping = undefined;
    } else if (this.pendingBytes > 0) {
      this.push(Buffer.concat(this.pending));
    }
    this.pending = [];
    this.pendingBytes = 0;
  }
}

const ID = String.raw`("(?:[^"\\]|\\.)*"|-?\d+|null)`;
/** An id among the top-level keys before any nested value: `{"jsonrpc":"2.0","id":7,"method":…`. */
const ID_FIRST = new RegExp(String.raw`^\s*\{(?:[^{}\[\]"]|"(?:[^"\\]|\\.)*")*?"id"\s*:\s*${ID}`);
/** An id as the last key: `…,"params":{…},"id":7}`, as the MCP SDK writes it. */
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
/** A method named among the top-level keys before any nested value: a request or a notification. */
const METHOD_FIRST = /^\s*\{(?:[^{}[\]"]|"(?:[^"\\]|\\.)*")*?"method"\s*:/;

/**
 * The JSON-RPC error that answers a dropped message: to the request whose id one of its ends
 * shows, or with a null id as the protocol says for a message that could not be read; nothing
 * for a notification (a method and no id), which expects no answer.
 */
export function refusalOf(line: DroppedLine, limit: string): string | undefined {
  const id = ID_FIRST.exec(line.head)?.[1] ?? ID_LAST.exec(line.tail)?.[1];
  if (id === undefined && METHOD_FIRST.test(line.head)) return undefined;
  const error = { code: -32600, message: `message of ${line.bytes} bytes refused: over ${limit}` };
  return `${JSON.stringify({ jsonrpc: "2.0", id: id === undefined ? null : JSON.parse(id), error })}\n`;
}
