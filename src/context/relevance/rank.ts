import { createHash } from "node:crypto";
import { MemoryVectors, type VectorCache } from "../../store/vectors.js";
import type { CandidateFile } from "./files.js";
import { LexicalIndex } from "./lexical.js";

/** Embeds texts with one model, its vectors kept in `cache` by content hash. */
export interface Embedder {
  /** `provider/model`, the cache's key. */
  model: string;
  cache: VectorCache;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface RankedFile {
  path: string;
  /** Higher is more relevant; comparable within one ranking only. */
  score: number;
  /** 1-based place in the lexical ranking, in the semantic one; absent where the file was not in it. */
  lexical?: number;
  semantic?: number;
}

export interface Ranking {
  files: RankedFile[];
  /** Whether embeddings took part. */
  semantic: boolean;
  /** Files embedded in this ranking (not found in the cache). */
  embedded: number;
}

/**
 * What a session keeps for ranking: its last corpus (rebuilt only when a file changed), where
 * vectors are kept, and whether its embedding model failed.
 */
export class RelevanceState {
  /** In memory unless the host gives the store's. */
  cache: VectorCache = new MemoryVectors();
  /** Set once the embedding model failed: the session ranks by words from then on. */
  failed = false;
  private last: { fingerprint: string; corpus: Corpus } | undefined;

  /** The corpus of these files: the last one when they are the same files with the same content. */
  async corpus(files: readonly CandidateFile[]): Promise<Corpus> {
    const fingerprint = createHash("sha256")
      .update(files.map((file) => `${file.path}\0${file.hash}`).join("\n"))
      .digest("hex");
    if (this.last?.fingerprint !== fingerprint) this.last = { fingerprint, corpus: await buildCorpus(files) };
    return this.last.corpus;
  }
}

/** The lexical hits whose embeddings are made when not cached yet: what one ranking may cost. */
export const EMBED_PER_RANKING = 200;
/** Reciprocal rank fusion's constant: ranks beyond the first few count a little, never nothing. */
const RRF_K = 60;
/** What of a file is embedded: its path and start, enough to say what it is about. */
const EMBED_CHARS = 6_000;

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function embeddingText(file: CandidateFile): string {
  return `${file.path}\n${file.text.slice(0, EMBED_CHARS)}`;
}

/** The files' vectors: from the cache, and the missing ones of `toEmbed` embedded and cached. */
async function vectorsFor(
  embedder: Embedder,
  files: readonly CandidateFile[],
  toEmbed: ReadonlySet<string>,
): Promise<{ vectors: Map<string, Float32Array>; embedded: number }> {
  const cached = embedder.cache.get(embedder.model, [...new Set(files.map((file) => file.hash))]);
  const missing = files.filter((file) => toEmbed.has(file.path) && !cached.has(file.hash));
  const unique = [...new Map(missing.map((file) => [file.hash, file])).values()];
  if (unique.length > 0) {
    const made = await embedder.embed(unique.map(embeddingText));
    const fresh = new Map(unique.map((file, i) => [file.hash, made[i]!]));
    embedder.cache.put(embedder.model, fresh);
    for (const [hash, vector] of fresh) cached.set(hash, vector);
  }
  const vectors = new Map<string, Float32Array>();
  for (const file of files) {
    const vector = cached.get(file.hash);
    if (vector) vectors.set(file.path, vector);
  }
  return { vectors, embedded: unique.length };
}

/** Files with their lexical index, built once and ranked against as many tasks as come. */
export interface Corpus {
  files: readonly CandidateFile[];
  index: LexicalIndex;
}

export async function buildCorpus(files: readonly CandidateFile[]): Promise<Corpus> {
  return { files, index: await LexicalIndex.build(files) };
}

/**
 * Ranks the files for a task: BM25 over paths, names and text, and, with an embedder, the
 * cosine of each file's embedding to the task's, the two fused by reciprocal rank. Only files
 * the words found, or whose vectors are cached already, are embedded and ranked semantically,
 * so a ranking costs at most EMBED_PER_RANKING embeddings and a repository is embedded bit by bit.
 */
export async function rankFiles(corpus: Corpus, query: string, embedder?: Embedder): Promise<Ranking> {
  const { files } = corpus;
  const lexical = corpus.index.search(query);
  const ranked = new Map<string, RankedFile>();
  lexical.forEach((hit, i) => {
    ranked.set(hit.path, { path: hit.path, score: 1 / (RRF_K + i + 1), lexical: i + 1 });
  });
  if (!embedder || files.length === 0) return { files: [...ranked.values()], semantic: false, embedded: 0 };

  const toEmbed = new Set(lexical.slice(0, EMBED_PER_RANKING).map((hit) => hit.path));
  const { vectors, embedded } = await vectorsFor(embedder, files, toEmbed);
  const [question] = await embedder.embed([query]);
  const semantic = [...vectors]
    .map(([path, vector]) => ({ path, similarity: cosine(question!, vector) }))
    .sort((a, b) => b.similarity - a.similarity);
  semantic.forEach(({ path }, i) => {
    const entry = ranked.get(path) ?? { path, score: 0 };
    ranked.set(path, { ...entry, score: entry.score + 1 / (RRF_K + i + 1), semantic: i + 1 });
  });
  const fused = [...ranked.values()].sort((a, b) => b.score - a.score);
  return { files: fused, semantic: true, embedded };
}

/** A ranking as the model reads it: the first `limit` paths, numbered. */
export function renderRanking(ranking: Ranking, limit: number): string {
  const top = ranking.files.slice(0, limit);
  if (top.length === 0) return "(no file matched the task's words)";
  return top.map((file, i) => `${i + 1}. ${file.path}`).join("\n");
}
