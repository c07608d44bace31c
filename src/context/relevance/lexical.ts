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
  for (const token of text.match(/[A-Za-z_][A-Za-z0-9_]*|\d{2,}/g) ?? []) {
    const parts = token
      .split("_")
      .flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
      .filter(Boolean);
    const words = parts.length > 1 ? [token, ...parts] : [token];
    for (const word of words) {
      const lower = word.toLowerCase();
      if (lower.length < 2 || STOPWORDS.has(lower)) continue;
      found.push(stem(lower));
    }
  }
  return found;
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
 * BM25 over each file's path, the names it defines and its text (MiniSearch's BM25+, path and
 * names weighing more), searched with the task's terms; best first.
 */
export async function searchLexically(files: readonly CandidateFile[], query: string): Promise<LexicalHit[]> {
  const { default: MiniSearch } = await import("minisearch");
  const index = new MiniSearch<{ id: number; path: string; symbols: string; content: string }>({
    fields: ["path", "symbols", "content"],
    storeFields: [],
    // Terms are made whole by `terms`; MiniSearch's own splitting and casing would undo its work.
    tokenize: (text) => terms(text),
    processTerm: (term) => term,
  });
  index.addAll(
    files.map((file, id) => ({ id, path: file.path, symbols: symbolsOf(file.text), content: file.text })),
  );
  const results = index.search(query, {
    boost: { path: 3, symbols: 2 },
    prefix: (term) => term.length >= 5,
    fuzzy: (term) => (term.length >= 7 ? 0.15 : false),
    combineWith: "OR",
  });
  return results.map((result) => ({ path: files[result.id as number]!.path, score: result.score }));
}
