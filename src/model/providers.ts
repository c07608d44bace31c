import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { EmbeddingModel } from "ai";
import { ConfigError } from "../platform/errors.js";
import { expectation } from "../platform/issues.js";
import { closest } from "../platform/text.js";
import type { Price } from "./cost.js";

/** A provider's language model, called directly (call.ts): never a bare id for a global registry. */
export type ChatModel = LanguageModelV4;

/** An embedding model object ready for `embedMany`. */
export type EmbedModel = Exclude<EmbeddingModel, string>;

interface Connection {
  model: string;
  apiKey: string | undefined;
  baseURL: string | undefined;
  /** Ollama's `keep_alive`, sent with each chat request when the config sets it. */
  keepAlive?: string | number | undefined;
}

/** What a request asks of the server besides its prompt: the cap on the answer, the context to run it in. */
export interface RequestSizes {
  maxOutputTokens?: number | undefined;
  /** The context the server should run the request in (Ollama's `num_ctx`). */
  contextTokens?: number | undefined;
}

/**
 * Everything cairn knows about one provider, in one place: adding a provider is one entry here.
 * Any other OpenAI-compatible endpoint is configuration (`openai-compatible` with a base URL),
 * not code.
 */
export interface ProviderSpec {
  /** Where the key is looked for; `providers.<name>.api_key_env` renames it. */
  keyEnv: string;
  /**
   * Runs on the person's own machine or network (Ollama, vLLM, LM Studio, llama.cpp): no key
   * needed, not in the price list, and a context window guessed low, as such servers are often
   * started with small ones.
   */
  local: boolean;
  /** The model used when none is chosen and this provider's key is set. */
  defaultModel?: string;
  /** Where its API is when the config names no base URL (none: it must be given). */
  baseUrl?: string;
  /** The price when the list has none and the config sets none. */
  price?: Price;
  /** Marks prompt-cache breakpoints in requests (Anthropic caches only up to marked blocks). */
  cacheBreakpoints?: boolean;
  /** Its models take images in the person's message unless the config says otherwise. */
  images?: boolean;
  /** Its wire carries images in tool results (Chat Completions' tool messages are text only). */
  toolResultImages?: boolean;
  /**
   * Provider options that carry the cap on an answer's tokens where the SDK's own setting does
   * not reach the server, and the context to run the request in where the server takes one.
   */
  requestOptions?(sizes: RequestSizes): Record<string, Record<string, unknown>> | undefined;
  /**
   * It runs each request in a context the client sizes, and cuts a longer prompt silently
   * (Ollama, whose default is 4,096 or 2,048 tokens): every request says how much it needs.
   */
  sizesContext?: boolean;
  /**
   * How long its server may send nothing unless the config says otherwise: a model on a CPU can
   * read a long prompt for minutes before its first token.
   */
  idleTimeoutMs?: number;
  /** Builds the SDK model; provider packages are imported only here, when a model is built. */
  create(connection: Connection, modelId: string): Promise<ChatModel>;
  /**
   * Its text embeddings, where it offers them through the AI SDK: the model `auto` picks, and
   * how to build one (file relevance, src/context/relevance).
   */
  embedding?: {
    defaultModel?: string;
    create(connection: Connection): Promise<EmbedModel>;
  };
}

export const OLLAMA_BASE_URL = "http://127.0.0.1:11434/api";

/**
 * Ollama's provider has no setting for `keep_alive` (how long the server keeps the model loaded
 * after a request): it is added to each chat request's body on its way out.
 */
function withKeepAlive(keepAlive: string | number): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith("/chat") && typeof init?.body === "string") {
      const body = JSON.parse(init.body) as Record<string, unknown>;
      return fetch(input, { ...init, body: JSON.stringify({ ...body, keep_alive: keepAlive }) });
    }
    return fetch(input, init);
  };
}

/** An Ollama server: the local one by default; a key is sent when set, for hosted Ollama or a guarded server. */
async function ollamaProvider({ apiKey, baseURL, keepAlive }: Connection) {
  const { createOllama } = await import("ollama-ai-provider-v2");
  return createOllama({
    baseURL: baseURL ?? OLLAMA_BASE_URL,
    ...(apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {}),
    ...(keepAlive !== undefined ? { fetch: withKeepAlive(keepAlive) } : {}),
  });
}

/** Local servers may take minutes before the first token of an answer to a long prompt on a CPU. */
const LOCAL_IDLE_TIMEOUT_MS = 600_000;

/**
 * With no model chosen, the first provider (in this order) whose key is set gives the model.
 * OpenRouter comes first because one key reaches every vendor; its Gemini Flash is the newest
 * Flash OpenRouter lists in the bundled price data. The others are each vendor's current
 * general model that both the installed SDK and the price data know (so cost is never unknown
 * by default): Claude Sonnet 5, GPT-6 Sol (OpenAI's "complex coding and agentic workflows"
 * model) and Gemini 3.8 Flash.
 */
export const PROVIDER_SPECS = {
  openrouter: {
    keyEnv: "OPENROUTER_API_KEY",
    local: false,
    defaultModel: "openrouter/google/gemini-3.5-flash",
    baseUrl: "https://openrouter.ai/api/v1",
    async create({ model, apiKey, baseURL }) {
      const { createOpenRouter } = await import("@openrouter/ai-sdk-provider");
      // "strict" asks for usage in streamed replies; the default mode leaves it out, and then
      // every call's tokens and cost would be unknown.
      return createOpenRouter({ apiKey, baseURL, compatibility: "strict" }).chat(model);
    },
  },
  anthropic: {
    keyEnv: "ANTHROPIC_API_KEY",
    local: false,
    defaultModel: "anthropic/claude-sonnet-5",
    baseUrl: "https://api.anthropic.com/v1",
    cacheBreakpoints: true,
    images: true,
    toolResultImages: true,
    async create({ model, apiKey, baseURL }) {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ apiKey, baseURL }).messages(model);
    },
  },
  openai: {
    keyEnv: "OPENAI_API_KEY",
    local: false,
    defaultModel: "openai/gpt-6-sol",
    baseUrl: "https://api.openai.com/v1",
    images: true,
    async create({ model, apiKey, baseURL }) {
      const { createOpenAI } = await import("@ai-sdk/openai");
      // Chat Completions rather than Responses: it is the wire format every OpenAI-style server
      // (and the scripted test server) speaks, so one code path serves them all.
      return createOpenAI({ apiKey, baseURL }).chat(model);
    },
    embedding: {
      defaultModel: "openai/text-embedding-3-small",
      async create({ model, apiKey, baseURL }) {
        const { createOpenAI } = await import("@ai-sdk/openai");
        return createOpenAI({ apiKey, baseURL }).embedding(model);
      },
    },
  },
  google: {
    keyEnv: "GOOGLE_GENERATIVE_AI_API_KEY",
    local: false,
    defaultModel: "google/gemini-3.8-flash",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    images: true,
    async create({ model, apiKey, baseURL }) {
      const { createGoogle } = await import("@ai-sdk/google");
      return createGoogle({ apiKey, baseURL }).languageModel(model);
    },
    embedding: {
      defaultModel: "google/gemini-embedding-001",
      async create({ model, apiKey, baseURL }) {
        const { createGoogle } = await import("@ai-sdk/google");
        return createGoogle({ apiKey, baseURL }).embedding(model);
      },
    },
  },
  ollama: {
    // Local servers run without a key; one is sent when set, for hosted Ollama or a guarded server.
    keyEnv: "OLLAMA_API_KEY",
    local: true,
    baseUrl: OLLAMA_BASE_URL,
    // Ollama runs on the person's own machine: no per-token bill.
    price: { input: 0, output: 0 },
    // Its provider sends the cap as a `max_output_tokens` field, which Ollama ignores; the
    // context goes as num_ctx, which only the native /api/chat reads.
    requestOptions: ({ maxOutputTokens, contextTokens }) =>
      maxOutputTokens || contextTokens
        ? {
            ollama: {
              options: {
                ...(maxOutputTokens ? { num_predict: maxOutputTokens } : {}),
                ...(contextTokens ? { num_ctx: contextTokens } : {}),
              },
            },
          }
        : undefined,
    sizesContext: true,
    idleTimeoutMs: LOCAL_IDLE_TIMEOUT_MS,
    async create(connection) {
      return (await ollamaProvider(connection))(connection.model);
    },
    embedding: {
      defaultModel: "ollama/nomic-embed-text",
      async create(connection) {
        return (await ollamaProvider(connection)).embedding(connection.model);
      },
    },
  },
  // May be a paid proxy as well as a local server, so its price stays unknown until configured.
  "openai-compatible": {
    keyEnv: "OPENAI_COMPATIBLE_API_KEY",
    local: true,
    idleTimeoutMs: LOCAL_IDLE_TIMEOUT_MS,
    async create({ model, apiKey, baseURL }, modelId) {
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
    },
    // No model to pick for a server cairn does not know; one named in relevance.embeddings works.
    embedding: {
      async create({ model, apiKey, baseURL }) {
        if (!baseURL)
          throw new ConfigError(
            "openai-compatible embeddings need the server's address: set providers.openai-compatible.base_url.",
          );
        const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
        return createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey }).embeddingModel(model);
      },
    },
  },
} as const satisfies Record<string, ProviderSpec>;

export type ProviderName = keyof typeof PROVIDER_SPECS;

export const PROVIDERS = Object.keys(PROVIDER_SPECS) as ProviderName[];

export function providerSpec(provider: ProviderName): ProviderSpec {
  return PROVIDER_SPECS[provider];
}

/** A provider's connection settings, as the config's `providers.<name>` gives them. */
export interface ProviderSettings {
  api_key_env?: string | undefined;
  base_url?: string | undefined;
  keep_alive?: string | number | undefined;
  request_timeout_ms?: number | undefined;
}

/** The parts of the configuration that choose and reach a model. */
export interface ModelChoice {
  model?: string | undefined;
  profiles: Partial<Record<ModelRole, string | undefined>>;
  providers: Partial<Record<ProviderName, ProviderSettings>>;
}

export type ModelRole = "default" | "cheap" | "strong" | "review";

/** What is wrong with a `provider/model` id, or undefined when nothing is. */
export function modelIdProblem(id: string): string | undefined {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) {
    return expectation("provider/model, e.g. anthropic/claude-sonnet-4-5", id);
  }
  const provider = id.slice(0, slash);
  if ((PROVIDERS as readonly string[]).includes(provider)) return undefined;
  const near = closest(provider, PROVIDERS);
  return expectation(
    `a known provider before the "/" (${PROVIDERS.join(", ")})`,
    id,
    near && `${near}${id.slice(slash)}`,
  );
}

/** `provider/model`; the model part may itself contain slashes (openrouter/google/gemini-2.5-flash). */
export function parseModelId(modelId: string): { provider: ProviderName; model: string } {
  const problem = modelIdProblem(modelId);
  if (problem) throw new ConfigError(`model: ${problem}`);
  const slash = modelId.indexOf("/");
  return { provider: modelId.slice(0, slash) as ProviderName, model: modelId.slice(slash + 1) };
}

export function keyVariable(provider: ProviderName, choice: Pick<ModelChoice, "providers">): string {
  return choice.providers[provider]?.api_key_env ?? PROVIDER_SPECS[provider].keyEnv;
}

/** The providers that name a default model, in the order one is picked. */
export const DEFAULT_MODELS: readonly { provider: ProviderName; modelId: string }[] = PROVIDERS.flatMap(
  (provider) => {
    const spec: ProviderSpec = PROVIDER_SPECS[provider];
    return spec.defaultModel ? [{ provider, modelId: spec.defaultModel }] : [];
  },
);

/**
 * A model cannot be reached for want of an API key: which provider, which variable. Front ends
 * that start cairn with a bare environment (an MCP client, an editor) add how to give one there.
 */
export class MissingKeyError extends ConfigError {
  override name = "MissingKeyError";
  /** The providers (and the variables) any one of which would do. */
  readonly wanted: ReadonlyArray<{ provider: ProviderName; variable: string }>;

  constructor(message: string, wanted: ReadonlyArray<{ provider: ProviderName; variable: string }>) {
    super(message);
    this.wanted = wanted;
  }
}

/** The model a run uses: the chosen one, else the default profile, else one a key in env can reach. */
export function resolveModelId(choice: ModelChoice, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = choice.model ?? choice.profiles.default;
  if (chosen) return chosen;
  const reachable = DEFAULT_MODELS.find(({ provider }) => env[keyVariable(provider, choice)]);
  if (reachable) return reachable.modelId;
  const rows = DEFAULT_MODELS.map(({ provider, modelId }) => ({
    provider,
    modelId,
    variable: keyVariable(provider, choice),
  }));
  const table = [{ provider: "provider", variable: "variable", modelId: "model cairn then uses" }, ...rows];
  const providerWidth = Math.max(...table.map((row) => row.provider.length));
  const variableWidth = Math.max(...table.map((row) => row.variable.length));
  throw new MissingKeyError(
    [
      "No model chosen and no API key found. Store a key once with",
      "`cairn auth login <provider>`, or set its variable in the environment:",
      ...table.map(
        (row) =>
          `  ${row.provider.padEnd(providerWidth)}  ${row.variable.padEnd(variableWidth)}  ${row.modelId}`,
      ),
      "Or choose a model with --model provider/model (or CAIRN_MODEL, or `model:` in the config).",
      "A local Ollama needs no key: --model ollama/<name>.",
    ].join("\n"),
    rows,
  );
}

/** What to say when a model's key is missing: the provider's variable, or a stored key. */
export function missingKeyMessage(modelId: string, provider: ProviderName, variable: string): string {
  return `${modelId} needs an API key: set ${variable} in the environment, or store one with \`cairn auth login ${provider}\`.`;
}

/** The provider the chosen (or key-picked) model goes to; undefined when none is chosen or reachable. */
export function chosenProvider(
  choice: ModelChoice,
  env: NodeJS.ProcessEnv = process.env,
): ProviderName | undefined {
  try {
    return parseModelId(resolveModelId(choice, env)).provider;
  } catch {
    return undefined;
  }
}

/**
 * Whether a model would send requests to another provider than the person's (another of their
 * keys, billed elsewhere) or, when they have none, to one that is not local. A role (`cheap`)
 * names no provider: it goes where the person's profiles say.
 */
export function goesElsewhere(modelId: string, provider: ProviderName | undefined): boolean {
  if (!modelId.includes("/")) return false;
  const target = parseModelId(modelId).provider;
  return provider ? target !== provider : !PROVIDER_SPECS[target].local;
}

/** The model for a role (routing, escalation, review); a role without its own profile uses the default. */
export function profileModelId(
  choice: ModelChoice,
  role: ModelRole,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return choice.profiles[role] ?? resolveModelId(choice, env);
}

/**
 * Provider packages are imported only when a model is built: together they take hundreds of
 * milliseconds to load, which `cairn --help` and config errors should not pay.
 */
export async function createLanguageModel(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChatModel> {
  const { provider } = parseModelId(modelId);
  const spec: ProviderSpec = PROVIDER_SPECS[provider];
  return spec.create(connectionFor(modelId, choice, env), modelId);
}

/** What reaching a model takes: its name at the provider, the key, the address; a missing key said as one. */
function connectionFor(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  env: NodeJS.ProcessEnv,
): Connection {
  const { provider, model } = parseModelId(modelId);
  const missing = missingKeyVariable(modelId, choice, env);
  if (missing)
    throw new MissingKeyError(missingKeyMessage(modelId, provider, missing), [
      { provider, variable: missing },
    ]);
  return {
    model,
    apiKey: env[keyVariable(provider, choice)] || undefined,
    baseURL: choice.providers[provider]?.base_url,
    keepAlive: choice.providers[provider]?.keep_alive,
  };
}

/** A server on the person's own machine or network that can be asked about its models. */
export interface LocalServer {
  provider: "ollama" | "openai-compatible";
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
}

/**
 * Where a local model's server is, to ask it what it knows of the model; undefined for a hosted
 * provider, or one that cannot be reached as configured (building the model says why).
 */
export function localServer(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  env: NodeJS.ProcessEnv = process.env,
): LocalServer | undefined {
  const { provider } = parseModelId(modelId);
  if (provider !== "ollama" && provider !== "openai-compatible") return undefined;
  try {
    const connection = connectionFor(modelId, choice, env);
    const spec: ProviderSpec = PROVIDER_SPECS[provider];
    const baseUrl = connection.baseURL ?? spec.baseUrl;
    return baseUrl ? { provider, model: connection.model, baseUrl, apiKey: connection.apiKey } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The longest a call to a model may go without the server sending anything: the provider's
 * `request_timeout_ms` in the config, else the provider's own (local servers: long enough for a
 * CPU to read a prompt), else the config's `request_timeout_ms`.
 */
export function idleTimeoutFor(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  requestTimeoutMs: number,
): number {
  const { provider } = parseModelId(modelId);
  const spec: ProviderSpec = PROVIDER_SPECS[provider];
  return choice.providers[provider]?.request_timeout_ms ?? spec.idleTimeoutMs ?? requestTimeoutMs;
}

/** The embedding model `auto` means for a chat model: its provider's, where it has one. */
export function defaultEmbeddingModel(chatModelId: string): string | undefined {
  const spec: ProviderSpec = PROVIDER_SPECS[parseModelId(chatModelId).provider];
  return spec.embedding?.defaultModel;
}

/** An embedding model (`openai/text-embedding-3-small`), reached as the provider's chat models are. */
export async function createEmbeddingModel(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<EmbedModel> {
  const { provider } = parseModelId(modelId);
  const spec: ProviderSpec = PROVIDER_SPECS[provider];
  if (!spec.embedding)
    throw new ConfigError(
      `${provider} offers no embeddings through cairn; name another in relevance.embeddings (e.g. openai/text-embedding-3-small) or set it to off.`,
    );
  return spec.embedding.create(connectionFor(modelId, choice, env));
}

/** The environment variable a model's API key should be in and is not; undefined when it needs none or has one. */
export function missingKeyVariable(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const { provider } = parseModelId(modelId);
  const variable = keyVariable(provider, choice);
  return keyNeeded(provider, choice) && !env[variable] ? variable : undefined;
}

/**
 * Whether a provider's models need a key: a local server's do not, unless the config renamed its
 * key variable, which says the person expects a key there.
 */
export function keyNeeded(provider: ProviderName, choice: Pick<ModelChoice, "providers">): boolean {
  const spec: ProviderSpec = PROVIDER_SPECS[provider];
  return !spec.local || Boolean(choice.providers[provider]?.api_key_env);
}
