/**
 * What each local server says of the model it serves, from its own API: Ollama's `/api/show`,
 * llama.cpp's `/props`, vLLM's `/v1/models`, LM Studio's `/api/v1/models`. Each reader returns
 * only what its server actually says; a field it leaves out stays unknown.
 */

/** What a server said of a model, and where it said it. */
export interface ServerFacts {
  /** The context the model runs with, in tokens: its window, or the server's loaded context. */
  contextWindow?: number;
  /** The model can call tools natively (the server parses its calls). */
  tools?: boolean;
  /** The model takes images. */
  vision?: boolean;
  /** Ollama: the `num_ctx` its Modelfile sets, what the server loads it with when a request names none. */
  defaultContext?: number;
  /** Ollama: the model's digest, which says whether what was learned is still true. */
  digest?: string;
  /** The server and endpoint that said it: `ollama /api/show`. */
  source: string;
}

export interface Probe {
  /** GETs (or POSTs `body` to) a URL and reads JSON; undefined on any failure (no server, 404, a timeout). */
  json(url: string, body?: unknown): Promise<unknown>;
}

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
const flag = (value: unknown): boolean | undefined => (typeof value === "boolean" ? value : undefined);

/** Without what the server did not say: an unknown stays unknown, not `undefined` in a stored record. */
function defined(facts: ServerFacts): ServerFacts {
  return Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined)) as ServerFacts;
}

/** Ollama names a model without a tag `:latest`. */
const ollamaName = (model: string) => (model.includes(":") ? model : `${model}:latest`);

/** The model's digest from `/api/tags`; undefined when the server is not there or does not have the model. */
export async function ollamaDigest(
  probe: Probe,
  baseUrl: string,
  model: string,
): Promise<string | undefined> {
  const tags = object(await probe.json(`${baseUrl}/tags`));
  const models = Array.isArray(tags?.models) ? tags.models : [];
  const entry = models
    .map(object)
    .find((m) => m?.name === ollamaName(model) || m?.model === ollamaName(model));
  return typeof entry?.digest === "string" ? entry.digest : undefined;
}

/**
 * Ollama's `/api/show`: the window from `<architecture>.context_length`, tools and vision from
 * `capabilities` (Ollama 0.6.4 and later), the Modelfile's `num_ctx` from `parameters`.
 */
export async function ollamaFacts(
  probe: Probe,
  baseUrl: string,
  model: string,
): Promise<ServerFacts | undefined> {
  const show = object(await probe.json(`${baseUrl}/show`, { model }));
  if (!show) return undefined;
  const info = object(show.model_info) ?? {};
  const window = Object.entries(info).find(([key]) => key.endsWith(".context_length"))?.[1];
  const capabilities = Array.isArray(show.capabilities) ? show.capabilities : undefined;
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(String(show.parameters ?? ""))?.[1];
  return defined({
    contextWindow: positive(window),
    tools: capabilities ? capabilities.includes("tools") : undefined,
    vision: capabilities ? capabilities.includes("vision") : undefined,
    defaultContext: positive(Number(numCtx)),
    source: "ollama /api/show",
  });
}

/** A server's root, for the endpoints that are not under the OpenAI-style `/v1`. */
const rootOf = (baseUrl: string) => baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");

/**
 * llama.cpp's `/props`: the context each slot has (`default_generation_settings.n_ctx`, what a
 * request can use), vision from `modalities`, tools from what the chat template supports.
 */
export async function llamaCppFacts(probe: Probe, baseUrl: string): Promise<ServerFacts | undefined> {
  const props = object(await probe.json(`${rootOf(baseUrl)}/props`));
  const settings = object(props?.default_generation_settings);
  if (!props || !settings) return undefined;
  const caps = object(props.chat_template_caps);
  return defined({
    contextWindow: positive(settings.n_ctx),
    tools: flag(caps?.supports_tool_calls) ?? flag(caps?.supports_tools),
    vision: flag(object(props.modalities)?.vision),
    source: "llama.cpp /props",
  });
}

/** vLLM's `/v1/models`: `max_model_len`, the longest sequence it serves the model with. */
export async function vllmFacts(
  probe: Probe,
  baseUrl: string,
  model: string,
): Promise<ServerFacts | undefined> {
  const list = object(await probe.json(`${baseUrl.replace(/\/+$/, "")}/models`));
  const entries = Array.isArray(list?.data) ? list.data.map(object) : [];
  const entry = entries.find((e) => e?.id === model) ?? (entries.length === 1 ? entries[0] : undefined);
  const window = positive(entry?.max_model_len);
  return window ? { contextWindow: window, source: "vLLM /v1/models" } : undefined;
}

/**
 * LM Studio's `/api/v1/models` (0.4 and later): the context of a loaded instance (LM Studio
 * loads models with a context of its own choosing, often far below the model's maximum), vision
 * from `capabilities`. A model not trained for tool use still takes tools (LM Studio prompts it
 * itself), so that is not taken as "no tools".
 */
export async function lmStudioFacts(
  probe: Probe,
  baseUrl: string,
  model: string,
): Promise<ServerFacts | undefined> {
  const list = object(await probe.json(`${rootOf(baseUrl)}/api/v1/models`));
  const entries = Array.isArray(list?.models) ? list.models.map(object) : [];
  const entry = entries.find((e) => e?.key === model);
  if (!entry) return undefined;
  const loaded = Array.isArray(entry.loaded_instances) ? object(entry.loaded_instances[0]) : undefined;
  const capabilities = object(entry.capabilities);
  return defined({
    contextWindow: positive(object(loaded?.config)?.context_length),
    tools: capabilities?.trained_for_tool_use === true ? true : undefined,
    vision: flag(capabilities?.vision),
    source: "LM Studio /api/v1/models",
  });
}

/** An OpenAI-compatible server, whichever it is: the first of llama.cpp, vLLM and LM Studio to answer. */
export async function openAiCompatibleFacts(
  probe: Probe,
  baseUrl: string,
  model: string,
): Promise<ServerFacts | undefined> {
  const answers = await Promise.all([
    llamaCppFacts(probe, baseUrl),
    lmStudioFacts(probe, baseUrl, model),
    vllmFacts(probe, baseUrl, model),
  ]);
  return answers.find((facts) => facts !== undefined);
}
