import path from "node:path";
import { withStoredKeys } from "../config/credentials.js";
import { dataDir, loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { type ModelInfo, modelInfo } from "../model/catalog.js";
import { factsFile, type LearnedFacts, learnModelFacts, readLearned } from "../model/facts/learn.js";
import { localServer, MissingKeyError, modelIdProblem, resolveModelId } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { formatTokens } from "../platform/format.js";
import { homePath } from "../platform/text.js";
import type { CommandIo } from "./sessions.js";

export interface ModelsOptions {
  cwd?: string;
  config?: string;
  json?: boolean;
}

/** One model as `cairn models` says it: what cairn uses, and where each value came from. */
interface ModelRow {
  model: string;
  server: string | null;
  context_window: number;
  context_window_from: string;
  tool_calls: ModelInfo["toolCalls"];
  tool_calls_from: string;
  images: boolean;
  images_from: string;
  learned_at: string | null;
  /** The server did not answer now: what it said before. */
  stale: boolean;
}

function rowOf(modelId: string, config: Config, learned: LearnedFacts | undefined): ModelRow {
  const info = modelInfo(modelId, config, learned);
  return {
    model: modelId,
    server: learned?.server ?? null,
    context_window: info.contextWindow,
    context_window_from: info.sources.contextWindow,
    tool_calls: info.toolCalls,
    tool_calls_from: info.sources.toolCalls,
    images: info.images,
    images_from: info.sources.images,
    learned_at: learned?.learnedAt ?? null,
    stale: learned?.stale ?? false,
  };
}

/** Asks each model's server now, where it has one; a hosted model is said from the price list and config. */
async function learnNow(ids: string[], config: Config, env: NodeJS.ProcessEnv): Promise<ModelRow[]> {
  const cacheFile = factsFile(dataDir(env));
  return Promise.all(
    ids.map(async (modelId) => {
      const server = localServer(modelId, config, env);
      const learned = server ? await learnModelFacts({ ...server, modelId, cacheFile }) : undefined;
      return rowOf(modelId, config, learned);
    }),
  );
}

function block(row: ModelRow): string {
  const from = (source: string) => (source === "default" || source === "guess" ? source : `from ${source}`);
  const learned = row.learned_at
    ? `${row.learned_at.slice(0, 16).replace("T", " ")} UTC${row.stale ? "; the server did not answer now" : ""}`
    : undefined;
  return [
    `${row.model}${row.server ? ` at ${row.server}` : ""}`,
    `  window      ${formatTokens(row.context_window)} tokens, ${from(row.context_window_from)}`,
    `  tool calls  ${row.tool_calls}, ${from(row.tool_calls_from)}`,
    `  images      ${row.images ? "yes" : "no"}, ${from(row.images_from)}`,
    ...(learned ? [`  learned     ${learned}`] : []),
  ].join("\n");
}

/** The run's model, when one is chosen or a key picks one; none otherwise (the list is then what was learned). */
function runModel(config: Config, env: NodeJS.ProcessEnv): string[] {
  try {
    return [resolveModelId(config, withStoredKeys(env, config))];
  } catch (error) {
    if (error instanceof MissingKeyError) return [];
    throw error;
  }
}

/**
 * `cairn models [model…]`: what cairn knows of each model — its window, whether it calls tools
 * natively or as text, whether it sees images — and where each came from: the config, the price
 * list, or what its local server said. Named models' servers are asked now; without names, the
 * run's model is, and every model learned before is listed.
 */
export async function modelsCommand(
  ids: string[],
  options: ModelsOptions,
  io: CommandIo,
  env = process.env,
): Promise<number> {
  for (const id of ids) {
    const problem = modelIdProblem(id);
    if (problem) throw new ConfigError(`model: ${problem}`);
  }
  const { config } = await loadConfig({
    cwd: path.resolve(options.cwd ?? process.cwd()),
    ...(options.config ? { configFile: options.config } : {}),
    env,
  });
  const asked = ids.length ? ids : runModel(config, env);
  const rows = await learnNow(asked, config, env);
  if (!ids.length) {
    const known = await readLearned(factsFile(dataDir(env)));
    for (const facts of known)
      if (!rows.some((row) => row.model === facts.modelId && row.server === facts.server))
        rows.push(rowOf(facts.modelId, config, facts));
  }
  if (options.json) {
    io.out.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  io.out.write(
    rows.length
      ? `${rows.map(block).join("\n\n")}\n\n`
      : "No model chosen, and nothing learned from a local server yet.\n",
  );
  io.out.write(
    `What servers said is kept in ${homePath(factsFile(dataDir(env)), env.HOME)};\nmodels.<id> in the config wins over it.\n`,
  );
  return 0;
}
