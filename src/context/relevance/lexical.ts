import type { CandidateFile } from "./files.js";

/**
 * Words that say nothing about which file a task is about: English glue and the keywords every
 * source file repeats. BM25's idf would weigh them down anyway; leaving them out keeps the index
 * small.
 */
const STOPWORDS = new Set(
  (
    "a an and are as at be but by for from has have if in into is it its of on or so that the " +
    "their then there this to was were when which while will with without not no do does done " +
    "can should would could may must than too very all any each one two new now only also more " +
    "const let var function return import export default class interface type async await " +
    "def self none null undefined true false else elif fn pub use mut func package"
  ).split(" "),
);

/** tests → test, files → file, parsing → pars, matched → match: the same crude cut on both sides. */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ing") && word.length > 5) return word.slice(0, -3);
  if (word.endsWith("ed") && word.length > 5) return word.slice(0, -2);
  if (word.endsWith("es") && /(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/**
 * The terms of a text: identifiers whole and split at `_` and case changes (`parseConfigFile`
 * is also `parse`, `config`, `file`), lower-cased, stemmed, without stopwords.
 */
export function terms(text: string): string[] {
  const found: string[] = [];
  const add = (word: string) => {
    const lower = word.toLowerCase();
    if (lower.length >= 2 && !STOPWORDS.has(lower)) found.push(stem(lower));
  };
  for (const [token] of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*|\d{2,}/g)) {
    add(token);
    if (COMPOUND.test(token)) for (const part of partsOf(token)) add(part);
  }
  return found;
}

/** An identifier of several words: snake_case, camelCase, HTTPServer. */
const COMPOUND = /_|[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;

/** The words of an identifier, split at `_` and where its case changes; a loop, as this runs on every token. */
function partsOf(token: string): string[] {
  const parts: string[] = [];
  let start = 0;
  const cut = (end: number) => {
    if (end > start) parts.push(token.slice(start, end));
    start = end;
  };
  for (let i = 1; i < token.length; i++) {
    const char = token[i]!;
    const before = token[i - 1]!;
    if (char === "_") {
      cut(i);
      start = i + 1;
    } else if (
      /[A-Z]/.test(char) &&
      (/[a-z0-9]/.test(before) || (/[A-Z]/.test(before) && /[a-z]/.test(token[i + 1] ?? "")))
    ) {
      cut(i);
    }
  }
  cut(token.length);
  return parts.length > 1 ? parts : [];
}

/** Names a file defines: functions, classes, types, constants, in the common languages' spellings. */
const DEFINITION =
  /\b(?:function\*?|class|interface|type|enum|def|fn|func|struct|trait|impl|const|let|var|module|object)\s+([A-Za-z_$][\w$]*)/g;

export function symbolsOf(text: string): string {
  return [...text.matchAll(DEFINITION)].map((match) => match[1]).join(" ");
}

export interface LexicalHit {
  path: string;
  score: number;
}

/**
 * BM25 needs how often a term occurs, but saturates: past a few occurrences more add next to
 * nothing. Capping them keeps the index (and the time to build it) a fraction of the text's.
 */
const MAX_OCCURRENCES = 3;

function cappedTerms(text: string): string {
  const counts = new Map<string, number>();
  for (const term of terms(text)) counts.set(term, Math.min(MAX_OCCURRENCES, (counts.get(term) ?? 0) + 1));
  return [...counts].map(([term, count]) => `${term} `.repeat(count)).join("");
}

type Document = { id: number; path: string; symbols: string; content: string };

/**
 * BM25 over each file's path, the names it defines and its text (MiniSearch's BM25+, path and
 * names weighing more): built once for a set of files, searched with each task's terms.
 */
export class LexicalIndex {
  private readonly files: readonly CandidateFile[];
  private readonly index: import("minisearch").default<Document>;

  private constructor(files: readonly CandidateFile[], index: import("minisearch").default<Document>) {
    this.files = files;
    this.index = index;
  }

  static async build(files: readonly CandidateFile[]): Promise<LexicalIndex> {
    const { default: MiniSearch } = await import("minisearch");
    const index = new MiniSearch<Document>({
      fields: ["path", "symbols", "content"],
      storeFields: [],
      // Terms are made whole by `terms` (the content's ahead of time, capped); MiniSearch's own
      // splitting and casing would undo that work. A query has no field name.
      tokenize: (text, field) => (field === "content" ? text.split(" ").filter(Boolean) : terms(text)),
      processTerm: (term) => term,
    });
    index.addAll(
      files.map((file, id) => ({
        id,
        path: file.path,
        symbols: symbolsOf(file.text),
        content: cappedTerms(file.text),
      })),
    );
    return new LexicalIndex(files, index);
  }

  /** The files matching any of the query's terms, best first. */
  search(query: string): LexicalHit[] {
    const results = this.index.search(query, {
      boost: { path: 3, symbols: 2 },
      prefix: (term) => term.length >= 5,
      fuzzy: (term) => (term.length >= 7 ? 0.15 : false),
      combineWith: "OR",
    });
    return results.map((result) => ({ path: this.files[result.id as number]!.path, score: result.score }));
  }
}
