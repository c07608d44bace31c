import { type CandidateFile, candidateFiles } from "../context/relevance/files.js";
import { type Embedder, type Ranking, rankFiles } from "../context/relevance/rank.js";
import type { Phase } from "../events/types.js";
import { modelInfo } from "../model/catalog.js";
import { createEmbeddingModel, defaultEmbeddingModel } from "../model/providers.js";
import type { Turn } from "./turn.js";

/** The embedding model `relevance.embeddings` names for this session, if any. */
export function embeddingModelId(setting: string, chatModelId: string): string | undefined {
  if (setting === "off") return undefined;
  return setting === "auto" ? defaultEmbeddingModel(chatModelId) : setting;
}

function embedderFor(turn: Turn, phase: Phase): Embedder | undefined {
  const { session } = turn;
  const state = session.relevance;
  const id = embeddingModelId(session.config.relevance.embeddings, session.main.model.id);
  if (!id || state.failed) return undefined;
  const price = modelInfo(id, session.config).price;
  return {
    model: id,
    cache: state.cache,
    async embed(texts) {
      const started = Date.now();
      const [model, { embedMany }] = await Promise.all([
        createEmbeddingModel(id, session.config, session.env),
        import("ai"),
      ]);
      const result = await embedMany({
        model,
        values: texts,
        abortSignal: turn.signal,
        maxRetries: session.config.retries.max,
      });
      session.ledger.record({
        phase,
        modelId: id,
        counts: {
          input_tokens: result.usage.tokens,
          output_tokens: 0,
          cached_input_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
        },
        price,
        durationMs: Date.now() - started,
        generationMs: 0,
      });
      return result.embeddings.map((vector) => Float32Array.from(vector));
    },
  };
}

/**
 * The workspace's files ranked for `query` (the task, a question to explore): by BM25, and by
 * embeddings where the session has an embedding model. An embedding model that fails is said
 * once and left out for the rest of the session; the words still rank.
 */
export async function rankWorkspace(turn: Turn, query: string, phase: Phase): Promise<Ranking> {
  const { session } = turn;
  const files: CandidateFile[] = await candidateFiles(session.workspace, {
    secrets: session.secrets,
    maxFiles: session.config.relevance.max_files,
  });
  const corpus = await session.relevance.corpus(files);
  const embedder = embedderFor(turn, phase);
  try {
    return await rankFiles(corpus, query, embedder);
  } catch (error) {
    if (!embedder || turn.signal.aborted) throw error;
    session.relevance.failed = true;
    const why = error instanceof Error ? error.message : String(error);
    session.warnOnce(
      `Ranking files by their words only: embeddings from ${embedder.model} failed (${why}). ` +
        "Set relevance.embeddings to another model, or to off.",
    );
    return rankFiles(corpus, query);
  }
}
