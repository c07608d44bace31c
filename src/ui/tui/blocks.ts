/**
 * Streamed Markdown, cut into blocks as soon as each is complete, so a finished block is rendered
 * (and highlighted) once and printed for good while only the unfinished tail stays live.
 *
 * A delta costs the same at the end of a long block as at its start. Appending to a string makes
 * a rope (V8's cons string) that any read of it — a search, a trim, a slice — first copies whole:
 * a 3,000-word paragraph read at every delta is copied thousands of times over. So the block is
 * kept as its finished lines and the line being written, each line read once when it ends, and
 * what a frame draws is `tail`, kept short.
 */
export interface BlockStream {
  /** The lines of the block being written that have ended, since the last block was cut. */
  lines: readonly string[];
  /** The line being written: appended to, not read, until it ends. */
  line: string;
  /** Whether a finished line of the block has anything but whitespace. */
  begun: boolean;
  /** The fence (``` or ~~~ run) of the code block being written, if inside one. */
  fence: string | null;
  /** The end of the block, at least TAIL_CHARS of it (all of it when shorter): what the live area draws. */
  tail: string;
  /** Whether the block holds anything but whitespace: a live area to draw at all. */
  visible: boolean;
}

export const emptyStream: BlockStream = {
  lines: [],
  line: "",
  begun: false,
  fence: null,
  tail: "",
  visible: false,
};

/** More than any terminal's screen holds: the live area draws only what fits its rows. */
export const TAIL_CHARS = 32_768;

/** The text not yet cut off as a block: read once, when the answer ends. */
export function unfinishedText(stream: BlockStream): string {
  return [...stream.lines, stream.line].join("\n");
}

/** The tail with `delta` appended, cut back to TAIL_CHARS once it is twice that: a copy every so often, not each time. */
function withTail(tail: string, delta: string): string {
  const longer = tail + delta;
  return longer.length > 2 * TAIL_CHARS ? longer.slice(-TAIL_CHARS) : longer;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function closes(line: string, fence: string): boolean {
  const match = FENCE.exec(line);
  return Boolean(
    match?.[1] &&
      match[1][0] === fence[0] &&
      match[1].length >= fence.length &&
      !line.slice(match[0].length).trim(),
  );
}

/** Appends streamed text and returns the blocks it completed, with what is left of the stream. */
export function appendStream(stream: BlockStream, delta: string): { stream: BlockStream; blocks: string[] } {
  const visible = stream.visible || /\S/.test(delta);
  const [first = "", ...ended] = delta.split("\n");
  // No line ended: nothing to cut, and the line is not read.
  if (ended.length === 0)
    return {
      stream: { ...stream, line: stream.line + first, tail: withTail(stream.tail, delta), visible },
      blocks: [],
    };
  let lines = [...stream.lines];
  let { begun, fence } = stream;
  const blocks: string[] = [];
  // Each piece but the last ends a line: the line being written, then the delta's own lines.
  const pieces = [stream.line + first, ...ended];
  const line = pieces.pop() ?? "";
  for (const done of pieces) {
    let complete = false;
    if (fence) {
      if (closes(done, fence)) {
        fence = null;
        complete = true;
      }
    } else {
      const open = FENCE.exec(done)?.[1];
      if (open) fence = open;
      else complete = done.trim() === "" && begun;
    }
    lines.push(done);
    begun ||= done.trim() !== "";
    if (complete) {
      blocks.push(lines.join("\n").trim());
      lines = [];
      begun = false;
    }
  }
  // A block was cut: what is left is short, its tail read whole; else the tail only grows.
  const rest = { lines, line, begun, fence };
  if (blocks.length === 0)
    return { stream: { ...rest, tail: withTail(stream.tail, delta), visible }, blocks };
  const tail = unfinishedText({ ...rest, tail: "", visible: false }).slice(-TAIL_CHARS);
  return { stream: { ...rest, tail, visible: /\S/.test(tail) }, blocks };
}
