import path from "node:path";
import { GENERATED_KINDS, type GeneratedKind, MAKERS } from "./editMakers.js";
import { FIXTURES, ROOT } from "./lib/paths.js";
import { Random } from "./lib/random.js";
import { readSources, type SourceFile } from "./lib/sources.js";
import type { Made } from "./lib/spans.js";
import { PEER_CASES } from "./peers/index.js";
import { PEER_KINDS, type PeerKind } from "./peers/sources.js";

/** Every kind in the corpus: the generated ones, then those only the peer cases have. */
export const EDIT_CATEGORIES = [
  ...GENERATED_KINDS,
  ...PEER_KINDS.filter((kind) => !(GENERATED_KINDS as readonly string[]).includes(kind)),
] as readonly (GeneratedKind | PeerKind)[];
export type EditCategory = GeneratedKind | PeerKind;

export interface EditCase extends Made {
  id: string;
  category: EditCategory;
  language: string;
  /** The real file the case was made from, or the other agent's test it was translated from. */
  source: string;
  /** Where cairn deliberately does otherwise than the other agent's test, why. */
  differs?: string;
  /** What the other agent's test expects, for a case translated from one. */
  sourceExpected?: string | null;
  replaceAll?: boolean;
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

/** Tries per case before the category moves on to the next language. */
const ATTEMPTS = 200;

/**
 * `perCategory` cases of each generated kind, spread over the languages in turn, all from one
 * seed (the same corpus on every run), then every case translated from the other agents' tests.
 */
export function editCorpus(perCategory: number, seed = 7): EditCase[] {
  const random = new Random(seed);
  const pools = loadPools(random);
  const cases: EditCase[] = [];
  GENERATED_KINDS.forEach((category, c) => {
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
  const peers = PEER_CASES.map(({ kind, cairn, expected, ...peer }, k) => ({
    ...peer,
    id: `peer-${kind}-${k}`,
    category: kind,
    language: "peer tests",
    expected: cairn ? cairn.expected : expected,
    sourceExpected: expected,
    ...(cairn ? { differs: cairn.why } : {}),
  }));
  return [...cases, ...peers];
}
