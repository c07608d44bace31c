/**
 * Where an edit applies, on strings only, so a benchmark can run a corpus through it without
 * touching disk.
 *
 * old_string is looked for verbatim first. When that finds nothing, a fixed ladder of
 * tolerances is tried, each a normalisation both sides go through, and the first level that
 * finds anything decides. Two rules make a wrong application impossible by construction: the
 * level's hits must be unique (unless replace_all), and every hit is mapped back to an exact
 * range of the original text through offsets recorded while normalising; a hit whose edges fall
 * inside a character that normalising expanded is dropped rather than guessed at.
 */

export type EditStrategy =
  | "exact"
  | "line_endings"
  | "trailing_whitespace"
  | "indentation"
  | "unicode_punctuation"
  | "unicode_punctuation_indentation";

export interface EditRange {
  /** Offsets of the replaced text in the original content. */
  start: number;
  end: number;
  /** 1-based lines the replaced text spanned in the original. */
  startLine: number;
  endLine: number;
  /** 1-based lines the replacement spans in the new content. */
  newStartLine: number;
  newEndLine: number;
}

export type EditFailure =
  | "identical"
  | "empty_old_string"
  | "not_found"
  | "ambiguous"
  | "unsafe_reindent"
  | "unchanged";

export type EditResult =
  | { ok: true; newContent: string; strategy: EditStrategy; note: string | null; ranges: EditRange[] }
  | { ok: false; reason: EditFailure; message: string; lines?: number[] };

export interface EditOptions {
  replaceAll?: boolean;
}

/** Lines longer than this are cut when shown, in read_file and in edit errors alike. */
export const MAX_LINE_CHARS = 2000;

/** cat -n style, so the line numbers the model sees are the same everywhere. */
export function numberedLine(lineNo: number, text: string, fullLength = text.length): string {
  const shown =
    fullLength > MAX_LINE_CHARS
      ? `${text.slice(0, MAX_LINE_CHARS)} [… line cut, ${fullLength} characters in all]`
      : text;
  return `${String(lineNo).padStart(6)}\t${shown}`;
}

/** The line ending most of the text uses; "\n" when it has none. */
export function lineEnding(text: string): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

export function withLineEnding(text: string, eol: "\n" | "\r\n"): string {
  const lf = text.replace(/\r\n/g, "\n");
  return eol === "\n" ? lf : lf.replace(/\n/g, "\r\n");
}

// ---------------------------------------------------------------------------------------------
// Normalised views

interface Normalisation {
  lineEndings: boolean;
  trailingWhitespace: boolean;
  punctuation: boolean;
}

/** What models type instead of the typographic characters in a file, and the other way round. */
const PUNCTUATION: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2026": "...",
  "\u00A0": " ",
  "\u2007": " ",
  "\u202F": " ",
};

interface View {
  text: string;
  /**
   * For each position of `text` (and its end), the original offset where that position's
   * group starts, or -1 inside a group that produced several characters. Trailing whitespace
   * that was dropped belongs to the group of the line break after it.
   */
  origin: Int32Array;
}

function isBlank(ch: string | undefined): boolean {
  return ch === " " || ch === "\t";
}

function lineBreakAt(source: string, i: number): boolean {
  return i === source.length || source[i] === "\n" || (source[i] === "\r" && source[i + 1] === "\n");
}

function normalise(source: string, how: Normalisation): View {
  let expansions = 0;
  if (how.punctuation) {
    for (let i = source.indexOf("\u2026"); i !== -1; i = source.indexOf("\u2026", i + 1)) expansions += 2;
  }
  const origin = new Int32Array(source.length + expansions + 1);
  const parts: string[] = [];
  let length = 0;
  let groupStart = 0;
  let i = 0;
  const emit = (piece: string, next: number) => {
    origin[length] = groupStart;
    for (let k = 1; k < piece.length; k++) origin[length + k] = -1;
    parts.push(piece);
    length += piece.length;
    i = next;
    groupStart = next;
  };
  while (i < source.length) {
    const ch = source[i]!;
    if (how.trailingWhitespace && isBlank(ch)) {
      let runEnd = i;
      while (isBlank(source[runEnd])) runEnd++;
      if (lineBreakAt(source, runEnd)) {
        i = runEnd;
      } else {
        while (i < runEnd) emit(source[i]!, i + 1);
      }
    } else if (how.lineEndings && ch === "\r" && source[i + 1] === "\n") {
      emit("\n", i + 2);
    } else {
      emit((how.punctuation && PUNCTUATION[ch]) || ch, i + 1);
    }
  }
  origin[length] = groupStart;
  return { text: parts.join(""), origin };
}

// ---------------------------------------------------------------------------------------------
// Matching

interface Shift {
  prefix: string;
  /** True when the file is indented `prefix` deeper than old_string, false when shallower. */
  fileIsDeeper: boolean;
}

interface Hit {
  start: number;
  end: number;
  shift?: Shift;
}

interface Level {
  strategy: EditStrategy;
  note: string | null;
  find(content: string, oldString: string): Hit[];
}

/** Every start, overlapping ones included: "aa" in "aaa" is two places, so it is ambiguous. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
}

function findInView(content: string, oldString: string, how: Normalisation): Hit[] {
  const needleView = normalise(oldString, how);
  const needle = needleView.text;
  if (needle === "") return [];
  // Whitespace dropped from the end of old_string was trailing only if the file's line ends there.
  const mustEndLine = needleView.origin[needle.length] !== oldString.length;
  const view = normalise(content, how);
  const hits: Hit[] = [];
  for (const at of occurrences(view.text, needle)) {
    const after = at + needle.length;
    if (mustEndLine && after < view.text.length && view.text[after] !== "\n") continue;
    const start = view.origin[at]!;
    const end = view.origin[after]!;
    if (start >= 0 && end >= 0) hits.push({ start, end });
  }
  return hits;
}

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function shiftBetween(oldIndent: string, fileIndent: string): Shift | null {
  if (fileIndent.endsWith(oldIndent)) {
    return { prefix: fileIndent.slice(0, fileIndent.length - oldIndent.length), fileIsDeeper: true };
  }
  if (oldIndent.endsWith(fileIndent)) {
    return { prefix: oldIndent.slice(0, oldIndent.length - fileIndent.length), fileIsDeeper: false };
  }
  return null;
}

/**
 * Whole lines whose content equals old_string's line for line once leading whitespace is set
 * aside, and whose indentation differs from old_string's by the same prefix on every non-blank
 * line. Anything less uniform is not a shift and is not matched.
 */
function findShifted(content: string, oldString: string, how: Normalisation): Hit[] {
  const oldLines = normalise(oldString, how).text.split("\n");
  const wholeLines = oldLines.at(-1) === "";
  if (wholeLines) oldLines.pop();
  if (!oldLines.some((line) => line.trim() !== "")) return [];
  const oldIndents = oldLines.map(indentOf);
  const oldBodies = oldLines.map((line, j) => line.slice(oldIndents[j]!.length));

  const view = normalise(content, how);
  const fileLines = view.text.split("\n");
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of fileLines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  const fileIndents = fileLines.map(indentOf);

  const hits: Hit[] = [];
  const m = oldLines.length;
  // With old_string ending in a line break, the window's last line must have one too.
  const lastStart = fileLines.length - m - (wholeLines ? 1 : 0);
  for (let i = 0; i <= lastStart; i++) {
    let shift: Shift | undefined;
    let j = 0;
    for (; j < m; j++) {
      const fileLine = fileLines[i + j]!;
      if (fileLine.slice(fileIndents[i + j]!.length) !== oldBodies[j]) break;
      if (oldBodies[j] === "") continue;
      const lineShift = shiftBetween(oldIndents[j]!, fileIndents[i + j]!);
      if (!lineShift) break;
      shift ??= lineShift;
      if (lineShift.prefix !== shift.prefix || lineShift.fileIsDeeper !== shift.fileIsDeeper) break;
    }
    if (j < m || !shift) continue;
    const endInView = wholeLines ? lineStarts[i + m]! : lineStarts[i + m - 1]! + fileLines[i + m - 1]!.length;
    hits.push({ start: view.origin[lineStarts[i]!]!, end: view.origin[endInView]!, shift });
  }
  return hits;
}

function describeShift(shift: Shift): string {
  const tabs = [...shift.prefix].filter((ch) => ch === "\t").length;
  const spaces = shift.prefix.length - tabs;
  const amount = [
    spaces && `${spaces} space${spaces === 1 ? "" : "s"}`,
    tabs && `${tabs} tab${tabs === 1 ? "" : "s"}`,
  ]
    .filter(Boolean)
    .join(" and ");
  return `the file is indented ${amount} ${shift.fileIsDeeper ? "more" : "less"} than old_string`;
}

const EOL: Normalisation = { lineEndings: true, trailingWhitespace: false, punctuation: false };
const WHITESPACE: Normalisation = { lineEndings: true, trailingWhitespace: true, punctuation: false };
const PUNCT: Normalisation = { lineEndings: true, trailingWhitespace: true, punctuation: true };

const LEVELS: Level[] = [
  {
    strategy: "exact",
    note: null,
    find: (content, old) => occurrences(content, old).map((start) => ({ start, end: start + old.length })),
  },
  {
    strategy: "line_endings",
    note: "matched after normalising line endings (CRLF/LF)",
    find: (c, o) => findInView(c, o, EOL),
  },
  {
    strategy: "trailing_whitespace",
    note: "matched after ignoring trailing whitespace",
    find: (c, o) => findInView(c, o, WHITESPACE),
  },
  {
    strategy: "indentation",
    note: "matched after normalising indentation",
    find: (c, o) => findShifted(c, o, WHITESPACE),
  },
  {
    strategy: "unicode_punctuation",
    note: "matched after normalising typographic quotes, dashes and spaces to ASCII",
    find: (c, o) => findInView(c, o, PUNCT),
  },
  {
    strategy: "unicode_punctuation_indentation",
    note: "matched after normalising typographic quotes, dashes and spaces to ASCII, and indentation",
    find: (c, o) => findShifted(c, o, PUNCT),
  },
];

/** Leftmost hits that don't overlap, the way a global replace takes them. */
function nonOverlapping(hits: Hit[]): Hit[] {
  const taken: Hit[] = [];
  for (const hit of hits) {
    const previous = taken.at(-1);
    if (!previous || hit.start >= previous.end) taken.push(hit);
  }
  return taken;
}

function reindent(text: string, shift: Shift): string | null {
  const lines = text.split("\n");
  const shifted: string[] = [];
  for (const line of lines) {
    if (line.trim() === "") shifted.push(line);
    else if (shift.fileIsDeeper) shifted.push(shift.prefix + line);
    else if (line.startsWith(shift.prefix)) shifted.push(line.slice(shift.prefix.length));
    else return null;
  }
  return shifted.join("\n");
}

/** Maps ascending offsets to 1-based line numbers in one pass over the text. */
function lineCounter(text: string): (offset: number) => number {
  let at = 0;
  let line = 1;
  return (offset) => {
    for (let i = text.indexOf("\n", at); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
    at = Math.max(at, offset);
    return line;
  };
}

function describeHits(content: string, hits: Hit[]): { lines: number[]; listing: string } {
  const lineOf = lineCounter(content);
  const lines = hits.map((hit) => lineOf(hit.start));
  const listing = hits
    .slice(0, 20)
    .map((hit, k) => {
      const lineStart = content.lastIndexOf("\n", hit.start - 1) + 1;
      const lineEnd = content.indexOf("\n", hit.start);
      const text = content.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, "");
      return numberedLine(lines[k]!, text.length > 200 ? `${text.slice(0, 200)}…` : text);
    })
    .join("\n");
  const more = hits.length > 20 ? `\n(and ${hits.length - 20} more)` : "";
  return { lines, listing: listing + more };
}

/**
 * Applies `oldString` → `newString` to `content`. The inserted text takes the content's line
 * ending, and the content keeps whether it ended with a line break.
 */
export function findEdit(
  content: string,
  oldString: string,
  newString: string,
  options: EditOptions = {},
): EditResult {
  if (oldString === newString) {
    return {
      ok: false,
      reason: "identical",
      message: "old_string and new_string are identical: there is nothing to change.",
    };
  }
  if (oldString === "") {
    if (content !== "") {
      return {
        ok: false,
        reason: "empty_old_string",
        message:
          "old_string is empty but the file is not. Give the exact text to replace, or use write_file to replace the whole file.",
      };
    }
    const newEndLine = lineCounter(newString)(Math.max(newString.length - 1, 0));
    return {
      ok: true,
      newContent: newString,
      strategy: "exact",
      note: null,
      ranges: [{ start: 0, end: 0, startLine: 1, endLine: 1, newStartLine: 1, newEndLine }],
    };
  }

  for (const level of LEVELS) {
    const found = level.find(content, oldString);
    if (found.length === 0) continue;
    if (found.length > 1 && !options.replaceAll) {
      const { lines, listing } = describeHits(content, found);
      const how = level.note ? `old_string is not in the file as written; ${level.note}, it` : "old_string";
      return {
        ok: false,
        reason: "ambiguous",
        lines,
        message:
          `${how} matches ${found.length} places (lines ${lines.join(", ")}):\n${listing}\n` +
          "Add surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to change every one.",
      };
    }
    return apply(content, nonOverlapping(found), newString, level);
  }
  return { ok: false, reason: "not_found", message: notFoundMessage(content, oldString) };
}

function apply(content: string, hits: Hit[], newString: string, level: Level): EditResult {
  const eol = lineEnding(content);
  const lfNew = newString.replace(/\r\n/g, "\n");
  const replacements: string[] = [];
  const shifts = new Set<string>();
  for (const hit of hits) {
    const text = hit.shift ? reindent(lfNew, hit.shift) : lfNew;
    if (text === null) {
      return {
        ok: false,
        reason: "unsafe_reindent",
        message:
          `old_string matched only after normalising indentation (${describeShift(hit.shift!)}), but new_string has ` +
          "lines indented less than that, so it cannot be re-indented to fit. Copy old_string's indentation exactly from the file.",
      };
    }
    if (hit.shift) shifts.add(describeShift(hit.shift));
    replacements.push(withLineEnding(text, eol));
  }

  const pieces: string[] = [];
  let cursor = 0;
  hits.forEach((hit, k) => {
    pieces.push(content.slice(cursor, hit.start), replacements[k]!);
    cursor = hit.end;
  });
  pieces.push(content.slice(cursor));
  let newContent = pieces.join("");
  // Models often drop or add the final line break along with the last line; the file keeps its own.
  const hadFinalBreak = content.endsWith("\n");
  if (hadFinalBreak && newContent !== "" && !newContent.endsWith("\n")) newContent += eol;
  if (!hadFinalBreak && newContent.endsWith("\n"))
    newContent = newContent.slice(0, newContent.endsWith("\r\n") ? -2 : -1);

  if (newContent === content) {
    return {
      ok: false,
      reason: "unchanged",
      message: `The edit would leave the file as it is${level.note ? ` (${level.note})` : ""}: it already reads that way.`,
    };
  }

  const oldLine = lineCounter(content);
  const newLine = lineCounter(newContent);
  let delta = 0;
  const ranges = hits.map((hit, k) => {
    const replacement = replacements[k]!;
    const newStart = hit.start + delta;
    delta += replacement.length - (hit.end - hit.start);
    const newStartLine = newLine(newStart);
    return {
      start: hit.start,
      end: hit.end,
      startLine: oldLine(hit.start),
      endLine: oldLine(hit.end - 1),
      newStartLine,
      newEndLine: replacement === "" ? newStartLine : newLine(newStart + replacement.length - 1),
    };
  });
  const shiftNote = shifts.size === 1 ? ` (${[...shifts][0]}; new_string re-indented to match)` : "";
  return {
    ok: true,
    newContent,
    strategy: level.strategy,
    note: level.note && level.note + shiftNote,
    ranges,
  };
}

// ---------------------------------------------------------------------------------------------
// Similarity, for pointing the model at what it probably meant

/** Character pairs as sorted numbers: compact enough to keep one per line of a large file. */
function bigrams(text: string): Int32Array {
  const pairs = new Int32Array(Math.max(text.length - 1, 0));
  for (let i = 0; i < pairs.length; i++) pairs[i] = (text.charCodeAt(i) << 16) | text.charCodeAt(i + 1);
  return pairs.sort();
}

/** Dice coefficient of two sorted pair lists (shared pairs counted as a multiset). */
function dice(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) {
      i++;
    } else {
      j++;
    }
  }
  return (2 * shared) / (a.length + b.length);
}

/** 1 for equal strings, 0 for nothing in common (Dice coefficient over character pairs). */
export function similarity(a: string, b: string): number {
  return a === b ? 1 : dice(bigrams(a), bigrams(b));
}

/** Above this many line comparisons, windows are scored by equal lines only, to stay fast. */
const SIMILARITY_BUDGET = 1_500_000;

function notFoundMessage(content: string, oldString: string): string {
  const tried =
    "old_string was not found in the file, not even after normalising line endings, trailing whitespace, " +
    "indentation and typographic quotes/dashes.";
  const fileLines = content.split("\n").map((line) => line.replace(/\r$/, ""));
  const oldLines = oldString.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const m = Math.min(oldLines.length, fileLines.length);
  const fileKeys = fileLines.map((line) => line.trim());
  const oldKeys = oldLines.map((line) => line.trim());
  const exhaustive = fileLines.length * m <= SIMILARITY_BUDGET;
  const fileGrams = exhaustive ? fileKeys.map(bigrams) : [];
  const oldGrams = exhaustive ? oldKeys.map(bigrams) : [];
  const score = (j: number, i: number): number => {
    const a = oldKeys[j]!;
    const b = fileKeys[i]!;
    if (a === b) return 1;
    return exhaustive ? dice(oldGrams[j]!, fileGrams[i]!) : 0;
  };

  let best = -1;
  let bestScore = 0;
  for (let i = 0; i + m <= fileLines.length; i++) {
    let total = 0;
    for (let j = 0; j < m; j++) total += score(j, i + j);
    if (total > bestScore) {
      bestScore = total;
      best = i;
    }
  }
  if (best === -1 || bestScore / m < 0.3) {
    return `${tried}\nNothing in the file resembles it. Read the file (read_file) and copy old_string from it exactly.`;
  }

  const from = Math.max(0, best - 2);
  const to = Math.min(fileLines.length, best + m + 2);
  const shown = fileLines
    .slice(from, to)
    .map((line, k) => numberedLine(from + k + 1, line))
    .join("\n");
  const differs = oldLines.findIndex((line, j) => line !== fileLines[best + j]);
  const firstDifference =
    differs === -1
      ? ""
      : `\nFirst difference, at line ${best + differs + 1}:\n` +
        `  file:       ${JSON.stringify(fileLines[best + differs]) ?? "(past the end of the file)"}\n` +
        `  old_string: ${JSON.stringify(oldLines[differs])}`;
  return (
    `${tried}\nThe closest text is at lines ${best + 1}-${best + m}:\n${shown}${firstDifference}\n` +
    "Copy old_string exactly from the file (without the line-number prefix) and try again."
  );
}
