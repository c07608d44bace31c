/**
 * Normalised views of a text, for matching old_string where the file differs from it only in
 * ways a model slips: each view remembers, for every position, where it came from in the
 * original, so a hit in the view maps back to an exact range of the file.
 */

export interface Normalisation {
  lineEndings: boolean;
  trailingWhitespace: boolean;
  punctuation: boolean;
  /** Runs of spaces and tabs inside a line (not its indentation) read as one space. */
  innerRuns?: boolean;
  /**
   * Blanks inside a line read as nothing, except between two word characters, where a run reads
   * as one space: `f( a, b )` is `f(a,b)`, but `return x` is never `returnx`. Implies innerRuns.
   */
  tokenSpacing?: boolean;
}

/** Characters of names and numbers: blanks between two of them separate tokens and must stay. */
const WORD = /[\p{L}\p{N}_$]/u;

export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
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

export interface View {
  text: string;
  /**
   * For each position of `text` (and its end), the original offset where that position's
   * group starts, or -1 inside a group that produced several characters. Trailing whitespace
   * that was dropped belongs to the group of the line break after it.
   */
  origin: Int32Array;
}

export function isBlank(ch: string | undefined): boolean {
  return ch === " " || ch === "\t";
}

function lineBreakAt(source: string, i: number): boolean {
  return i === source.length || source[i] === "\n" || (source[i] === "\r" && source[i + 1] === "\n");
}

export function normalise(source: string, how: Normalisation): View {
  let expansions = 0;
  if (how.punctuation) {
    for (let i = source.indexOf("\u2026"); i !== -1; i = source.indexOf("\u2026", i + 1)) expansions += 2;
  }
  const origin = new Int32Array(source.length + expansions + 1);
  const parts: string[] = [];
  let length = 0;
  let groupStart = 0;
  let i = 0;
  let atLineStart = true;
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
    if (isBlank(ch)) {
      let runEnd = i;
      while (isBlank(source[runEnd])) runEnd++;
      if (how.trailingWhitespace && lineBreakAt(source, runEnd)) {
        i = runEnd;
      } else if (how.tokenSpacing && !atLineStart) {
        // The blanks belong to the group of what follows them, as dropped trailing blanks do.
        if (isWordChar(source[i - 1]) && isWordChar(source[runEnd])) emit(" ", runEnd);
        else i = runEnd;
      } else if (how.innerRuns && !atLineStart) {
        emit(" ", runEnd);
      } else {
        while (i < runEnd) emit(source[i]!, i + 1);
      }
    } else if (how.lineEndings && ch === "\r" && source[i + 1] === "\n") {
      emit("\n", i + 2);
      atLineStart = true;
    } else {
      emit((how.punctuation && PUNCTUATION[ch]) || ch, i + 1);
      atLineStart = ch === "\n";
    }
  }
  origin[length] = groupStart;
  return { text: parts.join(""), origin };
}

export interface Hit {
  start: number;
  end: number;
}

/** Every start, overlapping ones included: "aa" in "aaa" is two places, so it is ambiguous. */
export function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
}

/**
 * old_string found as a substring of the file, both seen through the same normalisation, never
 * starting or ending inside a run of blanks.
 */
export function findInView(content: string, oldString: string, how: Normalisation): Hit[] {
  const needleView = normalise(oldString, how);
  const needle = needleView.text;
  if (needle === "") return [];
  // Whitespace dropped from the end of old_string was trailing only if the file's line ends there.
  const mustEndLine = needleView.origin[needle.length] !== oldString.length;
  const view = normalise(content, how);
  const hits: Hit[] = [];
  // Leading or trailing blanks of old_string begin and end where the file's run of blanks does:
  // one tab of old_string is not the last of four in the file's indentation.
  const blankEdges = { start: isBlank(needle[0]), end: isBlank(needle.at(-1)) };
  for (const at of occurrences(view.text, needle)) {
    const after = at + needle.length;
    if (mustEndLine && after < view.text.length && view.text[after] !== "\n") continue;
    if ((blankEdges.start && isBlank(view.text[at - 1])) || (blankEdges.end && isBlank(view.text[after])))
      continue;
    const start = view.origin[at]!;
    const end = view.origin[after]!;
    if (start >= 0 && end >= 0) hits.push({ start, end });
  }
  return hits;
}
