import type { LanguageModel } from "ai";
import { ConfigError, describeIssue } from "../config/errors.js";
import { type Config, modelIdSchema, type ProviderName } from "../config/schema.js";

/** A model object ready for `streamText`, never a bare id string for the SDK's global registry. */
export type ChatModel = Exclude<LanguageModel, string>;

/** Where each provider looks for its key by default; `providers.<name>.api_key_env` renames it. */
export const API_KEY_ENV: Readonly<Record<ProviderName, string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
  // Local servers run without a key; one is sent when set, for hosted Ollama or a guarded vLLM.
  ollama: "OLLAMA_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
};

const KEYLESS: ReadonlySet<ProviderName> = new Set(["ollama", "openai-compatible"]);

export const OLLAMA_BASE_URL = "http://127.0.0.1:11434/api";

/**
 * The model used when none is configured, by the first provider that has a key, in this order.
 * OpenRouter comes first because one key reaches every vendor; its Gemini Flash is the newest
 * Flash OpenRouter lists in the bundled price data. The others are each vendor's current
 * general model that both the installed SDK and the price data know (so cost is never unknown
 * by default): Claude Sonnet 5, GPT-6 Sol (OpenAI's "complex coding and agentic workflows"
 * model) and Gemini 3.8 Flash.
 */
export const DEFAULT_MODELS: readonly { provider: ProviderName; modelId: string }[] = [
  { provider: "openrouter", modelId: "openrouter/google/gemini-3.5-flash" },
  { provider: "anthropic", modelId: "anthropic/claude-sonnet-5" },
  { provider: "openai", modelId: "openai/gpt-6-sol" },
  { provider: "google", modelId: "google/gemini-3.8-flash" },
];

export type ModelRole = "default" | "cheap" | "strong" | "review";

export function parseModelId(modelId: string): { provider: ProviderName; model: string } {
  const result = modelIdSchema.safeParse(modelId, { reportInput: true });
  if (!result.success) throw new ConfigError(`model: ${describeIssue(result.error.issues[0]!)}`);
  const slash = modelId.indexOf("/");
  return { provider: modelId.slice(0, slash) as ProviderName, model: modelId.slice(slash + 1) };
}

function keyVariable(provider: ProviderName, config: Config): string {
  return config.providers[provider]?.api_key_env ?? API_KEY_ENV[provider];
}

function keyFrom(variable: string, env: NodeJS.ProcessEnv): string | undefined {
  return env[variable] || undefined;
}

/** The model a run uses: the chosen one, else the default profile, else one a key in env can reach. */
export function resolveModelId(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = config.model ?? config.profiles.default;
  if (chosen) return chosen;
  const reachable = DEFAULT_MODELS.find(({ provider }) => keyFrom(keyVariable(provider, config), env));
  if (reachable) return reachable.modelId;
  const width = Math.max(...DEFAULT_MODELS.map(({ provider }) => keyVariable(provider, config).length));
  const options = DEFAULT_MODELS.map(
    ({ provider, modelId }) =>
      `  ${keyVariable(provider, config).padEnd(width)}  (then cairn uses ${modelId})`,
  );
  throw new ConfigError(
    [
      "No model chosen and no API key found. Set one of these environment variables:",
      ...options,
      "or choose a model with --model provider/model (or CAIRN_MODEL, or `model:` in the config).",
      "A local Ollama needs no key: --model ollama/<name>.",
    ].join("\n"),
  );
}

/** The model for a role (routing, escalation, review); a role without its own profile uses the default. */
export function profileModelId(
  config: Config,
  role: ModelRole,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return config.profiles[role] ?? resolveModelId(config, env);
}

/**
 * Provider packages are imported only here and only when a model is built: together they take
 * hundreds of milliseconds to load, which `cairn --help` and config errors should not pay.
 */
export async function createLanguageModel(
  modelId: string,
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChatModel> {
  const { provider, model } = parseModelId(modelId);
  const settings = config.providers[provider];
  const variable = keyVariable(provider, config);
  const apiKey = keyFrom(variable, env);
  // A renamed key variable says the person expects a key there, even for a local server.
  if (!apiKey && (!KEYLESS.has(provider) || settings?.api_key_env)) {
    throw new ConfigError(`${modelId} needs an API key: set the environment variable ${variable}.`);
  }
  const baseURL = settings?.base_url;
  switch (provider) {
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      // Chat Completions rather than Responses: it is the wire format every OpenAI-style server
      // (and the scripted test server) speaks, so one code path serves them all.
      return createOpenAI({ apiKey, baseURL }).chat(model);
    }
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ apiKey, baseURL }).messages(model);
    }
    case "google": {
      const { createGoogle } = await import("@ai-sdk/google");
      return createGoogle({ apiKey, baseURL }).languageModel(model);
    }
    case "openrouter": {
      const { createOpenRouter } = await import("@openrouter/ai-sdk-provider");
      // "strict" asks for usage in streamed replies; the default mode leaves it out, and then
      // every call's tokens and cost would be unknown.
      return createOpenRouter({ apiKey, baseURL, compatibility: "strict" }).chat(model);
    }
    case "ollama": {
      const { createOllama } = await import("ollama-ai-provider-v2");
      return createOllama({
        baseURL: baseURL ?? OLLAMA_BASE_URL,
        ...(apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {}),
      })(model);
    }
    case "openai-compatible": {
      if (!baseURL) {
        throw new ConfigError(
          `${modelId} needs the server's address: pass --base-url or set providers.openai-compatible.base_url ` +
            "(e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:1234/v1 for LM Studio, " +
            "http://127.0.0.1:8080/v1 for llama.cpp).",
        );
      }
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        apiKey,
        includeUsage: true,
      }).chatModel(model);
    }
  }
}
