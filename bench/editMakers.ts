import { numberedLine } from "../src/tools/editMatch.js";
import {
  curl,
  editOf,
  indentOf,
  joined,
  type Maker,
  mutate,
  occurrences,
  pickUniqueSpan,
  spanMatches,
  unlessVerbatim,
  writtenBoth,
} from "./lib/spans.js";

/** Kinds of edit made from real files, in the order they were added (which keeps earlier kinds' cases stable). */
export const GENERATED_KINDS = [
  "exact",
  "trailing_whitespace",
  "indentation",
  "tabs_vs_spaces",
  "crlf",
  "smart_quotes",
  "elided",
  "ambiguous",
  "stale",
  "line_numbers",
  "over_escaped",
  "outer_whitespace",
  "inner_whitespace",
  "indentation_per_line",
  "double_indentation",
] as const;
export type GeneratedKind = (typeof GENERATED_KINDS)[number];

/** A line with its runs of blanks read as one space, for spans that must be unique even so. */
function runsCollapsed(line: string): string {
  return line.trim().replace(/[ \t]+/g, " ");
}

export const MAKERS: Record<GeneratedKind, Maker> = {
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
    return unlessVerbatim(
      lines,
      writtenBoth(lines, span, mutate(random, span.lines), (body) => joined(body.map(shift))),
    );
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
    return writtenBoth(tabbed, span, mutate(random, span.lines), (body) => joined(body.map(expand)));
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
    // A slip that makes old_string occur verbatim exactly once, elsewhere, names that place.
    if (occurrences(content, oldString) === 1) return undefined;
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

  line_numbers(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    const next = mutate(random, span.lines);
    // Copied from read_file's output, blank lines with or without the tab after their number;
    // new_string numbered on from the same line, the way models copy the listing.
    const trimBlank = random.chance(0.5);
    const listing = (body: readonly string[]) =>
      body.map((line, k) => {
        const numbered = numberedLine(span.at + k + 1, line);
        return trimBlank && line === "" ? numbered.trimEnd() : numbered;
      });
    return writtenBoth(lines, span, next, (body) => joined(listing(body)));
  },

  over_escaped(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 4);
    if (!span) return undefined;
    // Arguments encoded twice: quotes, backslashes, tabs and line breaks arrive escaped.
    const encodedTwice = (body: readonly string[]) => JSON.stringify(joined(body)).slice(1, -1);
    const oldString = encodedTwice(span.lines);
    if (oldString === joined(span.lines) || /\\u[0-9a-f]{4}|\\[bf]/.test(oldString)) return undefined;
    return unlessVerbatim(lines, writtenBoth(lines, span, mutate(random, span.lines), encodedTwice));
  },

  outer_whitespace(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    // Blank lines (and on one line, spaces) around old_string and new_string alike, that the
    // file does not have there.
    const lead =
      random.pick(["\n", "\n\n", "  \n"]) + (span.lines.length === 1 ? random.pick(["", "  "]) : "");
    const trail = random.pick(["\n\n", "\n  ", "  \n\n", " "]);
    const framed = (body: readonly string[]) => lead + joined(body) + trail;
    if (occurrences(joined(lines), framed(span.lines)) > 0) return undefined;
    return writtenBoth(lines, span, mutate(random, span.lines), framed);
  },

  inner_whitespace(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span || spanMatches(lines, span.lines, runsCollapsed) !== 1) return undefined;
    // One run of spaces inside a line typed wider or narrower than the file has it.
    const inner = span.lines.flatMap((line, k) =>
      [...line.matchAll(/(?<=\S)( +)(?=\S)/g)].map((match) => ({ k, at: match.index, run: match[1]! })),
    );
    if (inner.length === 0) return undefined;
    const { k, at, run } = random.pick(inner);
    const slipped = [...span.lines];
    const wider = run.length === 1 || random.chance(0.5);
    slipped[k] = slipped[k]!.slice(0, at) + (wider ? `${run}  ` : " ") + slipped[k]!.slice(at + run.length);
    const next = mutate(random, span.lines);
    return unlessVerbatim(lines, {
      ...editOf(lines, span.at, span.lines.length, next),
      oldString: joined(slipped),
      newString: joined(next),
    });
  },

  indentation_per_line(random, lines) {
    const span = pickUniqueSpan(random, lines, 2, 6);
    if (!span) return undefined;
    const depths = new Set(span.lines.filter((line) => line.trim()).map(indentOf));
    if (depths.size < 2) return undefined;
    // Every line typed flush left, old_string and new_string alike: no single shift explains it.
    const flush = (body: readonly string[]) => body.map((line) => line.trimStart());
    return unlessVerbatim(
      lines,
      writtenBoth(lines, span, mutate(random, span.lines), (body) => joined(flush(body))),
    );
  },

  double_indentation(random, lines) {
    const span = pickUniqueSpan(random, lines, 1, 6);
    if (!span) return undefined;
    const solid = span.lines.filter((line) => line.trim());
    const common = solid.map(indentOf).reduce((a, b) => (b.startsWith(a) ? a : a.startsWith(b) ? b : ""));
    if (common === "") return undefined;
    // old_string typed without the block's indentation, new_string copied with it.
    const oldString = joined(
      span.lines.map((line) => line.slice(Math.min(common.length, indentOf(line).length))),
    );
    if (occurrences(joined(lines), oldString) > 0) return undefined;
    const next = mutate(random, span.lines);
    return { ...editOf(lines, span.at, span.lines.length, next), oldString, newString: joined(next) };
  },
};
