import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { modelInfo } from "../../src/model/catalog.js";
import { outputCap } from "../../src/model/outputCap.js";

const config = (models: Record<string, { max_output_tokens?: number; context_window?: number }> = {}) =>
  configSchema.parse({ models });

describe("the cap on one answer", () => {
  it("is not sent to a hosted provider, which applies its model's own, but still bounds the stream", () => {
    const cap = outputCap(modelInfo("openai/gpt-4o", config()), 32_000, 1_000);
    expect(cap).toEqual({ tokens: 32_000, send: undefined, chars: 256_000 });
  });

  it("is sent to a local server, lowered to what its window leaves after the prompt", () => {
    const info = modelInfo(
      "openai-compatible/qwen",
      config({ "openai-compatible/qwen": { context_window: 32_768 } }),
    );
    expect(outputCap(info, 32_000, 1_000).send).toBe(28_591);
    // A prompt that nearly fills the window still leaves the answer some room.
    expect(outputCap(info, 32_000, 32_000).send).toBe(1_024);
    expect(outputCap(info, 4_000, 1_000).send).toBe(4_000);
  });

  it("is the model's own when the config sets one, sent to any provider as it is", () => {
    const info = modelInfo(
      "anthropic/claude-sonnet-4-5",
      config({ "anthropic/claude-sonnet-4-5": { max_output_tokens: 8_000 } }),
    );
    expect(outputCap(info, 32_000, 190_000)).toEqual({ tokens: 8_000, send: 8_000, chars: 64_000 });
  });
});
