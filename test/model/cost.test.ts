import type { LanguageModelUsage } from "ai";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import type { TokenCounts, UsageTotals } from "../../src/events/types.js";
import { modelInfo } from "../../src/model/catalog.js";
import type { Price } from "../../src/model/cost.js";
import { costOf } from "../../src/model/cost.js";
import { addCall, addUsage, emptyUsage, usageFromSdk } from "../../src/model/usage.js";

function counts(partial: Partial<TokenCounts>): TokenCounts {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    ...partial,
  };
}

const sonnet: Price = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 };

describe("costOf", () => {
  it("is unknown, not zero, without a price", () => {
    expect(costOf(counts({ input_tokens: 1000, output_tokens: 10 }), null)).toBeNull();
  });

  it("prices input and output per million tokens", () => {
    // 1000 × $3/M + 500 × $15/M
    expect(costOf(counts({ input_tokens: 1000, output_tokens: 500 }), sonnet)).toBeCloseTo(0.0105, 12);
  });

  it("prices the cache-read and cache-write parts of the input at their own rates", () => {
    // Of 10,000 input tokens 8,000 were read from cache and 1,000 written to it: 1,000 remain.
    const call = counts({
      input_tokens: 10_000,
      cached_input_tokens: 8_000,
      cache_write_tokens: 1_000,
      output_tokens: 100,
    });
    // 1000×3 + 8000×0.3 + 1000×3.75 + 100×15 = 3000 + 2400 + 3750 + 1500 = 10,650 per million
    expect(costOf(call, sonnet)).toBeCloseTo(0.01065, 12);
  });

  it("falls back to the input rate for cache rates the price does not give", () => {
    const call = counts({ input_tokens: 10_000, cached_input_tokens: 8_000, cache_write_tokens: 1_000 });
    expect(costOf(call, { input: 2, output: 8 })).toBeCloseTo(0.02, 12);
  });

  it("bills reasoning as the output it is part of, once", () => {
    const call = counts({ output_tokens: 1_000, reasoning_tokens: 800 });
    expect(costOf(call, sonnet)).toBeCloseTo(0.015, 12);
  });

  it("switches to long-context rates for a whole call above the threshold", () => {
    const tiered: Price = {
      ...sonnet,
      long_context: {
        above_input_tokens: 200_000,
        input: 6,
        output: 22.5,
        cached_input: 0.6,
        cache_write: 7.5,
      },
    };
    // Exactly at the threshold the base rates still apply: 200,000×3 + 1,000×15.
    expect(costOf(counts({ input_tokens: 200_000, output_tokens: 1_000 }), tiered)).toBeCloseTo(0.615, 12);
    // Above it every token of the call is at the long-context rates: 200,000×6 + 50,000×0.6 + 1,000×22.5.
    const long = counts({ input_tokens: 250_000, cached_input_tokens: 50_000, output_tokens: 1_000 });
    expect(costOf(long, tiered)).toBeCloseTo((200_000 * 6 + 50_000 * 0.6 + 1_000 * 22.5) / 1e6, 12);
  });

  it("agrees with the price list for GPT-4o", () => {
    const { price } = modelInfo("openai/gpt-4o", configSchema.parse({}));
    const call = counts({ input_tokens: 2_000, cached_input_tokens: 1_000, output_tokens: 1_000 });
    // 1000×2.5 + 1000×1.25 + 1000×10
    expect(costOf(call, price)).toBeCloseTo(0.01375, 12);
  });
});

describe("usageFromSdk", () => {
  it("keeps the total input and the cache-read part of it", () => {
    const usage: LanguageModelUsage = {
      inputTokens: 10_000,
      inputTokenDetails: { noCacheTokens: 1_000, cacheReadTokens: 8_000, cacheWriteTokens: 1_000 },
      outputTokens: 300,
      outputTokenDetails: { textTokens: 100, reasoningTokens: 200 },
      totalTokens: 10_300,
    };
    expect(usageFromSdk(usage)).toEqual({
      input_tokens: 10_000,
      output_tokens: 300,
      cached_input_tokens: 8_000,
      cache_write_tokens: 1_000,
      reasoning_tokens: 200,
    });
  });

  it("adds up the parts when no total was reported, and counts nothing reported as 0", () => {
    const usage: LanguageModelUsage = {
      inputTokens: undefined,
      inputTokenDetails: { noCacheTokens: 40, cacheReadTokens: 60, cacheWriteTokens: undefined },
      outputTokens: undefined,
      outputTokenDetails: { textTokens: 7, reasoningTokens: undefined },
      totalTokens: undefined,
    };
    expect(usageFromSdk(usage)).toEqual({
      input_tokens: 100,
      output_tokens: 7,
      cached_input_tokens: 60,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    });
  });
});

describe("usage totals", () => {
  it("adds calls up", () => {
    let total = emptyUsage();
    total = addCall(total, counts({ input_tokens: 100, output_tokens: 10, cached_input_tokens: 50 }), 0.25);
    total = addCall(total, counts({ input_tokens: 200, output_tokens: 20, reasoning_tokens: 5 }), 0.5);
    expect(total).toEqual({
      input_tokens: 300,
      output_tokens: 30,
      cached_input_tokens: 50,
      cache_write_tokens: 0,
      reasoning_tokens: 5,
      cost_usd: 0.75,
      calls: 2,
    });
  });

  it("makes the cost unknown once any part is unknown", () => {
    const known: UsageTotals = addCall(emptyUsage(), counts({ input_tokens: 1 }), 1);
    const unknown = addCall(emptyUsage(), counts({ input_tokens: 1 }), null);
    expect(addUsage(known, unknown).cost_usd).toBeNull();
    expect(addUsage(unknown, known).cost_usd).toBeNull();
    expect(addCall(addUsage(known, unknown), counts({}), 2).cost_usd).toBeNull();
    expect(addUsage(known, known)).toMatchObject({ cost_usd: 2, calls: 2, input_tokens: 2 });
  });
});
