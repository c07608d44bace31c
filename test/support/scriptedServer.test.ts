import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import {
  APICallError,
  generateText,
  jsonSchema,
  type LanguageModel,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
} from "ai";
import { createOllama } from "ollama-ai-provider-v2";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { tempDir } from "../helpers/temp.js";
import { type ScriptedServer, startScriptedServer, type WireFormat } from "./scriptedServer.js";

const tools = {
  read_file: tool({ description: "Read a file", inputSchema: z.object({ path: z.string() }) }),
  run: tool({
    description: "Run a command",
    inputSchema: jsonSchema<{ command: string }>({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    }),
  }),
};

interface Case {
  format: WireFormat;
  path: string;
  model: (s: ScriptedServer) => LanguageModel;
  reportsCache: boolean;
  streamsReasoning: boolean;
  /** What the provider makes of arguments that are not JSON: see the test of that name. */
  brokenArgs: "verbatim" | "emptied" | "dropped";
  /** How a connection lost mid-stream reaches the caller of `fullStream`. */
  cutSurfacesAs: "throw" | "error part";
}

const cases: Record<string, Case> = {
  "openai (responses)": {
    format: "openai-responses",
    path: "/v1/responses",
    model: (s) => createOpenAI({ baseURL: s.openaiBaseUrl, apiKey: "test" })("gpt-5"),
    reportsCache: true,
    streamsReasoning: true,
    brokenArgs: "verbatim",
    cutSurfacesAs: "throw",
  },
  "openai (chat)": {
    format: "openai",
    path: "/v1/chat/completions",
    model: (s) => createOpenAI({ baseURL: s.openaiBaseUrl, apiKey: "test" }).chat("gpt-4o"),
    reportsCache: true,
    streamsReasoning: false,
    brokenArgs: "verbatim",
    cutSurfacesAs: "throw",
  },
  "openai-compatible": {
    format: "openai",
    path: "/v1/chat/completions",
    model: (s) =>
      createOpenAICompatible({ name: "local", baseURL: s.openaiBaseUrl, apiKey: "test", includeUsage: true })(
        "m",
      ),
    reportsCache: true,
    streamsReasoning: true,
    brokenArgs: "verbatim",
    cutSurfacesAs: "throw",
  },
  openrouter: {
    format: "openai",
    path: "/openrouter/v1/chat/completions",
    model: (s) => createOpenRouter({ baseURL: s.openrouterBaseUrl, apiKey: "test" })("vendor/model"),
    reportsCache: true,
    streamsReasoning: true,
    brokenArgs: "emptied",
    // The provider catches the failed read itself and reports it as a part.
    cutSurfacesAs: "error part",
  },
  anthropic: {
    format: "anthropic",
    path: "/v1/messages",
    model: (s) => createAnthropic({ baseURL: s.anthropicBaseUrl, apiKey: "test" })("claude-sonnet-4-5"),
    reportsCache: true,
    streamsReasoning: true,
    brokenArgs: "verbatim",
    cutSurfacesAs: "throw",
  },
  ollama: {
    format: "ollama",
    path: "/api/chat",
    model: (s) => createOllama({ baseURL: s.ollamaBaseUrl })("llama3"),
    reportsCache: false,
    streamsReasoning: true,
    brokenArgs: "dropped",
    cutSurfacesAs: "throw",
  },
};

type Part = TextStreamPart<ToolSet>;

function ofType<T extends Part["type"]>(parts: Part[], type: T): Extract<Part, { type: T }>[] {
  return parts.filter((p): p is Extract<Part, { type: T }> => p.type === type);
}

async function drive(
  model: LanguageModel,
  options: { abortSignal?: AbortSignal; until?: (parts: Part[]) => boolean } = {},
): Promise<{ parts: Part[]; thrown: unknown }> {
  const result = streamText({
    model,
    prompt: "hello there",
    tools,
    maxRetries: 0,
    // Errors are asserted from the stream; the default handler would only print them.
    onError: () => {},
    ...(options.abortSignal && { abortSignal: options.abortSignal }),
  });
  const parts: Part[] = [];
  try {
    for await (const part of result.fullStream) {
      parts.push(part);
      // Leaving the loop cancels the stream, and with it the request.
      if (options.until?.(parts)) break;
    }
    return { parts, thrown: undefined };
  } catch (thrown) {
    return { parts, thrown };
  }
}

/** The error a lost connection produced, wherever this provider puts it; the other channel stays quiet. */
function failure(c: Case, parts: Part[], thrown: unknown): unknown {
  const errorPart = ofType(parts, "error")[0]?.error;
  const [expected, other] = c.cutSurfacesAs === "throw" ? [thrown, errorPart] : [errorPart, thrown];
  expect(other).toBeUndefined();
  return expected;
}

const textOf = (parts: Part[]) =>
  ofType(parts, "text-delta")
    .map((p) => p.text)
    .join("");

/**
 * An `until` that holds once the streamed text or tool-call arguments passed `chars`, counting
 * each part once: joining them all again at every part took quadratic time, 2,500 parts here.
 */
function grownPast(kind: "text-delta" | "tool-input-delta", chars: number): (parts: Part[]) => boolean {
  let counted = 0;
  let length = 0;
  return (parts) => {
    for (; counted < parts.length; counted++) {
      const part = parts[counted]!;
      if (part.type === "text-delta" && kind === "text-delta") length += part.text.length;
      if (part.type === "tool-input-delta" && kind === "tool-input-delta") length += part.delta.length;
    }
    return length > chars;
  };
}

let server: ScriptedServer | undefined;
async function start(script: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  server = await startScriptedServer(script);
  return server;
}
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(Object.entries(cases))("%s", (_name, c) => {
  it("streams text in several deltas and records the request before answering", async () => {
    const s = await start([{ text: "The quick brown fox jumps over the lazy dog." }]);
    const { parts, thrown } = await drive(c.model(s));

    expect(thrown).toBeUndefined();
    expect(ofType(parts, "text-delta").length).toBeGreaterThan(1);
    expect(textOf(parts)).toBe("The quick brown fox jumps over the lazy dog.");
    expect(ofType(parts, "finish")[0]?.finishReason).toBe("stop");

    expect(s.requests).toHaveLength(1);
    const [request] = s.requests;
    expect(request).toMatchObject({ format: c.format, method: "POST", path: c.path, turnIndex: 0 });
    expect(request?.rawBody).toContain("hello there");
    expect(request?.body).toEqual(JSON.parse(request?.rawBody ?? ""));
    expect(request?.headers["content-type"]).toContain("application/json");
    expect(s.remaining()).toBe(0);
  });

  it("returns tool calls with their names, ids and parsed arguments", async () => {
    const s = await start([
      {
        toolCalls: [
          { name: "read_file", args: { path: "src/a.ts" }, id: "call_read" },
          { name: "run", args: { command: "npm test" } },
        ],
      },
    ]);
    const { parts, thrown } = await drive(c.model(s));

    expect(thrown).toBeUndefined();
    const calls = ofType(parts, "tool-call");
    expect(calls.map((p) => [p.toolName, p.input, p.invalid ?? false])).toEqual([
      ["read_file", { path: "src/a.ts" }, false],
      ["run", { command: "npm test" }, false],
    ]);
    expect(calls[0]?.toolCallId).toBe("call_read");
    expect(calls[1]?.toolCallId).toBeTruthy();
    expect(ofType(parts, "finish")[0]?.finishReason).toBe("tool-calls");
    expect(JSON.stringify(s.requests[0]?.body)).toContain("read_file");
  });

  it("reports scripted usage, cached tokens where the format has them", async () => {
    const s = await start([{ text: "ok", usage: { input: 1200, output: 80, cached: 1000 } }]);
    const { parts } = await drive(c.model(s));

    const usage = ofType(parts, "finish")[0]?.totalUsage;
    expect(usage?.inputTokens).toBe(1200);
    expect(usage?.outputTokens).toBe(80);
    expect(usage?.inputTokenDetails.cacheReadTokens).toBe(c.reportsCache ? 1000 : undefined);
  });

  it("streams reasoning where the provider reads it", async () => {
    const s = await start([{ reasoning: "Look at the tests first.", text: "Done." }]);
    const { parts } = await drive(c.model(s));

    const reasoning = ofType(parts, "reasoning-delta")
      .map((p) => p.text)
      .join("");
    // OpenAI's chat completions carry no reasoning text, so that provider ignores the extra delta fields.
    expect(reasoning).toBe(c.streamsReasoning ? "Look at the tests first." : "");
    expect(textOf(parts)).toBe("Done.");
  });

  it("sends unparsable arguments verbatim", async () => {
    const broken = '{"path": "src/a.ts"';
    const s = await start([{ toolCalls: [{ name: "read_file", args: broken }] }]);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { parts, thrown } = await drive(c.model(s));
    const warned = warn.mock.calls.length;
    warn.mockRestore();

    expect(thrown).toBeUndefined();
    const calls = ofType(parts, "tool-call");
    if (c.brokenArgs === "dropped") {
      // Ollama's wire carries arguments as an object, so the line fails the provider's schema and is skipped.
      expect(calls).toEqual([]);
      expect(warned).toBeGreaterThan(0);
      return;
    }
    // The SDK turns the call into an invalid dynamic call, then reports it again as a tool error.
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: "read_file", invalid: true, dynamic: true });
    expect(calls[0]?.input).toEqual(c.brokenArgs === "verbatim" ? broken : {});
    expect(ofType(parts, "tool-error")[0]?.toolCallId).toBe(calls[0]?.toolCallId);
  });

  it("reports an output stopped at its length limit as finish reason length", async () => {
    const s = await start([{ text: "A long answer that stops", finish: "length" }]);
    const { parts, thrown } = await drive(c.model(s));

    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toBe("A long answer that stops");
    // Text only: with tool calls in the answer, Ollama's provider reports tool-calls whatever the wire says.
    expect(ofType(parts, "finish")[0]?.finishReason).toBe("length");
  });

  it("surfaces HTTP 429 with Retry-After and HTTP 401 as APICallError parts", async () => {
    const s = await start([
      { error: { status: 429, headers: { "retry-after": "7" } } },
      { error: { status: 401 } },
    ]);

    const limited = await drive(c.model(s));
    const rateError = ofType(limited.parts, "error")[0]?.error;
    expect(limited.thrown).toBeUndefined();
    expect(APICallError.isInstance(rateError)).toBe(true);
    expect(rateError).toMatchObject({ statusCode: 429, isRetryable: true });
    expect((rateError as APICallError).responseHeaders?.["retry-after"]).toBe("7");

    const denied = await drive(c.model(s));
    const authError = ofType(denied.parts, "error")[0]?.error;
    expect(APICallError.isInstance(authError)).toBe(true);
    expect(authError).toMatchObject({ statusCode: 401, isRetryable: false });
  });

  it("cutting the stream mid-text fails the stream after partial text", async () => {
    const s = await start([{ text: "A long answer that never finishes.", cut: "text" }]);
    const { parts, thrown } = await drive(c.model(s));

    expect(failure(c, parts, thrown)).toBeDefined();
    const text = textOf(parts);
    expect(text.length).toBeGreaterThan(0);
    expect("A long answer that never finishes.".startsWith(text)).toBe(true);
    expect(text).not.toBe("A long answer that never finishes.");
  });

  it("cutting the stream mid-arguments yields no tool call", async () => {
    const s = await start([
      { toolCalls: [{ name: "read_file", args: { path: "src/some/long/path.ts" } }], cut: "tool" },
    ]);
    const { parts, thrown } = await drive(c.model(s));

    expect(failure(c, parts, thrown)).toBeDefined();
    expect(ofType(parts, "tool-call")).toEqual([]);
  });

  it.skipIf(c.format === "anthropic")("reports no usage when told to, streaming or not", async () => {
    // Anthropic's server always reports usage, so its format has no way to leave it out.
    const s = await start([
      { text: "ok", usage: "none" },
      { text: "ok", usage: "none" },
    ]);
    const { parts } = await drive(c.model(s));
    // Some providers say so with undefined counts, others (OpenRouter's, Ollama's) with zeros.
    const usage = ofType(parts, "finish")[0]?.totalUsage;
    expect(usage?.inputTokens ?? 0).toBe(0);
    expect(usage?.outputTokens ?? 0).toBe(0);
    const whole = await generateText({ model: c.model(s), prompt: "hello there", maxRetries: 0 });
    expect(whole.usage.inputTokens ?? 0).toBe(0);
  });

  it.skipIf(c.format === "ollama")("sends an error inside the stream after the text", async () => {
    // Ollama's provider cannot read the error line Ollama sends mid-stream: it skips it with a warning.
    const s = await start([
      { text: "Partly said", streamError: { message: "the model crashed mid-answer", type: "server_error" } },
    ]);
    const { parts, thrown } = await drive(c.model(s));
    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toBe("Partly said");
    const error = ofType(parts, "error")[0]?.error;
    expect(JSON.stringify(error)).toContain("the model crashed mid-answer");
  });

  it("streams text without end until the client goes away", async () => {
    const s = await start([{ text: "Looping:", endless: { chunk: "again " } }, { text: "next" }]);
    const { parts } = await drive(c.model(s), { until: grownPast("text-delta", 10_000) });
    expect(textOf(parts).startsWith("Looping:again again ")).toBe(true);
    // The server has let go of the request and answers the next one.
    expect(textOf((await drive(c.model(s))).parts)).toBe("next");
  });

  it.skipIf(c.format === "ollama")("streams one tool call's arguments without end", async () => {
    // Ollama sends a tool call whole, in one line: its arguments cannot go on for ever.
    const s = await start([
      { toolCalls: [{ name: "run", args: '{"command": "echo ' }], endless: { chunk: "yes ", in: "tool" } },
    ]);
    const argsOf = (so: Part[]) =>
      ofType(so, "tool-input-delta")
        .map((p) => p.delta)
        .join("");
    const { parts } = await drive(c.model(s), { until: grownPast("tool-input-delta", 10_000) });
    expect(argsOf(parts).startsWith('{"command": "echo yes yes ')).toBe(true);
    expect(ofType(parts, "tool-call")).toEqual([]);
  });

  it("answers non-streaming calls too", async () => {
    const s = await start([
      {
        text: "Reading it.",
        toolCalls: [{ name: "read_file", args: { path: "b.ts" } }],
        usage: { input: 50, output: 9 },
      },
    ]);
    const result = await generateText({ model: c.model(s), prompt: "hello there", tools, maxRetries: 0 });

    expect(result.text).toBe("Reading it.");
    expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ["read_file", { path: "b.ts" }],
    ]);
    expect(result.usage.inputTokens).toBe(50);
    expect(result.usage.outputTokens).toBe(9);
  });
});

describe("scripted server", () => {
  const openai = (s: ScriptedServer) => createOpenAI({ baseURL: s.openaiBaseUrl, apiKey: "test" })("gpt-5");

  it("aborts a hanging request through the abort signal", async () => {
    const s = await start([{ hang: true }]);
    const controller = new AbortController();
    const driving = drive(openai(s), { abortSignal: controller.signal });
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    controller.abort();
    const { parts, thrown } = await driving;

    expect(thrown).toBeUndefined();
    expect(ofType(parts, "abort")).toHaveLength(1);
  });

  it("close() ends a request left hanging", async () => {
    const s = await start([{ hang: true }]);
    const driving = drive(openai(s));
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    await s.close();
    const { parts } = await driving;

    expect(ofType(parts, "error")[0]?.error).toMatchObject({ isRetryable: true });
  });

  it("resets the connection before answering", async () => {
    const s = await start([{ resetConnection: true }]);
    const { parts } = await drive(openai(s));

    const error = ofType(parts, "error")[0]?.error;
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: true });
  });

  it("waits delayMs before the first byte", async () => {
    const s = await start([{ text: "late", delayMs: 300 }]);
    const started = Date.now();
    const { parts } = await drive(openai(s));

    expect(textOf(parts)).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("fails loudly once the script is exhausted", async () => {
    const s = await start([{ text: "only one" }]);
    await drive(openai(s));
    const { parts } = await drive(openai(s));

    const error = ofType(parts, "error")[0]?.error;
    expect(error).toMatchObject({ statusCode: 500 });
    expect((error as APICallError).message).toBe("scripted server: script exhausted after 1 turns");
    expect(s.requests).toHaveLength(2);
    expect(s.remaining()).toBe(0);
  });

  it("plays one turn per model request across a tool loop, whatever the format", async () => {
    const s = await start([
      { toolCalls: [{ name: "read_file", args: { path: "a.ts" } }] },
      { text: "a.ts says hi." },
    ]);
    const readFile = tool({
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => `contents of ${path}`,
    });
    const result = streamText({
      model: cases.anthropic!.model(s),
      prompt: "what is in a.ts?",
      tools: { read_file: readFile },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });

    expect(await result.text).toBe("a.ts says hi.");
    expect(s.requests.map((r) => r.turnIndex)).toEqual([0, 1]);
    expect(s.requests[1]?.rawBody).toContain("contents of a.ts");
    expect(s.remaining()).toBe(0);
  });

  it("hands a function script each recorded request", async () => {
    const seen: number[] = [];
    const s = await start((request, index) => {
      seen.push(index);
      return { text: `turn ${index} for ${request.format}` };
    });
    const first = await drive(cases.ollama!.model(s));
    const second = await drive(openai(s));

    expect(textOf(first.parts)).toBe("turn 0 for ollama");
    expect(textOf(second.parts)).toBe("turn 1 for openai-responses");
    expect(seen).toEqual([0, 1]);
    expect(s.remaining()).toBe(Number.POSITIVE_INFINITY);
  });

  it("lists a model on /api/tags and answers 404 elsewhere", async () => {
    const s = await start([]);
    const tags = await fetch(`${s.url}/api/tags`);
    expect(await tags.json()).toMatchObject({ models: [{ name: expect.any(String) }] });
    const missing = await fetch(`${s.url}/v1/nothing`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(s.requests).toEqual([]);
  });

  it("runs as a process that prints its url", async () => {
    const scriptPath = join(tempDir("cairn-script-"), "script.json");
    await writeFile(scriptPath, JSON.stringify([{ text: "from a process" }]));
    // The compiled module, as the terminal tests run it (npm test builds first).
    const compiled = join(import.meta.dirname, "..", "..", "dist", "test", "support", "scriptedServer.js");
    const child = spawn(process.execPath, [compiled, scriptPath], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      const { url } = JSON.parse(line) as { url: string };
      const model = createOpenAI({ baseURL: `${url}/v1`, apiKey: "test" }).chat("gpt-4o");
      const { parts } = await drive(model);
      expect(textOf(parts)).toBe("from a process");
    } finally {
      child.kill();
    }
  });
});
