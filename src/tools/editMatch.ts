/**
 * Where an edit applies, on strings only, so a benchmark can run a corpus through it without
 * touching disk.
 *
 * old_string is looked for verbatim first. When that finds nothing, a fixed ladder of
 * tolerances is tried, each a normalisation both sides go through, and the first level that
 * finds anything decides. When no level finds anything, the arguments are repaired (line-number
 * prefixes, one level of escaping too many, blank lines around old_string) and the ladder runs
 * again. Two rules make a wrong application impossible by construction: the hits must be unique
 * (unless replace_all), and every hit is mapped back to an exact range of the original text
 * through offsets recorded while normalising; a hit whose edges fall inside a character that
 * normalising expanded is dropped rather than guessed at. Nothing fuzzier than these
 * normalisations is tried: similar text, other letter case and the first of several matches are
 * refused.
 */
import { notFoundMessage } from "./edit/closest.js";
import {
  describeIndentation,
  findLineWindows,
  type IndentRule,
  type LineShape,
  rebaseAfterIndent,
  reindent,
} from "./edit/indentation.js";
import { lineEnding, mixedLineEndings, withLineEnding } from "./edit/lineEndings.js";
import { numberedLine } from "./edit/listing.js";
import { type EditRepair, type RepairedArguments, repairedArguments } from "./edit/repairs.js";
import { findInView, type Hit, type Normalisation, occurrences } from "./edit/views.js";

export { similarity } from "./edit/closest.js";
export { lineEnding } from "./edit/lineEndings.js";
export { numberedLine } from "./edit/listing.js";
export type { EditRepair } from "./edit/repairs.js";

export type EditStrategy =
  | "exact"
  | "line_endings"
  | "trailing_whitespace"
  | "indentation"
  | "unicode_punctuation"
  | "unicode_punctuation_indentation"
  | "indentation_per_line"
  | "inner_whitespace"
  | "inner_spacing"
  | "inner_spacing_indentation";

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
  | {
      ok: true;
      newContent: string;
      strategy: EditStrategy;
      /** Repairs made to old_string and new_string before they matched; empty when none were needed. */
      repairs: EditRepair[];
      note: string | null;
      ranges: EditRange[];
    }
  | { ok: false; reason: EditFailure; message: string; lines?: number[] };

export interface EditOptions {
  replaceAll?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The ladder

type LevelHit = Hit & { shape?: LineShape };

interface Level {
  strategy: EditStrategy;
  /** What was tolerated, as "after …"; null for the exact match. */
  tolerated: string | null;
  /** How both sides are normalised; null for the exact match. */
  how: Normalisation | null;
  /** old_string found anywhere in the file, or as whole lines with their indentation set aside. */
  lines?: IndentRule;
  /** Whether the level is tried for this old_string at all; always when absent. */
  when?: (oldString: string) => boolean;
}

/**
 * No run of blanks between two non-blank characters of a line: spacing a model typed plainly,
 * not columns aligned the way one place of the file aligns them.
 */
function plainlySpaced(oldString: string): boolean {
  return !/\S(?: [ \t]|\t)[ \t]*\S/.test(oldString);
}

const EOL: Normalisation = { lineEndings: true, trailingWhitespace: false, punctuation: false };
const WHITESPACE: Normalisation = { ...EOL, trailingWhitespace: true };
const PUNCT: Normalisation = { ...WHITESPACE, punctuation: true };
const RUNS: Normalisation = { ...PUNCT, innerRuns: true };
const SPACING: Normalisation = { ...PUNCT, tokenSpacing: true };
const SPACING_TOLERATED = "after setting aside blanks inside lines that do not separate two words";
const QUOTES = "typographic quotes, dashes and spaces to ASCII";

const LEVELS: Level[] = [
  { strategy: "exact", tolerated: null, how: null },
  { strategy: "line_endings", tolerated: "after normalising line endings (CRLF/LF)", how: EOL },
  { strategy: "trailing_whitespace", tolerated: "after ignoring trailing whitespace", how: WHITESPACE },
  { strategy: "indentation", tolerated: "after normalising indentation", how: WHITESPACE, lines: "uniform" },
  { strategy: "unicode_punctuation", tolerated: `after normalising ${QUOTES}`, how: PUNCT },
  {
    strategy: "unicode_punctuation_indentation",
    tolerated: `after normalising ${QUOTES}, and indentation`,
    how: PUNCT,
    lines: "uniform",
  },
  {
    strategy: "indentation_per_line",
    tolerated: "after setting aside each line's indentation",
    how: PUNCT,
    lines: "per_line",
  },
  // Not combined with indentation: a line that differs from old_string both in depth and in
  // alignment is more often another place than a slip (gofmt aligns each struct its own way).
  {
    strategy: "inner_whitespace",
    tolerated: "after reading runs of spaces and tabs inside lines as one space",
    how: RUNS,
  },
  // Blanks present on one side and absent on the other (`f( a )` for `f(a)`), but never where
  // they separate two words, which would join them (`returnx` is not `return x`).
  { strategy: "inner_spacing", tolerated: SPACING_TOLERATED, how: SPACING },
  // And with the indentation shifted as well, but only for old_string spaced plainly: one with
  // aligned columns that match nowhere at its own depth is more often another struct or table
  // aligned its own way (gofmt aligns each struct apart) than a slip.
  {
    strategy: "inner_spacing_indentation",
    tolerated: `${SPACING_TOLERATED}, and indentation`,
    how: SPACING,
    lines: "uniform",
    when: plainlySpaced,
  },
];

function findAt(level: Level, content: string, oldString: string): LevelHit[] {
  if (!level.how) {
    return occurrences(content, oldString).map((start) => ({ start, end: start + oldString.length }));
  }
  return level.lines
    ? findLineWindows(content, oldString, level.how, level.lines)
    : findInView(content, oldString, level.how);
}

const TRIED =
  "old_string was not found in the file, not even after normalising line endings, trailing whitespace, " +
  "indentation, runs of spaces and typographic quotes/dashes, or removing line-number prefixes, escaping " +
  "and blank lines around it.";

const AS_GIVEN: RepairedArguments = { oldString: "", newString: "", repairs: [], notes: [] };

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
      repairs: [],
      note: null,
      ranges: [{ start: 0, end: 0, startLine: 1, endLine: 1, newStartLine: 1, newEndLine }],
    };
  }
  const given = { ...AS_GIVEN, oldString, newString };
  for (const args of [given, ...repairedArguments(given)]) {
    const result = climb(content, args, options);
    if (result) return result;
  }
  return { ok: false, reason: "not_found", message: notFoundMessage(content, oldString, TRIED) };
}

/** The first level of the ladder that finds old_string decides; undefined when none does. */
function climb(content: string, args: RepairedArguments, options: EditOptions): EditResult | undefined {
  if (args.oldString === "") return undefined;
  for (const level of LEVELS) {
    if (level.when && !level.when(args.oldString)) continue;
    const { startsAt, endsAt, extendEnd } = args;
    const found = findAt(level, content, args.oldString)
      .filter((hit) => (!startsAt || startsAt(content, hit.start)) && (!endsAt || endsAt(content, hit.end)))
      .map((hit) => (extendEnd ? { ...hit, end: extendEnd(content, hit.end) } : hit));
    if (found.length === 0) continue;
    const how = noteOf(args, level);
    if (found.length > 1 && !options.replaceAll) {
      const { lines, listing } = describeHits(content, found);
      const what = how ? `old_string is not in the file as written; ${how}, it` : "old_string";
      return {
        ok: false,
        reason: "ambiguous",
        lines,
        message:
          `${what} matches ${found.length} places (lines ${lines.join(", ")}):\n${listing}\n` +
          "Add surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to change every one.",
      };
    }
    return apply(content, nonOverlapping(found), args, level, how);
  }
  return undefined;
}

function noteOf(args: RepairedArguments, level: Level): string | null {
  const parts = [...args.notes, ...(level.tolerated ? [level.tolerated] : [])];
  return parts.length ? `matched ${parts.join(", and ")}` : null;
}

/** Leftmost hits that don't overlap, the way a global replace takes them. */
function nonOverlapping(hits: LevelHit[]): LevelHit[] {
  const taken: LevelHit[] = [];
  for (const hit of hits) {
    const previous = taken.at(-1);
    if (!previous || hit.start >= previous.end) taken.push(hit);
  }
  return taken;
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
 * Blanks at the ends of old_string that were read as trailing whitespace the file lacks (before
 * its first line break, or at its very end): where new_string repeats them, they go too, rather
 * than being written onto the file's lines around the edit.
 */
function withoutDroppedEdges(oldString: string, newString: string): string {
  let text = newString;
  const lead = /^[ \t]+(?=\r?\n)/.exec(oldString)?.[0];
  if (lead && text.startsWith(lead) && /^[ \t]*\r?\n/.test(text)) text = text.slice(lead.length);
  const tail = /[ \t]+$/.exec(oldString)?.[0];
  if (tail && text.endsWith(tail)) text = text.slice(0, text.length - tail.length);
  return text;
}

function apply(
  content: string,
  hits: LevelHit[],
  args: RepairedArguments,
  level: Level,
  how: string | null,
): EditResult {
  // new_string takes the file's line ending; in a file that mixes them, it keeps its own.
  const mixed = mixedLineEndings(content);
  const eol = lineEnding(content);
  const lineBreaks = (text: string) => (mixed ? text : withLineEnding(text, eol));
  const given = mixed ? args.newString : args.newString.replace(/\r\n/g, "\n");
  const replacements: string[] = [];
  const indentation = new Set<string>();
  // Where blanks inside lines were set aside to match, new_string is written with its own, as
  // the model wrote it: only line starts are re-indented.
  const text = level.how?.trailingWhitespace ? withoutDroppedEdges(args.oldString, given) : given;
  for (const hit of hits) {
    if (!hit.shape) {
      replacements.push(lineBreaks(rebaseAfterIndent(content, hit.start, args.oldString, text)));
      continue;
    }
    const reindented = reindent(text, hit.shape);
    if ("error" in reindented) {
      return {
        ok: false,
        reason: "unsafe_reindent",
        message:
          `old_string matched only after normalising indentation (${describeIndentation(hit.shape)}), but ` +
          `${reindented.error}. Copy old_string's indentation exactly from the file.`,
      };
    }
    indentation.add(
      `${describeIndentation(hit.shape)}; ` +
        (reindented.asWritten
          ? "new_string already had the file's indentation and is used as written"
          : "new_string re-indented to match"),
    );
    replacements.push(lineBreaks(reindented.text));
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
  // A line break new_string ends with where old_string has none is written on purpose, though.
  const hadFinalBreak = content.endsWith("\n");
  if (hadFinalBreak && newContent !== "" && !newContent.endsWith("\n")) newContent += eol;
  if (!hadFinalBreak && newContent.endsWith("\n") && args.oldString.endsWith("\n"))
    newContent = newContent.slice(0, newContent.endsWith("\r\n") ? -2 : -1);

  if (newContent === content) {
    return {
      ok: false,
      reason: "unchanged",
      message: `The edit would leave the file as it is${how ? ` (${how})` : ""}: it already reads that way.`,
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
  const detail = indentation.size === 1 ? ` (${[...indentation][0]})` : "";
  return {
    ok: true,
    newContent,
    strategy: level.strategy,
    repairs: args.repairs,
    note: how && how + detail,
    ranges,
  };
}
