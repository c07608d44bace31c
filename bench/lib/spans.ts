// Spans of real files and the slips made on them: the pieces the edit corpus's makers share,
// with an oracle independent of the matcher for where a span of lines occurs at all.
import type { Random } from "./random.js";

/**
 * A line as no tolerated slip can change it: trimmed, runs of blanks inside it read as one,
 * typographic punctuation folded to ASCII.
 */
export function loose(line: string): string {
  return line
    .trim()
    .replace(/[ \t]+/g, " ")
    .replace(/[\u2018-\u201B\u2032]/g, "'")
    .replace(/[\u201C-\u201F\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/[\u00A0\u2007\u202F]/g, " ");
}

/** How many runs of consecutive lines of `lines` equal `span`, line by line under `key`. */
export function spanMatches(lines: readonly string[], span: readonly string[], key = loose): number {
  const keys = lines.map(key);
  const wanted = span.map(key);
  let count = 0;
  for (let i = 0; i + wanted.length <= keys.length; i++) {
    if (wanted.every((key, j) => keys[i + j] === key)) count++;
  }
  return count;
}

export function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) count++;
  return count;
}

/** The replacement of lines [at, at + count) by `replacement`, joined with `eol`. */
export function editOf(
  lines: readonly string[],
  at: number,
  count: number,
  replacement: readonly string[],
  eol = "\n",
) {
  const content = lines.join(eol);
  const start = lines.slice(0, at).reduce((n, line) => n + line.length + eol.length, 0);
  const end = start + lines.slice(at, at + count).join(eol).length;
  return {
    content,
    region: [start, end] as [number, number],
    expected: content.slice(0, start) + replacement.join(eol) + content.slice(end),
  };
}

export interface Span {
  at: number;
  lines: string[];
}

export function pickSpan(
  random: Random,
  lines: readonly string[],
  min: number,
  max: number,
): Span | undefined {
  const length = random.int(min, max);
  if (lines.length < length) return undefined;
  const at = random.int(0, lines.length - length);
  const span = lines.slice(at, at + length);
  const solid = span.join("").replace(/\s/g, "").length;
  if (span[0]!.trim() === "" || span.at(-1)!.trim() === "" || solid < 12) return undefined;
  return { at, lines: span };
}

/** A span that occurs exactly once, however it is looked at. */
export function pickUniqueSpan(
  random: Random,
  lines: readonly string[],
  min: number,
  max: number,
): Span | undefined {
  const span = pickSpan(random, lines, min, max);
  if (!span || spanMatches(lines, span.lines) !== 1) return undefined;
  if (occurrences(lines.join("\n"), span.lines.join("\n")) !== 1) return undefined;
  return span;
}

/** The change a model makes: a name renamed, or a line added when there is no name to rename. */
export function mutate(random: Random, lines: readonly string[]): string[] {
  const out = [...lines];
  const words = lines.flatMap((line, i) =>
    [...line.matchAll(/\b[A-Za-z_][A-Za-z0-9_]{3,}\b/g)].map((match) => ({
      i,
      at: match.index,
      word: match[0],
    })),
  );
  if (words.length > 0) {
    const { i, at, word } = random.pick(words);
    out[i] = `${lines[i]!.slice(0, at)}${word}Next${lines[i]!.slice(at + word.length)}`;
  } else {
    out.push(`${indentOf(lines.at(-1)!)}// edited`);
  }
  return out;
}

export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

export function curl(line: string): string {
  let double = 0;
  let single = 0;
  return line.replace(/["']/g, (quote) =>
    quote === '"' ? (double++ % 2 ? "\u201D" : "\u201C") : single++ % 2 ? "\u2019" : "\u2018",
  );
}

/** An edit as a maker makes it, before it is named and placed in the corpus. */
export interface Made {
  /** The file as it is when the edit arrives. */
  content: string;
  oldString: string;
  newString: string;
  /** The file as the edit meant it, or null when the edit must be refused. */
  expected: string | null;
  /** Offsets in `content` of the text the edit meant to replace. */
  region?: [number, number];
}

export type Maker = (random: Random, lines: string[]) => Made | undefined;

export const joined = (lines: readonly string[]) => lines.join("\n");

/**
 * The edit, unless its slipped old_string occurs verbatim in the file: an exact match would
 * decide it, so it would not be a case of its slip.
 */
export function unlessVerbatim(lines: readonly string[], made: Made): Made | undefined {
  return occurrences(lines.join("\n"), made.oldString) > 0 ? undefined : made;
}

/** The edit of `span` into `next`, with old_string and new_string both written out by `write`. */
export function writtenBoth(
  lines: readonly string[],
  span: Span,
  next: readonly string[],
  write: (body: readonly string[]) => string,
): Made {
  return {
    ...editOf(lines, span.at, span.lines.length, next),
    oldString: write(span.lines),
    newString: write(next),
  };
}
