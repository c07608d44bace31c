/**
 * Slips in the arguments themselves rather than in how the file is matched: old_string (and
 * new_string with it) copied with read_file's line numbers, escaped once too often, or wrapped
 * in blank lines and spaces the file lacks. Each repair rewrites both strings the same way; the
 * matcher then runs its whole ladder on the result, so a repaired old_string must still match
 * exactly one place.
 */
import { ungutter } from "./gutters.js";

export type EditRepair = "line_numbers" | "over_escaped" | "outer_whitespace";

export interface EditArguments {
  oldString: string;
  newString: string;
  /** Where in the file a match of this reading may start; anywhere when absent. */
  startsAt?: (content: string, start: number) => boolean;
  /** Where in the file a match of this reading may end; anywhere when absent. */
  endsAt?: (content: string, end: number) => boolean;
  /** Where a match that ends at `end` is taken to end: the end of its line, for a line matched without it. */
  extendEnd?: (content: string, end: number) => number;
}

interface Repair {
  name: EditRepair;
  note: string;
  /** The arguments repaired, in as many readings as the repair has, likeliest first; none when it does not apply. */
  apply(args: EditArguments): EditArguments[];
}

/** Whether `start` is at the beginning of the file's 1-based line `line`. */
function atLine(line: number): (content: string, start: number) => boolean {
  return (content, start) => {
    if (start > 0 && content[start - 1] !== "\n") return false;
    let n = 1;
    for (let i = content.indexOf("\n"); i !== -1 && i < start; i = content.indexOf("\n", i + 1)) n++;
    return n === line;
  };
}

const lineNumbers: Repair = {
  name: "line_numbers",
  note: "after removing the line-number prefixes of a file listing from old_string and new_string",
  apply({ oldString, newString }) {
    const unguttered = ungutter(oldString, newString);
    if (!unguttered) return [];
    const { startLine, ...strings } = unguttered;
    // Only some lines numbered: the numbers must say where, and the match must be there.
    return [startLine === undefined ? strings : { ...strings, startsAt: atLine(startLine) }];
  },
};

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "'": "'",
  "`": "`",
  $: "$",
  "\\": "\\",
};

/** One level of string-literal escaping undone: `\n` becomes a line break, `\"` a quote. */
function unescapeOnce(text: string): string {
  return text.replace(/\\([ntr"'`$\\])/g, (_, ch: string) => ESCAPES[ch]!);
}

const overEscaped: Repair = {
  name: "over_escaped",
  note: "after undoing one level of escaping (\\n, \\\", \\', \\$ written literally) in old_string and new_string",
  apply({ oldString, newString }) {
    const old = unescapeOnce(oldString);
    return old === oldString ? [] : [{ oldString: old, newString: unescapeOnce(newString) }];
  },
};

function commonPrefixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** At column 0, or inside a line: anywhere but right after a line's indentation. */
function notAfterIndentation(content: string, start: number): boolean {
  const before = content.slice(content.lastIndexOf("\n", start - 1) + 1, start);
  return before === "" || before.trim() !== "";
}

function trailingSpace(text: string): string {
  return text.slice(text.trimEnd().length);
}

/** Only blanks between the start of the line and `start`. */
function lineStartBefore(content: string, start: number): boolean {
  return content.slice(content.lastIndexOf("\n", start - 1) + 1, start).trim() === "";
}

/** Only blanks between `end` and the end of its line. */
function lineEndAfter(content: string, end: number): boolean {
  return restOfLine(content, end).trim() === "";
}

function restOfLine(content: string, end: number): string {
  const lineEnd = content.indexOf("\n", end);
  return content.slice(end, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, "");
}

/**
 * A line's end left out of old_string: a stop, a comma or a semicolon, which a model that copies
 * a line's words drops with it ("…text" for "…text."). Anything more is code it did not mean.
 */
const DROPPED_END = /^[.,;:!?]{1,3}[ \t]*$/;

/** Past `end`, the rest of the line is only what old_string may have dropped from its end. */
function droppedEndAfter(content: string, end: number): boolean {
  return DROPPED_END.test(restOfLine(content, end));
}

function toLineEnd(content: string, end: number): number {
  return end + restOfLine(content, end).length;
}

/**
 * old_string without `lead` and `trail`, and new_string without as much of them as it repeats.
 * A line break set aside still says where the text was: old_string ending with one ends at a
 * line's end (`sample text\n` is not the start of `sample text.`), starting after one, at a
 * line's start.
 */
function unframed(
  { oldString, newString }: EditArguments,
  lead: string,
  trail: string,
): EditArguments | undefined {
  const core = oldString.slice(lead.length, oldString.length - trail.length);
  if (core === "" || (lead === "" && trail === "")) return undefined;
  const front = commonPrefixLength(newString, lead);
  const reversed = (s: string) => [...s].reverse().join("");
  const back = Math.min(commonPrefixLength(reversed(newString), reversed(trail)), newString.length - front);
  return {
    oldString: core,
    newString: newString.slice(front, newString.length - back),
    ...(lead.includes("\n") ? { startsAt: lineStartBefore } : {}),
    ...(trail.includes("\n") ? { endsAt: lineEndAfter } : {}),
  };
}

const outerWhitespace: Repair = {
  name: "outer_whitespace",
  note: "after setting aside blank lines and spaces around old_string that the file does not have",
  apply(args) {
    const { oldString } = args;
    // Leading blank lines and all trailing whitespace; then, on a single line, the spaces
    // before it too, for a fragment the file has inside a line rather than indented.
    const blankLines = /^(?:[ \t]*\r?\n)*/.exec(oldString)![0];
    const trail = trailingSpace(oldString.slice(blankLines.length));
    const block = unframed(args, blankLines, trail);
    // old_string ending with a line break says its last line ends there: when the file's line goes
    // on with only a dropped stop, the whole line is what was meant, and new_string replaces it,
    // as aider's and Roo Code's whole-line matching do.
    const wholeLine = block?.endsAt && { ...block, endsAt: droppedEndAfter, extendEnd: toLineEnd };
    const readings = [block, wholeLine];
    if (!oldString.slice(blankLines.length).trimEnd().includes("\n")) {
      const lead = /^\s*/.exec(oldString)![0];
      const fragment = unframed(args, lead, trailingSpace(oldString.slice(lead.length)));
      // Spaces dropped before a fragment were not indentation: it may not start a line's code
      // after indentation, where the indentation tolerances have had their say.
      if (lead !== blankLines && fragment)
        readings.push({ ...fragment, startsAt: both(fragment.startsAt, notAfterIndentation) });
    }
    return readings.filter((reading): reading is EditArguments => reading !== undefined);
  },
};

type Place = (content: string, offset: number) => boolean;

/** A place both conditions allow; either may be absent. */
function both(a: Place | undefined, b: Place | undefined): Place | undefined {
  return a && b ? (content, offset) => a(content, offset) && b(content, offset) : (a ?? b);
}

/** Tried in this order, alone and then combined. */
const REPAIRS: readonly Repair[] = [lineNumbers, overEscaped, outerWhitespace];

export interface RepairedArguments extends EditArguments {
  repairs: EditRepair[];
  notes: string[];
}

/**
 * The arguments under every repair that applies to them, single repairs before combinations;
 * the original arguments are not among them.
 */
export function repairedArguments(args: EditArguments): RepairedArguments[] {
  const candidates: RepairedArguments[] = [{ ...args, repairs: [], notes: [] }];
  for (const repair of REPAIRS) {
    for (const candidate of [...candidates]) {
      for (const repaired of repair.apply(candidate)) {
        const startsAt = both(candidate.startsAt, repaired.startsAt);
        const endsAt = both(candidate.endsAt, repaired.endsAt);
        const extendEnd = repaired.extendEnd ?? candidate.extendEnd;
        candidates.push({
          oldString: repaired.oldString,
          newString: repaired.newString,
          ...(startsAt ? { startsAt } : {}),
          ...(endsAt ? { endsAt } : {}),
          ...(extendEnd ? { extendEnd } : {}),
          repairs: [...candidate.repairs, repair.name],
          notes: [...candidate.notes, repair.note],
        });
      }
    }
  }
  return candidates.slice(1).sort((a, b) => a.repairs.length - b.repairs.length);
}
