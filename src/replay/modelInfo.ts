// What a local server says of its models at its own endpoints, for the scripted server to play
// one: Ollama's /api/tags and /api/show, llama.cpp's /props, vLLM's /v1/models and LM Studio's
// /api/v1/models, in their real shapes.

/** A model as the played server describes it. */
export interface ServedModel {
  /** Its context in tokens: Ollama's `context_length`, llama.cpp's `n_ctx`, vLLM's `max_model_len`, LM Studio's loaded context. */
  contextLength?: number;
  /** Ollama's capabilities: `completion`, `tools`, `vision`, …; llama.cpp's template and modalities follow them. */
  capabilities?: string[];
  /** Ollama: the `num_ctx` its Modelfile sets. */
  numCtx?: number;
  /** Ollama: its digest in /api/tags. */
  digest?: string;
}

/** Which server to play, and the models it has. */
export interface ServedModels {
  server: "ollama" | "llama.cpp" | "vllm" | "lm-studio";
  models: Record<string, ServedModel>;
}

const ollamaName = (model: string) => (model.includes(":") ? model : `${model}:latest`);

function find(served: ServedModels, name: unknown): [string, ServedModel] | undefined {
  return Object.entries(served.models).find(([key]) => ollamaName(key) === ollamaName(String(name)));
}

function ollamaShow(model: ServedModel): unknown {
  return {
    modelfile: "",
    parameters: model.numCtx ? `num_ctx                        ${model.numCtx}` : "",
    template: "",
    details: { format: "gguf", family: "qwen2", parameter_size: "7.6B", quantization_level: "Q4_K_M" },
    model_info: {
      "general.architecture": "qwen2",
      ...(model.contextLength ? { "qwen2.context_length": model.contextLength } : {}),
    },
    ...(model.capabilities ? { capabilities: model.capabilities } : {}),
    modified_at: "2026-01-01T00:00:00Z",
  };
}

/**
 * The answer to a request at one of the played server's endpoints: status and body; undefined
 * when the request is for none of them (a model request, or another server's endpoint).
 */
export function modelInfoAnswer(
  served: ServedModels | undefined,
  method: string,
  path: string,
  body: { model?: unknown } | undefined,
): { status: number; body: unknown } | undefined {
  const entries = Object.entries(served?.models ?? {});
  const first = entries[0]?.[1];
  switch (`${served?.server} ${method} ${path}`) {
    case "ollama GET /api/tags":
      return {
        status: 200,
        body: {
          models: entries.map(([name, model]) => ({
            name: ollamaName(name),
            model: ollamaName(name),
            ...(model.digest ? { digest: model.digest } : {}),
          })),
        },
      };
    case "ollama POST /api/show": {
      const found = served && find(served, body?.model);
      return found
        ? { status: 200, body: ollamaShow(found[1]) }
        : { status: 404, body: { error: `model '${String(body?.model)}' not found` } };
    }
    case "llama.cpp GET /props":
      return {
        status: 200,
        body: {
          default_generation_settings: { n_ctx: first?.contextLength ?? 4096, params: {} },
          total_slots: 1,
          modalities: { vision: first?.capabilities?.includes("vision") ?? false, audio: false },
          chat_template_caps: { supports_tool_calls: first?.capabilities?.includes("tools") ?? false },
        },
      };
    case "vllm GET /v1/models":
      return {
        status: 200,
        body: {
          object: "list",
          data: entries.map(([id, model]) => ({ id, object: "model", max_model_len: model.contextLength })),
        },
      };
    case "lm-studio GET /api/v1/models":
      return {
        status: 200,
        body: {
          models: entries.map(([key, model]) => ({
            type: "llm",
            key,
            loaded_instances: model.contextLength
              ? [{ id: key, config: { context_length: model.contextLength } }]
              : [],
            max_context_length: 131072,
            capabilities: {
              vision: model.capabilities?.includes("vision") ?? false,
              trained_for_tool_use: model.capabilities?.includes("tools") ?? false,
            },
          })),
        },
      };
    default:
      return undefined;
  }
}
