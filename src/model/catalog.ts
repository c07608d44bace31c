import { calcPrice, type ModelPrice } from "@pydantic/genai-prices";
import type { Price } from "./cost.js";
import type { LearnedFacts } from "./facts/learn.js";
import { PROVIDER_SPECS, type ProviderName, type ProviderSpec, parseModelId } from "./providers.js";

export interface ModelInfo {
  contextWindow: number;
  /** False when `contextWindow` is a guess: budgets built on it should leave room. */
  contextWindowKnown: boolean;
  /** Null when unknown: cost is then reported as unknown, never as 0. */
  price: Price | null;
  toolCalls: "native" | "text";
  /** Images in the person's message (an editor's prompt) reach the model; otherwise a note says one was left out. */
  images: boolean;
  /**
   * Images in tool results (an MCP tool's screenshot) reach the model: one that takes images, on
   * a wire that carries them there; otherwise they are described.
   */
  toolImages: boolean;
  /** `models.<id>.max_output_tokens`: the cap on one answer that this model is always sent. */
  maxOutputTokens: number | undefined;
  /** A local or OpenAI-compatible server, which may put no limit of its own on an answer. */
  local: boolean;
  /** What the model's server said of it (a local server), whether or not the config overrode it. */
  learned?: LearnedFacts | undefined;
  /** Where the window, the tool-call style and the images setting came from, as `cairn models` says it. */
  sources: { contextWindow: string; toolCalls: string; images: string };
}

/** What the config's `models.<id>` may say of a model, each key winning over the price list. */
export interface ModelOverride {
  context_window?: number | undefined;
  price?: Price | undefined;
  tool_calls?: "native" | "text" | undefined;
  images?: boolean | undefined;
  max_output_tokens?: number | undefined;
}

/** An unknown window is guessed low on local servers, which are often started with small ones. */
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

/** The price list's entry for a hosted model, at today's prices; local providers are not in it. */
function listed(provider: ProviderName, model: string) {
  return PROVIDER_SPECS[provider].local ? null : calcPrice({}, model, { providerId: provider });
}

/**
 * Context window, price and tool-call style of a model: from the maintained price list
 * (@pydantic/genai-prices) or, for a local server, from what the server said of it (`learned`),
 * with `models.<id>` in the config winning key by key. A model its server says cannot call
 * tools is sent them in the prompt and writes its calls as text.
 */
export function modelInfo(
  modelId: string,
  overrides: { models: Record<string, ModelOverride> },
  learned?: LearnedFacts,
): ModelInfo {
  const { provider, model } = parseModelId(modelId);
  const spec: ProviderSpec = PROVIDER_SPECS[provider];
  const entry = overrides.models[modelId];
  const found = listed(provider, model);
  const contextWindow = entry?.context_window ?? found?.model.context_window ?? learned?.contextWindow;
  const images = entry?.images ?? spec.images ?? learned?.vision ?? false;
  const said = learned?.source ?? "";
  const sources = {
    contextWindow:
      entry?.context_window !== undefined
        ? "config"
        : found?.model.context_window !== undefined
          ? "price list"
          : learned?.contextWindow !== undefined
            ? said
            : "guess",
    toolCalls: entry?.tool_calls !== undefined ? "config" : learned?.tools !== undefined ? said : "default",
    images:
      entry?.images !== undefined
        ? "config"
        : spec.images !== undefined
          ? "provider"
          : learned?.vision !== undefined
            ? said
            : "default",
  };
  return {
    contextWindow: contextWindow ?? (spec.local ? LOCAL_CONTEXT_GUESS : HOSTED_CONTEXT_GUESS),
    contextWindowKnown: contextWindow !== undefined,
    price: entry?.price ?? (found ? priceFrom(found.model_price) : (spec.price ?? null)),
    toolCalls: entry?.tool_calls ?? (learned?.tools === false ? "text" : "native"),
    images,
    toolImages: images && (spec.toolResultImages ?? false),
    maxOutputTokens: entry?.max_output_tokens,
    local: spec.local,
    ...(learned ? { learned } : {}),
    sources,
  };
}
