/**
 * Slips in the arguments themselves rather than in how the file is matched: old_string (and
 * new_string with it) copied with read_file's line numbers, escaped once too often, or wrapped
 * in blank lines and spaces the file lacks. Each repair rewrites both strings the same way; the
 * matcher then runs its whole ladder on the result, so a repaired old_string must still match
 * exactly one place.
 */

export type EditRepair = "line_numbers" | "over_escaped" | "outer_whitespace";

export interface EditArguments {
  oldString: string;
  newString: string;
  /** Where in the file a match of this reading may start; anywhere when absent. */
  startsAt?: (content: string, start: number) => boolean;
  /** Where in the file a match of this reading may end; anywhere when absent. */
  endsAt?: (content: string, end: number) => boolean;
}

interface Repair {
  name: EditRepair;
  note: string;
  /** The arguments repaired, in as many readings as the repair has, likeliest first; none when it does not apply. */
  apply(args: EditArguments): EditArguments[];
}

/**
 * A line as read_file shows it (`     12\t`), or as other tools do (`12 | `, `12→`). A line that
 * is only a number is a blank line of the listing whose tab was trimmed.
 */
const NUMBERED = /^ *(\d+)(?:\t| ?→ ?| \| ?)/;
const NUMBERED_BLANK = /^ *(\d+)[ \t]*(?=\r?$)/;

function numberOf(line: string): number | undefined {
  const match = NUMBERED.exec(line) ?? NUMBERED_BLANK.exec(line);
  return match ? Number(match[1]) : undefined;
}

function withoutNumber(line: string): string {
  return line.replace(NUMBERED_BLANK.test(line) ? NUMBERED_BLANK : NUMBERED, "");
}

/** Every line numbered, one after the other: a listing, not text that happens to start with digits. */
function isListing(lines: readonly string[]): boolean {
  const numbers = lines.map(numberOf);
  return numbers.every((n, k) => n !== undefined && (k === 0 || n === numbers[k - 1]! + 1));
}

/**
 * The file line the lines start at when only some of them are numbered, each with the number
 * its place says (a line of read_file's output copied with its prefix, the next without);
 * undefined when the numbers disagree, or none or all of the lines are numbered.
 */
function partialListingStart(lines: readonly string[]): number | undefined {
  const starts = new Set<number>();
  let numbered = 0;
  lines.forEach((line, k) => {
    const n = NUMBERED.exec(line) ? numberOf(line) : undefined;
    if (n === undefined) return;
    numbered++;
    starts.add(n - k);
  });
  const [start] = starts;
  return numbered > 0 && numbered < lines.length && starts.size === 1 && start! >= 1 ? start : undefined;
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
  note: "after removing read_file's line-number prefixes from old_string and new_string",
  apply({ oldString, newString }) {
    const oldLines = oldString
      .split("\n")
      .map((line) => line.replace(/\r$/, ""))
      .filter((line, k, all) => line !== "" || k < all.length - 1);
    if (oldLines.length === 0) return [];
    const strip = (text: string, blanksToo: boolean) =>
      text
        .split("\n")
        .map((line) => (blanksToo || !NUMBERED_BLANK.test(line) ? withoutNumber(line) : line))
        .join("\n");
    const newLines = newString.split("\n").filter((line, k, all) => line !== "" || k < all.length - 1);
    // A new line that is only a number is taken for a numbered blank line only inside a listing.
    const stripped = strip(newString, isListing(newLines));
    if (isListing(oldLines)) return [{ oldString: strip(oldString, true), newString: stripped }];
    // Only some lines numbered: the numbers must say where, and the match must be there.
    const start = partialListingStart(oldLines);
    if (start === undefined) return [];
    return [{ oldString: strip(oldString, false), newString: stripped, startsAt: atLine(start) }];
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
  const lineEnd = content.indexOf("\n", end);
  return content.slice(end, lineEnd === -1 ? undefined : lineEnd).trim() === "";
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
    const readings = [unframed(args, blankLines, trail)];
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
        candidates.push({
          oldString: repaired.oldString,
          newString: repaired.newString,
          ...(startsAt ? { startsAt } : {}),
          ...(endsAt ? { endsAt } : {}),
          repairs: [...candidate.repairs, repair.name],
          notes: [...candidate.notes, repair.note],
        });
      }
    }
  }
  return candidates.slice(1).sort((a, b) => a.repairs.length - b.repairs.length);
}
