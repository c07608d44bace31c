import { describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { modelInfo } from "../../src/model/catalog.js";
import { DEFAULT_MODELS } from "../../src/model/providers.js";

const config = (input: ConfigInput = {}) => configSchema.parse(input);

describe("modelInfo from the price list", () => {
  it("knows Claude Sonnet 4.5, with its long-context rates", () => {
    expect(modelInfo("anthropic/claude-sonnet-4-5", config())).toEqual({
      contextWindow: 200_000,
      contextWindowKnown: true,
      price: {
        input: 3,
        output: 15,
        cached_input: 0.3,
        cache_write: 3.75,
        long_context: {
          above_input_tokens: 200_000,
          input: 6,
          output: 22.5,
          cached_input: 0.6,
          cache_write: 7.5,
        },
      },
      toolCalls: "native",
      images: true,
      toolImages: true,
      maxOutputTokens: undefined,
      local: false,
      sources: { contextWindow: "price list", toolCalls: "default", images: "provider" },
    });
  });

  it("knows GPT-4o, which has no cache-write rate, and takes images in the person's message but not in tool results", () => {
    const info = modelInfo("openai/gpt-4o", config());
    expect(info).toMatchObject({ contextWindow: 128_000, contextWindowKnown: true, toolCalls: "native" });
    expect(info.price).toEqual({ input: 2.5, output: 10, cached_input: 1.25, cache_write: undefined });
    // Chat Completions' tool messages are text only.
    expect(info).toMatchObject({ images: true, toolImages: false });
  });

  it("knows OpenRouter's own listing", () => {
    const info = modelInfo("openrouter/google/gemini-2.5-flash", config());
    expect(info.contextWindow).toBe(1_048_576);
    expect(info.price).toMatchObject({ input: 0.3, output: 2.5, cached_input: 0.075 });
  });

  it("knows the context window and price of every default model", () => {
    for (const { modelId } of DEFAULT_MODELS) {
      const info = modelInfo(modelId, config());
      expect(info.contextWindowKnown, modelId).toBe(true);
      expect(info.price, modelId).not.toBeNull();
    }
  });

  it("guesses the context window of an unknown hosted model and leaves its price unknown", () => {
    expect(modelInfo("openai/no-such-model", config())).toEqual({
      contextWindow: 128_000,
      contextWindowKnown: false,
      price: null,
      toolCalls: "native",
      images: true,
      toolImages: false,
      maxOutputTokens: undefined,
      local: false,
      sources: { contextWindow: "guess", toolCalls: "default", images: "provider" },
    });
  });

  it("guesses low for local servers; an openai-compatible price is unknown, Ollama is free", () => {
    expect(modelInfo("openai-compatible/gpt-4o", config())).toEqual({
      contextWindow: 32_768,
      contextWindowKnown: false,
      price: null,
      toolCalls: "native",
      images: false,
      toolImages: false,
      maxOutputTokens: undefined,
      local: true,
      sources: { contextWindow: "guess", toolCalls: "default", images: "default" },
    });
    // Ollama runs locally: no per-token bill, so its cost is known to be zero.
    expect(modelInfo("ollama/gpt-oss:20b", config())).toEqual({
      contextWindow: 32_768,
      contextWindowKnown: false,
      price: { input: 0, output: 0 },
      toolCalls: "native",
      images: false,
      toolImages: false,
      maxOutputTokens: undefined,
      local: true,
      sources: { contextWindow: "guess", toolCalls: "default", images: "default" },
    });
  });
});

describe("modelInfo with config overrides", () => {
  it("lets models.<id> win over the price list", () => {
    const overridden = config({
      models: {
        "openai/gpt-4o": {
          context_window: 64_000,
          price: { input: 1, output: 2 },
          tool_calls: "text",
          images: true,
          max_output_tokens: 4_096,
        },
      },
    });
    expect(modelInfo("openai/gpt-4o", overridden)).toEqual({
      contextWindow: 64_000,
      contextWindowKnown: true,
      price: { input: 1, output: 2 },
      toolCalls: "text",
      images: true,
      toolImages: false,
      maxOutputTokens: 4_096,
      local: false,
      sources: { contextWindow: "config", toolCalls: "config", images: "config" },
    });
  });

  it("overrides key by key, keeping what the list knows", () => {
    const info = modelInfo(
      "openai/gpt-4o",
      config({ models: { "openai/gpt-4o": { context_window: 32_000 } } }),
    );
    expect(info.contextWindow).toBe(32_000);
    expect(info.price?.input).toBe(2.5);
  });

  it("makes a local model's window and price known", () => {
    const local = config({
      models: { "ollama/qwen3": { context_window: 40_960, price: { input: 0, output: 0 } } },
    });
    expect(modelInfo("ollama/qwen3", local)).toMatchObject({
      contextWindow: 40_960,
      contextWindowKnown: true,
      price: { input: 0, output: 0 },
    });
  });
});

describe("modelInfo with what a local server said", () => {
  const learned = {
    modelId: "ollama/llama3.2-vision:11b",
    server: "http://127.0.0.1:11434/api",
    learnedAt: "2026-11-20T14:02:00.000Z",
    source: "ollama /api/show",
    contextWindow: 131_072,
    tools: false,
    vision: true,
  };

  it("takes the window, text mode and images from it, saying so", () => {
    expect(modelInfo("ollama/llama3.2-vision:11b", config(), learned)).toMatchObject({
      contextWindow: 131_072,
      contextWindowKnown: true,
      toolCalls: "text",
      images: true,
      learned,
      sources: {
        contextWindow: "ollama /api/show",
        toolCalls: "ollama /api/show",
        images: "ollama /api/show",
      },
    });
  });

  it("lets the config win over it, key by key", () => {
    const overridden = config({
      models: { "ollama/llama3.2-vision:11b": { context_window: 16_384, tool_calls: "native" } },
    });
    expect(modelInfo("ollama/llama3.2-vision:11b", overridden, learned)).toMatchObject({
      contextWindow: 16_384,
      toolCalls: "native",
      images: true,
      sources: { contextWindow: "config", toolCalls: "config", images: "ollama /api/show" },
    });
  });
});
