import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { modelsCommand } from "../../src/cli/models.js";
import { makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { addGlobalConfig } from "../helpers/session.js";
import { captureIo } from "../store/fixtures.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A home whose config points Ollama at a scripted server that has one model without tool support. */
async function ollamaHome(extra: object = {}) {
  const server = await startScriptedServer([], {
    models: {
      server: "ollama",
      models: {
        "llama3.2-vision:11b": {
          contextLength: 131_072,
          capabilities: ["completion", "vision"],
          digest: "d1",
        },
      },
    },
  });
  servers.push(server);
  const home = await makeHome();
  await addGlobalConfig(home, { providers: { ollama: { base_url: server.ollamaBaseUrl } }, ...extra });
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
  };
  return { server, home, env, cwd: await makeRepo({}) };
}

describe("cairn models", () => {
  it("says what the server said of a model, and where each value came from", async () => {
    const { env, cwd } = await ollamaHome();
    const { io, out } = captureIo();
    expect(await modelsCommand(["ollama/llama3.2-vision:11b"], { cwd }, io, env)).toBe(0);
    const text = out();
    expect(text).toContain("ollama/llama3.2-vision:11b at http://127.0.0.1:");
    expect(text).toContain("  window      131,072 tokens, from ollama /api/show");
    expect(text).toContain("  tool calls  text, from ollama /api/show");
    expect(text).toContain("  images      yes, from ollama /api/show");
    expect(text).toMatch(/kept in ~\/data\/cairn\/model-facts\.json/);
  });

  it("shows the config winning over the server, in JSON", async () => {
    const { env, cwd } = await ollamaHome({
      models: { "ollama/llama3.2-vision:11b": { context_window: 16_384, tool_calls: "native" } },
    });
    const { io, out } = captureIo();
    await modelsCommand(["ollama/llama3.2-vision:11b"], { cwd, json: true }, io, env);
    expect(JSON.parse(out())).toEqual([
      expect.objectContaining({
        model: "ollama/llama3.2-vision:11b",
        context_window: 16_384,
        context_window_from: "config",
        tool_calls: "native",
        tool_calls_from: "config",
        images: true,
        images_from: "ollama /api/show",
        stale: false,
      }),
    ]);
  });

  it("lists what was learned before, and says a server that no longer answers is stale", async () => {
    const { env, cwd, server } = await ollamaHome();
    await modelsCommand(["ollama/llama3.2-vision:11b"], { cwd }, captureIo().io, env);
    await server.close();
    const { io, out } = captureIo();
    await modelsCommand(["ollama/llama3.2-vision:11b"], { cwd, json: true }, io, env);
    expect(JSON.parse(out())[0]).toMatchObject({ context_window: 131_072, stale: true });
  });

  it("with no model chosen, lists what was learned", async () => {
    const { env, cwd } = await ollamaHome();
    const empty = captureIo();
    expect(await modelsCommand([], { cwd }, empty.io, env)).toBe(0);
    expect(empty.out()).toContain("No model chosen, and nothing learned from a local server yet.");
    await modelsCommand(["ollama/llama3.2-vision:11b"], { cwd }, captureIo().io, env);
    const { io, out } = captureIo();
    await modelsCommand([], { cwd }, io, env);
    expect(out()).toContain("  window      131,072 tokens, from ollama /api/show");
  });

  it("is a command of the CLI, and a bad id is bad usage", async () => {
    const { home } = await ollamaHome({ model: "ollama/llama3.2-vision:11b" });
    const listed = await runCairn(["models"], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("  tool calls  text, from ollama /api/show");
    const bad = await runCairn(["models", "olama/x"], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('did you mean "ollama/x"');
  });
});
