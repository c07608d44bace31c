/**
 * What cairn learns of a local model from its server when a session first uses it: its window,
 * whether it calls tools, whether it sees images (docs/models.md, "What cairn learns from a local
 * server"). It is kept in a file with cairn's data, so that `cairn models` can say it and an
 * Ollama model whose digest has not changed is not asked about again; the config still wins.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../../platform/atomicFile.js";
import { ollamaDigest, ollamaFacts, openAiCompatibleFacts, type Probe, type ServerFacts } from "./servers.js";

export type { ServerFacts } from "./servers.js";

export interface LearnedFacts extends ServerFacts {
  /** The model, `ollama/qwen2.5-coder:7b`, and the server it was asked of. */
  modelId: string;
  server: string;
  /** When the server said it, ISO 8601. */
  learnedAt: string;
  /** The server did not answer this time: this is what it said before. */
  stale?: true;
}

export interface LearnRequest {
  modelId: string;
  provider: "ollama" | "openai-compatible";
  /** The model's name at the server. */
  model: string;
  baseUrl: string;
  apiKey?: string | undefined;
  /** Where what was learned is kept (`$XDG_DATA_HOME/cairn/model-facts.json`); nothing is kept without it. */
  cacheFile?: string | undefined;
  /** How long one question to the server may take: a local server answers at once, or is not there. */
  timeoutMs?: number;
}

const PROBE_TIMEOUT_MS = 3_000;

interface CacheFile {
  version: 1;
  models: Record<string, LearnedFacts>;
}

function probeWith(apiKey: string | undefined, timeoutMs: number): Probe {
  return {
    async json(url, body) {
      try {
        const response = await fetch(url, {
          method: body === undefined ? "GET" : "POST",
          headers: {
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        return response.ok ? await response.json() : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

const keyOf = (modelId: string, server: string) => `${modelId} ${server}`;

/** Everything learned so far, newest first; none when nothing was, or the file cannot be read. */
export async function readLearned(cacheFile: string): Promise<LearnedFacts[]> {
  const cache = await readCache(cacheFile);
  return Object.values(cache.models).sort((a, b) => b.learnedAt.localeCompare(a.learnedAt));
}

async function readCache(cacheFile: string | undefined): Promise<CacheFile> {
  if (!cacheFile) return { version: 1, models: {} };
  try {
    const parsed = JSON.parse(await readFile(cacheFile, "utf8")) as Partial<CacheFile>;
    return { version: 1, models: parsed.version === 1 && parsed.models ? parsed.models : {} };
  } catch {
    return { version: 1, models: {} };
  }
}

/** Kept for later sessions; a cache that cannot be written only costs the next session a question. */
async function remember(cacheFile: string | undefined, facts: LearnedFacts): Promise<void> {
  if (!cacheFile) return;
  const cache = await readCache(cacheFile);
  cache.models[keyOf(facts.modelId, facts.server)] = facts;
  await writeFileAtomic(cacheFile, Buffer.from(`${JSON.stringify(cache, null, 2)}\n`)).catch(() => {});
}

/** The cache file's place in cairn's data folder. */
export function factsFile(dataDir: string): string {
  return path.join(dataDir, "model-facts.json");
}

/**
 * What the model's server says of it now; what it said before when it does not answer (marked
 * stale); undefined when it never said anything. Ollama is asked `/api/show` only when the
 * model's digest differs from the one learned.
 */
export async function learnModelFacts(request: LearnRequest): Promise<LearnedFacts | undefined> {
  const probe = probeWith(request.apiKey, request.timeoutMs ?? PROBE_TIMEOUT_MS);
  const server = request.baseUrl.replace(/\/+$/, "");
  const known = (await readCache(request.cacheFile)).models[keyOf(request.modelId, server)];
  let said: ServerFacts | undefined;
  if (request.provider === "ollama") {
    const digest = await ollamaDigest(probe, server, request.model);
    if (digest && known?.digest === digest) return known;
    said = await ollamaFacts(probe, server, request.model);
    if (said && digest) said = { ...said, digest };
  } else {
    said = await openAiCompatibleFacts(probe, server, request.model);
  }
  if (!said) return known && { ...known, stale: true };
  const facts: LearnedFacts = {
    ...said,
    modelId: request.modelId,
    server,
    learnedAt: new Date().toISOString(),
  };
  await remember(request.cacheFile, facts);
  return facts;
}
