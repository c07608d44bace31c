/**
 * The prefixes a read listing puts before each line, which models copy into old_string and
 * new_string with the text: cat -n and cairn's read_file (`     12\t`), Claude Code (`    12→`),
 * Roo Code and Cline (`12 | `), opencode (`00012| `), a listing without numbers (`| `), Codex
 * (`L12: `) and grep -n (`12: `).
 */

interface Gutter {
  /** The prefix of a line with text after it; group 1 is the line's number, when it has one. */
  line: RegExp;
  /** A blank line's prefix, trailing blanks trimmed away; group 1 is the number. */
  blank: RegExp;
  /** Whether the numbers must run one after the other before the prefixes are read as a gutter. */
  consecutive: boolean;
}

const GUTTERS: readonly Gutter[] = [
  { line: /^ *(\d+)\t/, blank: /^ *(\d+)[ \t]*$/, consecutive: false },
  { line: /^ *(\d+) ?→ ?/, blank: /^ *(\d+) ?→?[ \t]*$/, consecutive: false },
  // `12 | `, `00012| ` and a bare `| `, at most one space after the bar taken with it.
  { line: /^ *(?:(\d+) ?)?\|(?!\|) ?/, blank: /^ *(?:(\d+) ?)?\|[ \t]*$/, consecutive: false },
  { line: /^L(\d+): ?/, blank: /^L(\d+):[ \t]*$/, consecutive: false },
  // grep -n's `12: ` reads as much like a YAML key: only numbers that count up make it a gutter.
  { line: /^ *(\d+): /, blank: /^ *(\d+):[ \t]*$/, consecutive: true },
];

/** Lines without their CR, and without the empty piece after a final line break. */
function linesOf(text: string): string[] {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

function prefixOf(gutter: Gutter, line: string): RegExpExecArray | null {
  return gutter.blank.exec(line) ?? gutter.line.exec(line);
}

/** The line's number under `gutter`: a number, null for a prefix without one, undefined for no prefix. */
function numberOf(gutter: Gutter, line: string): number | null | undefined {
  const match = prefixOf(gutter, line);
  if (!match) return undefined;
  return match[1] === undefined ? null : Number(match[1]);
}

/**
 * Every line prefixed in `gutter`'s way, numbered one after the other where it must be, and
 * some line with text after its prefix (a column of bare numbers is no listing).
 */
function prefixesEvery(gutter: Gutter, lines: readonly string[]): boolean {
  const numbers = lines.map((line) => numberOf(gutter, line));
  if (numbers.some((n) => n === undefined)) return false;
  if (lines.every((line) => gutter.blank.test(line))) return false;
  if (!gutter.consecutive) return true;
  return numbers.every((n, k) => n !== null && (k === 0 || n === (numbers[k - 1] as number) + 1));
}

/** `text` with the gutter taken off each line that has it; blank lines' bare numbers only when `blanks`. */
function strip(gutter: Gutter, text: string, blanks: boolean): string {
  return text
    .split("\n")
    .map((line) => {
      const cr = line.endsWith("\r") ? "\r" : "";
      const bare = cr ? line.slice(0, -1) : line;
      if (gutter.blank.test(bare)) return blanks ? cr : line;
      const match = gutter.line.exec(bare);
      return match ? bare.slice(match[0].length) + cr : line;
    })
    .join("\n");
}

export interface Unguttered {
  oldString: string;
  newString: string;
  /** The file line the text starts at, when only some lines had a numbered prefix and that is where. */
  startLine?: number;
}

/**
 * old_string and new_string without the gutter of a read listing: when every line of old_string
 * has it (and then from every line of new_string that has it too), or, when only some lines are
 * numbered, when their numbers agree on where the text starts, which the match must then be.
 */
export function ungutter(oldString: string, newString: string): Unguttered | undefined {
  const oldLines = linesOf(oldString);
  const newLines = linesOf(newString);
  for (const gutter of GUTTERS) {
    // A line of new_string that is only a number is taken for a numbered blank line only inside a listing.
    const newListed = prefixesEvery(gutter, newLines);
    if (prefixesEvery(gutter, oldLines)) {
      return { oldString: strip(gutter, oldString, true), newString: strip(gutter, newString, newListed) };
    }
    const startLine = numberedStart(gutter, oldLines);
    if (startLine !== undefined) {
      return {
        oldString: strip(gutter, oldString, false),
        newString: strip(gutter, newString, newListed),
        startLine,
      };
    }
  }
  return undefined;
}

/**
 * The file line the lines start at when only some of them carry a numbered prefix, each with the
 * number its place says (a line of a listing copied with its prefix, the next without);
 * undefined when the numbers disagree, or none or all of the lines are numbered.
 */
function numberedStart(gutter: Gutter, lines: readonly string[]): number | undefined {
  const starts = new Set<number>();
  let numbered = 0;
  lines.forEach((line, k) => {
    const match = gutter.line.exec(line);
    if (match?.[1] === undefined) return;
    numbered++;
    starts.add(Number(match[1]) - k);
  });
  const [start] = starts;
  return numbered > 0 && numbered < lines.length && starts.size === 1 && start! >= 1 ? start : undefined;
}
