/**
 * Where a reply quotes code in Markdown: fenced blocks and inline code spans. A tool call written
 * there is shown, not made (docs/models.md, "Tool calls written as text"). Indented blocks are
 * not counted as code: a model that pretty-prints the JSON of a call indents it, and a quoted
 * example in an answer is fenced.
 */

/** A fenced block: where it starts and ends, its info string, and where its body lies. */
export interface Fence {
  start: number;
  end: number;
  info: string;
  bodyStart: number;
  bodyEnd: number;
}

export interface CodeRegions {
  fences: Fence[];
  /** Fences and inline code spans, as [start, end) offsets, in order. */
  ranges: Array<[number, number]>;
}

const OPENING = /^ {0,3}(`{3,}|~{3,})([^`\n]*)$/;
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

function lines(text: string): Array<{ start: number; end: number; line: string }> {
  const out: Array<{ start: number; end: number; line: string }> = [];
  let start = 0;
  for (const line of text.split("\n")) {
    out.push({ start, end: start + line.length, line });
    start += line.length + 1;
  }
  return out;
}

function fencesOf(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: { marker: string; info: string; start: number; bodyStart: number } | undefined;
  for (const { start, end, line } of lines(text)) {
    if (!open) {
      const match = OPENING.exec(line);
      if (match) open = { marker: match[1] ?? "", info: (match[2] ?? "").trim(), start, bodyStart: end + 1 };
      continue;
    }
    const close = CLOSING.exec(line)?.[1];
    if (close && close[0] === open.marker[0] && close.length >= open.marker.length) {
      fences.push({ start: open.start, end, info: open.info, bodyStart: open.bodyStart, bodyEnd: start });
      open = undefined;
    }
  }
  // An unclosed fence runs to the end of the text, as Markdown renders it.
  if (open)
    fences.push({
      start: open.start,
      end: text.length,
      info: open.info,
      bodyStart: Math.min(open.bodyStart, text.length),
      bodyEnd: text.length,
    });
  return fences;
}

/** Inline code spans between `from` and `to`: a run of backticks closed by a run of the same length. */
function spansIn(text: string, from: number, to: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let run = runs.exec(text); run && run.index < to; run = runs.exec(text)) {
    const ticks = run[0];
    const closer = new RegExp(`(?<!\`)${ticks}(?!\`)`, "g");
    closer.lastIndex = run.index + ticks.length;
    const close = closer.exec(text);
    if (!close || close.index >= to) continue;
    spans.push([run.index, close.index + ticks.length]);
    runs.lastIndex = close.index + ticks.length;
  }
  return spans;
}

export function codeRegions(text: string): CodeRegions {
  const fences = fencesOf(text);
  const ranges: Array<[number, number]> = [];
  let from = 0;
  for (const fence of fences) {
    ranges.push(...spansIn(text, from, fence.start), [fence.start, fence.end]);
    from = fence.end;
  }
  ranges.push(...spansIn(text, from, text.length));
  return { fences, ranges };
}
