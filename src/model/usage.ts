import type { LanguageModelUsage } from "ai";
import type { TokenCounts, UsageTotals } from "../events/types.js";

/**
 * The SDK's usage as our counts. In AI SDK v7 `inputTokens` is the whole prompt and
 * `inputTokenDetails` splits it into no-cache, cache-read and cache-write parts (the Anthropic
 * provider adds its separately reported cache tokens into the total); `outputTokens` includes
 * reasoning. We keep the same meaning: `input_tokens` is the total, `cached_input_tokens` the
 * cache-read part of it. A provider that reports no total still has its parts added up.
 */
export function usageFromSdk(usage: LanguageModelUsage): TokenCounts {
  const input = usage.inputTokenDetails;
  const output = usage.outputTokenDetails;
  const cacheRead = input.cacheReadTokens ?? 0;
  const cacheWrite = input.cacheWriteTokens ?? 0;
  const reasoning = output.reasoningTokens ?? 0;
  return {
    input_tokens: usage.inputTokens ?? (input.noCacheTokens ?? 0) + cacheRead + cacheWrite,
    output_tokens: usage.outputTokens ?? (output.textTokens ?? 0) + reasoning,
    cached_input_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: reasoning,
  };
}

/** No tokens of any kind: where adding up a call's or an agent's counts starts. */
export function emptyCounts(): TokenCounts {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };
}

export function emptyUsage(): UsageTotals {
  return { ...emptyCounts(), cost_usd: 0, calls: 0 };
}

/** Sum of two totals. One unknown cost makes the sum unknown: a partial sum would understate the bill. */
export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
    cost_usd: a.cost_usd === null || b.cost_usd === null ? null : a.cost_usd + b.cost_usd,
    calls: a.calls + b.calls,
  };
}

/** A total with one more call in it. */
export function addCall(total: UsageTotals, counts: TokenCounts, cost: number | null): UsageTotals {
  return addUsage(total, { ...counts, cost_usd: cost, calls: 1 });
}

/** Usage summed over many calls, some of which may have had no known price. */
export interface CostTotals extends UsageTotals {
  /** The sum of the calls whose price is known: a lower bound when `unknown_cost_calls` > 0. */
  known_cost_usd: number;
  unknown_cost_calls: number;
}

/** One group of a cost report. */
export interface CostRow extends CostTotals {
  /** The day (local, YYYY-MM-DD), model id, phase, agent name or workspace. */
  key: string;
  /** The `splitBy` group's key, when the query has one. */
  split?: string;
}

/** Costs added up: the known dollars, and how many calls had no price. */
export function sumCostTotals(list: CostTotals[]): CostTotals {
  return list.reduce<CostTotals>(
    (sum, next) => ({
      ...addUsage(sum, next),
      known_cost_usd: sum.known_cost_usd + next.known_cost_usd,
      unknown_cost_calls: sum.unknown_cost_calls + next.unknown_cost_calls,
    }),
    { ...emptyUsage(), known_cost_usd: 0, unknown_cost_calls: 0 },
  );
}
