import type { TokenCounts } from "../events/types.js";

/** USD per million tokens. */
export interface Rates {
  input: number;
  output: number;
  cached_input?: number | undefined;
  cache_write?: number | undefined;
}

/** A model's price; the config's `models.<id>.price` has this shape. */
export interface Price extends Rates {
  /**
   * Rates that replace the ones above for a whole call once its input exceeds
   * `above_input_tokens` (the long-context tiers of e.g. Claude Sonnet 4.5 and Gemini 2.5 Pro).
   */
  long_context?: (Rates & { above_input_tokens: number }) | undefined;
}

/**
 * What one model call cost in USD, or null when the price is unknown (never a silent 0).
 * `input_tokens` is the whole prompt, cache reads and writes included (as the AI SDK and the
 * providers count it); those two parts are billed at their own rates, falling back to the input
 * rate, and the rest at the input rate. Output includes reasoning tokens, billed as output.
 * Apply it per call, not to totals: long-context rates depend on the size of one prompt.
 */
export function costOf(counts: TokenCounts, price: Price | null): number | null {
  if (!price) return null;
  const rates =
    price.long_context && counts.input_tokens > price.long_context.above_input_tokens
      ? price.long_context
      : price;
  const uncached = Math.max(0, counts.input_tokens - counts.cached_input_tokens - counts.cache_write_tokens);
  const perMillion =
    uncached * rates.input +
    counts.cached_input_tokens * (rates.cached_input ?? rates.input) +
    counts.cache_write_tokens * (rates.cache_write ?? rates.input) +
    counts.output_tokens * rates.output;
  return perMillion / 1_000_000;
}
