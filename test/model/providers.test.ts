import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import {
  createLanguageModel,
  DEFAULT_MODELS,
  MissingKeyError,
  OLLAMA_BASE_URL,
  profileModelId,
  resolveModelId,
} from "../../src/model/providers.js";
import { ConfigError } from "../../src/platform/errors.js";

const config = (input: ConfigInput = {}) => configSchema.parse(input);

const ALL_KEYS = {
  OPENROUTER_API_KEY: "or-key",
  ANTHROPIC_API_KEY: "an-key",
  OPENAI_API_KEY: "oa-key",
  GOOGLE_GENERATIVE_AI_API_KEY: "go-key",
};

function thrown(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

async function rejected(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("resolveModelId", () => {
  it("takes the configured model first, then the default profile", () => {
    const profiles = { default: "anthropic/claude-sonnet-4-5" };
    expect(resolveModelId(config({ model: "openai/gpt-4o", profiles }), ALL_KEYS)).toBe("openai/gpt-4o");
    expect(resolveModelId(config({ profiles }), ALL_KEYS)).toBe("anthropic/claude-sonnet-4-5");
  });

  it("otherwise picks by the keys in the environment: OpenRouter, Anthropic, OpenAI, Google", () => {
    const pick = (keys: Record<string, string>) => resolveModelId(config(), keys);
    expect(pick(ALL_KEYS)).toBe("openrouter/google/gemini-3.5-flash");
    expect(pick({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k", GOOGLE_GENERATIVE_AI_API_KEY: "k" })).toBe(
      "anthropic/claude-sonnet-5",
    );
    expect(pick({ OPENAI_API_KEY: "k", GOOGLE_GENERATIVE_AI_API_KEY: "k" })).toBe("openai/gpt-6-sol");
    expect(pick({ GOOGLE_GENERATIVE_AI_API_KEY: "k" })).toBe("google/gemini-3.8-flash");
    expect(pick({ OPENROUTER_API_KEY: "", OPENAI_API_KEY: "k" })).toBe("openai/gpt-6-sol");
  });

  it("looks for a renamed key variable", () => {
    const renamed = config({ providers: { anthropic: { api_key_env: "WORK_CLAUDE_KEY" } } });
    expect(resolveModelId(renamed, { WORK_CLAUDE_KEY: "k", OPENAI_API_KEY: "k" })).toBe(
      "anthropic/claude-sonnet-5",
    );
    expect(resolveModelId(renamed, { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" })).toBe("openai/gpt-6-sol");
  });

  it("without model or key, says which keys to store or set, in 80 columns, and that Ollama needs none", () => {
    const error = thrown(() => resolveModelId(config(), {}));
    expect(error.exitCode).toBe(2);
    const lines = error.message.split("\n");
    expect(lines).toEqual([
      "No model chosen and no API key found. Store a key once with",
      "`cairn auth login <provider>`, or set its variable in the environment:",
      "  provider    variable                      model cairn then uses",
      "  openrouter  OPENROUTER_API_KEY            openrouter/google/gemini-3.5-flash",
      "  anthropic   ANTHROPIC_API_KEY             anthropic/claude-sonnet-5",
      "  openai      OPENAI_API_KEY                openai/gpt-6-sol",
      "  google      GOOGLE_GENERATIVE_AI_API_KEY  google/gemini-3.8-flash",
      "Or choose a model with --model provider/model (or CAIRN_MODEL, or `model:` in the config).",
      "A local Ollama needs no key: --model ollama/<name>.",
    ]);
    expect(error).toBeInstanceOf(MissingKeyError);
  });
});

describe("profileModelId", () => {
  it("uses the role's profile, else the default model", () => {
    const withCheap = config({
      model: "anthropic/claude-sonnet-4-5",
      profiles: { cheap: "anthropic/claude-haiku-4-5" },
    });
    expect(profileModelId(withCheap, "cheap", {})).toBe("anthropic/claude-haiku-4-5");
    expect(profileModelId(withCheap, "review", {})).toBe("anthropic/claude-sonnet-4-5");
    expect(profileModelId(config(), "strong", { OPENAI_API_KEY: "k" })).toBe("openai/gpt-6-sol");
  });
});

describe("createLanguageModel", () => {
  it.each([
    ["openai/gpt-4o", "openai.chat", "gpt-4o"],
    ["anthropic/claude-sonnet-4-5", "anthropic.messages", "claude-sonnet-4-5"],
    ["google/gemini-2.5-flash", "google.generative-ai", "gemini-2.5-flash"],
    ["openrouter/google/gemini-2.5-flash", "openrouter", "google/gemini-2.5-flash"],
    ["ollama/qwen3:8b", "ollama.responses", "qwen3:8b"],
    ["openai-compatible/qwen2.5-coder", "openai-compatible.chat", "qwen2.5-coder"],
  ])("builds %s", async (modelId, provider, model) => {
    const withLocalServer = config({
      providers: { "openai-compatible": { base_url: "http://127.0.0.1:8000/v1" } },
    });
    const built = await createLanguageModel(modelId, withLocalServer, ALL_KEYS);
    expect(built.provider).toBe(provider);
    expect(built.modelId).toBe(model);
  });

  it("builds a model for every default", async () => {
    for (const { modelId } of DEFAULT_MODELS) {
      await expect(createLanguageModel(modelId, config(), ALL_KEYS)).resolves.toBeDefined();
    }
  });

  it("names the missing key variable, renamed or not", async () => {
    let error = await rejected(createLanguageModel("anthropic/claude-sonnet-4-5", config(), {}));
    expect(error.message).toBe(
      "anthropic/claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY in the environment, or store one with `cairn auth login anthropic`.",
    );
    const renamed = config({ providers: { openrouter: { api_key_env: "TEAM_OPENROUTER" } } });
    error = await rejected(createLanguageModel("openrouter/google/gemini-2.5-flash", renamed, ALL_KEYS));
    expect(error.message).toBe(
      "openrouter/google/gemini-2.5-flash needs an API key: set TEAM_OPENROUTER in the environment, or store one with `cairn auth login openrouter`.",
    );
  });

  it("needs no key for Ollama, unless a key variable was configured for it", async () => {
    await expect(createLanguageModel("ollama/qwen3", config(), {})).resolves.toBeDefined();
    const guarded = config({ providers: { ollama: { api_key_env: "OLLAMA_CLOUD_KEY" } } });
    const error = await rejected(createLanguageModel("ollama/qwen3", guarded, {}));
    expect(error.message).toBe(
      "ollama/qwen3 needs an API key: set OLLAMA_CLOUD_KEY in the environment, or store one with `cairn auth login ollama`.",
    );
  });

  it("needs a base URL for openai-compatible", async () => {
    const error = await rejected(createLanguageModel("openai-compatible/qwen", config(), {}));
    expect(error.message).toMatch(
      /^openai-compatible\/qwen needs the server's address: pass --base-url or set providers\.openai-compatible\.base_url/,
    );
  });

  it("refuses a malformed model id", async () => {
    const error = await rejected(createLanguageModel("gpt-4o", config(), ALL_KEYS));
    expect(error.message).toBe(
      'model: expected provider/model, e.g. anthropic/claude-sonnet-4-5 (got "gpt-4o")',
    );
  });

  it("defaults Ollama to the local daemon", () => {
    expect(OLLAMA_BASE_URL).toBe("http://127.0.0.1:11434/api");
  });
});

describe("createLanguageModel talks to the configured endpoint with the configured key", () => {
  let server: Server;
  let base: string;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    // Answers every request with an error: only the request itself is of interest here.
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? "", headers: request.headers });
      request.resume();
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "scripted refusal", type: "invalid_request_error" } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function requestOf(modelId: string, settings: ConfigInput, env: NodeJS.ProcessEnv) {
    const model = await createLanguageModel(modelId, config(settings), env);
    if (model.specificationVersion !== "v4") throw new Error("expected a v4 model");
    seen.length = 0;
    await expect(
      model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
    return seen[0]!;
  }

  it("openai: chat completions at base_url, key from the renamed variable", async () => {
    const request = await requestOf(
      "openai/gpt-4o",
      { providers: { openai: { base_url: `${base}/v1`, api_key_env: "MY_OPENAI" } } },
      { MY_OPENAI: "sk-mine", OPENAI_API_KEY: "sk-other" },
    );
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-mine");
  });

  it("anthropic: messages at base_url with x-api-key", async () => {
    const request = await requestOf(
      "anthropic/claude-sonnet-4-5",
      { providers: { anthropic: { base_url: `${base}/v1` } } },
      { ANTHROPIC_API_KEY: "an-key" },
    );
    expect(request.url).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("an-key");
  });

  it("ollama: /api/chat at base_url, a bearer key only when one is set", async () => {
    let request = await requestOf("ollama/qwen3", { providers: { ollama: { base_url: `${base}/api` } } }, {});
    expect(request.url).toBe("/api/chat");
    expect(request.headers.authorization).toBeUndefined();
    request = await requestOf(
      "ollama/qwen3",
      { providers: { ollama: { base_url: `${base}/api` } } },
      { OLLAMA_API_KEY: "ol-key" },
    );
    expect(request.headers.authorization).toBe("Bearer ol-key");
  });

  it("openai-compatible: chat completions at base_url, keyless", async () => {
    const request = await requestOf(
      "openai-compatible/qwen2.5-coder",
      { providers: { "openai-compatible": { base_url: `${base}/v1` } } },
      {},
    );
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBeUndefined();
  });
});
