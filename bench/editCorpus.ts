import path from "node:path";
import { FIXTURES, ROOT } from "./lib/paths.js";
import { Random } from "./lib/random.js";
import { readSources, type SourceFile } from "./lib/sources.js";

export const EDIT_CATEGORIES = [
  "exact",
  "trailing_whitespace",
  "indentation",
  "tabs_vs_spaces",
  "crlf",
  "smart_quotes",
  "elided",
  "ambiguous",
  "stale",
] as const;
export type EditCategory = (typeof EDIT_CATEGORIES)[number];

export interface EditCase {
  id: string;
  category: EditCategory;
  language: string;
  /** The real file the case was made from. */
  source: string;
  /** The file as it is when the edit arrives. */
  content: string;
  oldString: string;
  newString: string;
  /** The file as the edit meant it, or null when the edit must be refused. */
  expected: string | null;
  /** Offsets in `content` of the text the edit meant to replace. */
  region?: [number, number];
}

interface Pool {
  language: string;
  files: Array<{ source: string; lines: string[] }>;
}

/** Real files in several languages: cairn's own source, packages in node_modules, and bench fixtures. */
function loadPools(random: Random): Pool[] {
  const modules = path.join(ROOT, "node_modules");
  const sample = (count: number) => (names: string[]) => {
    const shuffled = [...names];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    return shuffled.slice(0, count).sort();
  };
  const pool = (language: string, base: string, files: SourceFile[]): Pool => ({
    language,
    files: files
      .map((file) => ({ source: path.join(base, file.path), content: file.content.replace(/\r\n/g, "\n") }))
      .filter((file) => !file.content.includes("\r"))
      .map((file) => ({ source: file.source, lines: file.content.split("\n") })),
  });
  const fromModules = (language: string, extensions: string[], count: number) =>
    pool(
      language,
      "node_modules",
      readSources(modules, extensions, { minLines: 30, maxBytes: 80_000, choose: sample(count) }),
    );
  const fixture = (language: string, extension: string) =>
    pool(language, "bench/fixtures/edits", readSources(path.join(FIXTURES, "edits"), [extension]));
  return [
    pool("TypeScript", "src", readSources(path.join(ROOT, "src"), [".ts"], { minLines: 30 })),
    fromModules("JavaScript", [".js", ".mjs", ".cjs"], 60),
    fromModules("CSS", [".css", ".scss"], 20),
    fromModules("C/C++", [".h", ".c", ".cc", ".cpp"], 20),
    fromModules("Markdown", [".md"], 30),
    fixture("Python", ".py"),
    fixture("Go", ".go"),
    fixture("Rust", ".rs"),
    fixture("Ruby", ".rb"),
  ].filter((p) => p.files.length > 0);
}

// --- an oracle independent of the matcher: where does a span of lines occur at all? ---

/** A line as no tolerated slip can change it: trimmed, typographic punctuation folded to ASCII. */
function loose(line: string): string {
  return line
    .trim()
    .replace(/[\u2018-\u201B\u2032]/g, "'")
    .replace(/[\u201C-\u201F\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/[\u00A0\u2007\u202F]/g, " ");
}

/** How many runs of consecutive lines of `lines` equal `span`, line by line under `key`. */
function spanMatches(lines: readonly string[], span: readonly string[], key = loose): number {
  const keys = lines.map(key);
  const wanted = span.map(key);
  let count = 0;
  for (let i = 0; i + wanted.length <= keys.length; i++) {
    if (wanted.every((key, j) => keys[i + j] === key)) count++;
  }
  return count;
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) count++;
  return count;
}

/** The replacement of lines [at, at + count) by `replacement`, joined with `eol`. */
function editOf(
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

interface Span {
  at: number;
  lines: string[];
}

function pickSpan(random: Random, lines: readonly string[], min: number, max: number): Span | undefined {
  const length = random.int(min, max);
  if (lines.length < length) return undefined;
  const at = random.int(0, lines.length - length);
  const span = lines.slice(at, at + length);
  const solid = span.join("").replace(/\s/g, "").length;
  if (span[0]!.trim() === "" || span.at(-1)!.trim() === "" || solid < 12) return undefined;
  return { at, lines: span };
}

/** A span that occurs exactly once, however it is looked at. */
function pickUniqueSpan(
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
function mutate(random: Random, lines: readonly string[]): string[] {
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

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function curl(line: string): string {
  let double = 0;
  let single = 0;
  return line.replace(/["']/g, (quote) =>
    quote === '"' ? (double++ % 2 ? "\u201D" : "\u201C") : single++ % 2 ? "\u2019" : "\u2018",
  );
}

type Made = Omit<EditCase, "id" | "category" | "language" | "source">;
type Maker = (random: Random, lines: string[]) => Made | undefined;

const joined = (lines: readonly string[]) => lines.join("\n");

const MAKERS: Record<EditCategory, Maker> = {
  exact(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    const next = mutate(random, span.lines);
    const edit = editOf(lines, span.at, span.lines.length, next);
    return { ...edit, oldString: joined(span.lines), newString: joined(next) };
  },

  trailing_whitespace(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    const next = mutate(random, span.lines);
    const pad = () => random.pick([" ", "  ", "\t", "   "]);
    // Either the file has trailing blanks the model left out, or the model added some.
    if (span.lines.length > 1 && random.chance(0.5)) {
      const padded = [...lines];
      const k = span.at + random.int(0, span.lines.length - 2);
      padded[k] += pad();
      const edit = editOf(padded, span.at, span.lines.length, next);
      return { ...edit, oldString: joined(span.lines), newString: joined(next) };
    }
    const oldString = joined(
      span.lines.map((line) => (line.trim() && random.chance(0.7) ? line + pad() : line)),
    );
    if (occurrences(joined(lines), oldString) > 0) return undefined;
    return { ...editOf(lines, span.at, span.lines.length, next), oldString, newString: joined(next) };
  },

  indentation(random, lines) {
    const span = pickUniqueSpan(random, lines, 2, 6);
    if (!span) return undefined;
    const solid = span.lines.filter((line) => line.trim());
    const common = solid.map(indentOf).reduce((a, b) => (b.startsWith(a) ? a : a.startsWith(b) ? b : ""));
    const unit = common.startsWith("\t") ? "\t" : random.pick(["  ", "    "]);
    let shift: (line: string) => string;
    if (common.length > 0 && random.chance(0.6)) {
      const cut = random.chance(0.5) ? common.length : Math.min(unit.length, common.length);
      shift = (line) => (line.trim() ? line.slice(cut) : "");
    } else {
      shift = (line) => (line.trim() ? unit + line : "");
    }
    const next = mutate(random, span.lines);
    const oldString = joined(span.lines.map(shift));
    if (occurrences(joined(lines), oldString) > 0) return undefined;
    return {
      ...editOf(lines, span.at, span.lines.length, next),
      oldString,
      newString: joined(next.map(shift)),
    };
  },

  tabs_vs_spaces(random, lines) {
    // The file is indented with tabs (converted when it is not); the model writes spaces.
    const width = lines.some((line) => line.startsWith("\t")) ? 4 : random.pick([2, 4]);
    const tabbed = lines.map((line) => {
      const spaces = /^ */.exec(line)![0].length;
      return "\t".repeat(Math.floor(spaces / width)) + line.slice(spaces - (spaces % width));
    });
    const span = pickUniqueSpan(random, tabbed, 1, 6);
    if (!span?.lines.some((line) => line.startsWith("\t"))) return undefined;
    const expand = (line: string) => line.replace(/^\t+/, (tabs) => " ".repeat(tabs.length * width));
    const next = mutate(random, span.lines);
    return {
      ...editOf(tabbed, span.at, span.lines.length, next),
      oldString: joined(span.lines.map(expand)),
      newString: joined(next.map(expand)),
    };
  },

  crlf(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    const next = mutate(random, span.lines);
    return {
      ...editOf(lines, span.at, span.lines.length, next, "\r\n"),
      oldString: joined(span.lines),
      newString: joined(next),
    };
  },

  smart_quotes(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 4);
    if (!span?.lines.some((line) => /["']/.test(line))) return undefined;
    const next = mutate(random, span.lines);
    // Either the file has typographic quotes and the model types ASCII, or the other way round.
    if (random.chance(0.5)) {
      const curled = [...lines];
      span.lines.forEach((line, j) => {
        curled[span.at + j] = curl(line);
      });
      return {
        ...editOf(curled, span.at, span.lines.length, next),
        oldString: joined(span.lines),
        newString: joined(next),
      };
    }
    const curledNext = next.map(curl);
    return {
      ...editOf(lines, span.at, span.lines.length, curledNext),
      oldString: joined(span.lines.map(curl)),
      newString: joined(curledNext),
    };
  },

  elided(random, lines) {
    const span = pickUniqueSpan(random, lines, 5, 10);
    if (!span) return undefined;
    const marker =
      indentOf(span.lines[2]!) +
      random.pick(["// ...", "// ... existing code ...", "...", "# ... unchanged ...", "/* ... */"]);
    const elide = (body: string[]) => [...body.slice(0, 2), marker, ...body.slice(-2)];
    const oldLines = elide(span.lines);
    if (spanMatches(lines, oldLines) > 0) return undefined;
    return {
      content: joined(lines),
      oldString: joined(oldLines),
      newString: joined(elide(mutate(random, span.lines.slice(0, 2)).concat(span.lines.slice(2)))),
      expected: null,
    };
  },

  ambiguous(random, lines) {
    // Whole lines repeated verbatim: whatever slip the model makes, every copy fits it alike.
    const same = (line: string) => line;
    const counts = new Map<string, number>();
    for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
    const repeated = lines.flatMap((line, at) =>
      line.replace(/\s/g, "").length >= 10 && counts.get(line)! >= 2 ? [at] : [],
    );
    if (repeated.length === 0) return undefined;
    const at = random.pick(repeated);
    let span = [lines[at]!];
    const longer = lines.slice(at, at + random.int(1, 3));
    if (spanMatches(lines, longer, same) >= 2) span = longer;
    const content = joined(lines);
    const next = mutate(random, span);
    // The same slip on every copy leaves them as alike as before: still ambiguous.
    const slip = random.pick(["none", "crlf", "trailing", "dedent"] as const);
    const slipped = span.map((line) =>
      slip === "trailing" ? `${line}  ` : slip === "dedent" ? line.trimStart() : line,
    );
    const oldString = joined(slipped);
    return {
      content: slip === "crlf" ? lines.join("\r\n") : content,
      oldString,
      newString: joined(next),
      expected: null,
    };
  },

  stale(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    // The file changed since the model read it: its old_string is no longer there.
    const changed = [...lines];
    changed.splice(span.at, span.lines.length, ...mutate(random, span.lines));
    if (spanMatches(changed, span.lines) > 0 || occurrences(joined(changed), joined(span.lines)) > 0)
      return undefined;
    return {
      content: joined(changed),
      oldString: joined(span.lines),
      newString: joined(mutate(random, span.lines)),
      expected: null,
    };
  },
};

/** Tries per case before the category moves on to the next language. */
const ATTEMPTS = 200;

/**
 * `perCategory` cases of each category, spread over the languages in turn, all from one seed:
 * the same corpus on every run.
 */
export function editCorpus(perCategory: number, seed = 7): EditCase[] {
  const random = new Random(seed);
  const pools = loadPools(random);
  const cases: EditCase[] = [];
  EDIT_CATEGORIES.forEach((category, c) => {
    for (let k = 0; k < perCategory; k++) {
      let made: EditCase | undefined;
      for (let p = 0; p < pools.length && !made; p++) {
        const pool = pools[(c + k + p) % pools.length]!;
        for (let attempt = 0; attempt < ATTEMPTS && !made; attempt++) {
          const file = random.pick(pool.files);
          const result = MAKERS[category](random, file.lines);
          if (result) {
            made = {
              id: `${category}-${k}`,
              category,
              language: pool.language,
              source: file.source,
              ...result,
            };
          }
        }
      }
      if (!made) throw new Error(`could not make a ${category} edit case from any language`);
      cases.push(made);
    }
  });
  return cases;
}
