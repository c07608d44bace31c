/**
 * Streamed Markdown, cut into blocks as soon as each is complete, so a finished block is rendered
 * (and highlighted) once and printed for good while only the unfinished tail stays live. The cut
 * is incremental: each line is looked at once however long the answer grows.
 */
export interface BlockStream {
  /** Text not yet cut off as a block: the block being written. */
  text: string;
  /** Where the first line not yet looked at starts in `text`. */
  scanned: number;
  /** The fence (``` or ~~~ run) of the code block being written, if inside one. */
  fence: string | null;
}

export const emptyStream: BlockStream = { text: "", scanned: 0, fence: null };

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
  let text = stream.text + delta;
  let { scanned, fence } = stream;
  const blocks: string[] = [];
  for (let end = text.indexOf("\n", scanned); end !== -1; end = text.indexOf("\n", scanned)) {
    const line = text.slice(scanned, end);
    scanned = end + 1;
    let complete = false;
    if (fence) {
      if (closes(line, fence)) {
        fence = null;
        complete = true;
      }
    } else {
      const open = FENCE.exec(line)?.[1];
      if (open) fence = open;
      else complete = line.trim() === "" && text.slice(0, end).trim() !== "";
    }
    if (complete) {
      blocks.push(text.slice(0, scanned).trim());
      text = text.slice(scanned);
      scanned = 0;
    }
  }
  return { stream: { text, scanned, fence }, blocks };
}
