import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { learnModelFacts, readLearned } from "../../src/model/facts/learn.js";
import { tempDir } from "../helpers/temp.js";
import { type ScriptedServer, type ServedModels, startScriptedServer } from "../support/scriptedServer.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(models: ServedModels): Promise<ScriptedServer> {
  const server = await startScriptedServer([], { models });
  servers.push(server);
  return server;
}

describe("learning a model's facts from its Ollama server", () => {
  it("asks /api/show once per digest, and says what it learned before when the server is gone", async () => {
    const served: ServedModels = {
      server: "ollama",
      models: {
        "qwen2.5-coder:7b": {
          contextLength: 32_768,
          capabilities: ["completion", "tools"],
          digest: "sha256:aaa",
        },
      },
    };
    const server = await serve(served);
    const cacheFile = path.join(tempDir("cairn-facts-"), "model-facts.json");
    const ask = () =>
      learnModelFacts({
        modelId: "ollama/qwen2.5-coder:7b",
        provider: "ollama",
        model: "qwen2.5-coder:7b",
        baseUrl: server.ollamaBaseUrl,
        cacheFile,
      });
    const first = await ask();
    expect(first).toMatchObject({ contextWindow: 32_768, tools: true, vision: false, digest: "sha256:aaa" });
    await ask();
    expect(server.infoRequests.filter((r) => r === "POST /api/show")).toHaveLength(1);
    // A new pull of the model: new digest, asked again.
    served.models["qwen2.5-coder:7b"] = {
      contextLength: 131_072,
      capabilities: ["completion", "tools", "vision"],
      digest: "sha256:bbb",
    };
    expect(await ask()).toMatchObject({ contextWindow: 131_072, vision: true, digest: "sha256:bbb" });
    expect(server.infoRequests.filter((r) => r === "POST /api/show")).toHaveLength(2);
    await server.close();
    expect(await ask()).toMatchObject({ contextWindow: 131_072, stale: true });
    expect(await readLearned(cacheFile)).toEqual([
      expect.objectContaining({
        modelId: "ollama/qwen2.5-coder:7b",
        source: "ollama /api/show",
        contextWindow: 131_072,
      }),
    ]);
  });

  it("learns nothing of a model the server does not have", async () => {
    const server = await serve({ server: "ollama", models: {} });
    const learned = await learnModelFacts({
      modelId: "ollama/llama3.1:8b",
      provider: "ollama",
      model: "llama3.1:8b",
      baseUrl: server.ollamaBaseUrl,
    });
    expect(learned).toBeUndefined();
  });
});

describe("learning a model's facts from an OpenAI-compatible server", () => {
  const learn = (server: ScriptedServer, model: string) =>
    learnModelFacts({
      modelId: `openai-compatible/${model}`,
      provider: "openai-compatible",
      model,
      baseUrl: server.openaiBaseUrl,
    });

  it("reads llama.cpp's /props: the slot's context, tool support and vision", async () => {
    const server = await serve({
      server: "llama.cpp",
      models: { qwen: { contextLength: 16_384, capabilities: ["tools", "vision"] } },
    });
    expect(await learn(server, "qwen")).toMatchObject({
      source: "llama.cpp /props",
      contextWindow: 16_384,
      tools: true,
      vision: true,
    });
  });

  it("reads a llama.cpp template without tool support as no tools", async () => {
    const server = await serve({
      server: "llama.cpp",
      models: { qwen: { contextLength: 4_096, capabilities: [] } },
    });
    expect(await learn(server, "qwen")).toMatchObject({ contextWindow: 4_096, tools: false });
  });

  it("reads vLLM's max_model_len", async () => {
    const server = await serve({
      server: "vllm",
      models: { "Qwen/Qwen2.5-Coder-7B-Instruct": { contextLength: 32_768 } },
    });
    expect(await learn(server, "Qwen/Qwen2.5-Coder-7B-Instruct")).toEqual(
      expect.objectContaining({ source: "vLLM /v1/models", contextWindow: 32_768 }),
    );
  });

  it("reads the context LM Studio loaded the model with, not the model's maximum", async () => {
    const server = await serve({
      server: "lm-studio",
      models: { "qwen/qwen3-coder-30b": { contextLength: 8_192, capabilities: ["tools"] } },
    });
    const learned = await learn(server, "qwen/qwen3-coder-30b");
    expect(learned).toMatchObject({
      source: "LM Studio /api/v1/models",
      contextWindow: 8_192,
      tools: true,
      vision: false,
    });
  });

  it("learns nothing from a server that says nothing of its models", async () => {
    const server = await serve({ server: "ollama", models: {} });
    expect(await learn(server, "qwen")).toBeUndefined();
  });
});
