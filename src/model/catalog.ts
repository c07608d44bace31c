import { calcPrice, type ModelPrice } from "@pydantic/genai-prices";
import type { Config, Price, ProviderName } from "../config/schema.js";
import { parseModelId } from "./providers.js";

export interface ModelInfo {
  contextWindow: number;
  /** False when `contextWindow` is a guess: budgets built on it should leave room. */
  contextWindowKnown: boolean;
  /** Null when unknown: cost is then reported as unknown, never as 0. */
  price: Price | null;
  toolCalls: "native" | "text";
}

/**
 * Local servers (Ollama, vLLM, LM Studio, llama.cpp) are often started with small contexts, so
 * an unknown one is guessed low there; hosted models rarely have less than 128k today.
 */
const LOCAL: ReadonlySet<ProviderName> = new Set(["ollama", "openai-compatible"]);
const LOCAL_CONTEXT_GUESS = 32_768;
const HOSTED_CONTEXT_GUESS = 128_000;

type Rate = ModelPrice[string];

function baseRate(rate: Rate): number | undefined {
  return typeof rate === "object" ? rate.base : rate;
}

/** The package's single price tier (every tiered model in its data has exactly one), at the tier's rate. */
function tierRate(rate: Rate): number | undefined {
  return typeof rate === "object" ? (rate.tiers[0]?.price ?? rate.base) : rate;
}

function priceFrom(prices: ModelPrice): Price | null {
  const {
    input_mtok: input,
    output_mtok: output,
    cache_read_mtok: cacheRead,
    cache_write_mtok: cacheWrite,
  } = prices;
  const inputRate = baseRate(input);
  const outputRate = baseRate(output);
  if (inputRate === undefined || outputRate === undefined) return null;
  const price: Price = {
    input: inputRate,
    output: outputRate,
    cached_input: baseRate(cacheRead),
    cache_write: baseRate(cacheWrite),
  };
  const threshold = [input, output, cacheRead, cacheWrite]
    .map((rate) => (typeof rate === "object" ? rate.tiers[0]?.start : undefined))
    .find((start) => start !== undefined);
  if (threshold !== undefined) {
    price.long_context = {
      above_input_tokens: threshold,
      input: tierRate(input) ?? inputRate,
      output: tierRate(output) ?? outputRate,
      cached_input: tierRate(cacheRead),
      cache_write: tierRate(cacheWrite),
    };
  }
  return price;
}

/**
 * Ollama runs on the person's own machine: no per-token bill. An openai-compatible endpoint may
 * be a paid proxy, so its price stays unknown until the config gives one.
 */
const OLLAMA_PRICE: Price = { input: 0, output: 0 };

/** The price list's entry for a hosted model, at today's prices; local providers are not in it. */
function listed(provider: ProviderName, model: string) {
  return LOCAL.has(provider) ? null : calcPrice({}, model, { providerId: provider });
}

/**
 * Context window, price and tool-call style of a model: from the maintained price list
 * (@pydantic/genai-prices), with `models.<id>` in the config winning key by key.
 */
export function modelInfo(modelId: string, config: Config): ModelInfo {
  const { provider, model } = parseModelId(modelId);
  const entry = config.models[modelId];
  const found = listed(provider, model);
  const contextWindow = entry?.context_window ?? found?.model.context_window;
  return {
    contextWindow: contextWindow ?? (LOCAL.has(provider) ? LOCAL_CONTEXT_GUESS : HOSTED_CONTEXT_GUESS),
    contextWindowKnown: contextWindow !== undefined,
    price:
      entry?.price ?? (found ? priceFrom(found.model_price) : provider === "ollama" ? OLLAMA_PRICE : null),
    toolCalls: entry?.tool_calls ?? "native",
  };
}
