import { createHash } from "node:crypto";

/**
 * A deterministic local stand-in for an embedding model, served by the replay server's
 * embeddings endpoints so that tests and benchmarks drive cairn's real embedding path (the AI
 * SDK's client, the wire, the cache, the ranking) with no provider reachable. It is NOT a
 * semantic model: each text becomes a hashed bag of its words and of the parts of its
 * identifiers (`parseConfig` → parse, config), weighted by log frequency and normalised. Texts
 * that share words come out close; synonyms do not.
 */
export const STAND_IN_DIMENSIONS = 256;

/** The buckets a word adds to: two, with signs, so that collisions tend to cancel. */
function buckets(word: string): Array<[number, number]> {
  const digest = createHash("sha1").update(word).digest();
  return [0, 4].map((at) => {
    const value = digest.readUInt32BE(at);
    return [value % STAND_IN_DIMENSIONS, value & 0x80000000 ? -1 : 1];
  });
}

function words(text: string): string[] {
  const found: string[] = [];
  for (const token of text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
    const parts = token.split(/(?<=[a-z0-9])(?=[A-Z])/);
    for (const part of parts.length > 1 ? [token, ...parts] : [token]) {
      const lower = part.toLowerCase();
      if (lower.length > 2) found.push(lower.replace(/s$/, ""));
    }
  }
  return found;
}

export function standInEmbedding(text: string): number[] {
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const vector = new Array<number>(STAND_IN_DIMENSIONS).fill(0);
  for (const [word, count] of counts) {
    for (const [index, sign] of buckets(word)) vector[index]! += sign * (1 + Math.log(count));
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}

/** Tokens a provider would bill for the texts, roughly: what the usage of an answer says. */
function tokensOf(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
}

function inputs(body: { input?: unknown } | undefined): string[] {
  const input = body?.input;
  return Array.isArray(input) ? input.map(String) : typeof input === "string" ? [input] : [];
}

/** The answer of OpenAI's `POST /v1/embeddings`. */
export function openaiEmbeddings(body: { input?: unknown; model?: string } | undefined): unknown {
  const texts = inputs(body);
  const tokens = tokensOf(texts);
  return {
    object: "list",
    model: body?.model ?? "stand-in",
    data: texts.map((text, index) => ({ object: "embedding", index, embedding: standInEmbedding(text) })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** The answer of Ollama's `POST /api/embed`. */
export function ollamaEmbeddings(body: { input?: unknown; model?: string } | undefined): unknown {
  const texts = inputs(body);
  return {
    model: body?.model ?? "stand-in",
    embeddings: texts.map(standInEmbedding),
    total_duration: 0,
    load_duration: 0,
    prompt_eval_count: tokensOf(texts),
  };
}
