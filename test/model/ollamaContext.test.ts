import { countTokens } from "gpt-tokenizer";
import { afterEach, describe, expect, it } from "vitest";
import { CONTEXT_STEP } from "../../src/model/contextSize.js";
import { closeAll, hostedConversation, type SessionSetup } from "../helpers/session.js";
import type { RecordedRequest, ScriptedTurn, ServedModel } from "../support/scriptedServer.js";

afterEach(closeAll);

const MODEL = "qwen2.5-coder:7b";

/** A `cairn do` on Ollama's wire, its server describing the model as `served`. */
async function ollamaDo(script: ScriptedTurn[], served: ServedModel, setup: SessionSetup = {}) {
  const hosted = await hostedConversation(script, {
    format: "ollama",
    approval: "auto",
    mode: "do",
    serves: { server: "ollama", models: { [MODEL]: served } },
    ...setup,
  });
  const outcome = await hosted.conversation.submit({
    type: "user_input",
    mode: "do",
    text: "summarise the files",
  });
  return { ...hosted, model: hosted.conversation.view().model, outcome };
}

/** The prompt's tokens as a real tokenizer counts them: every message's text, and the tools offered. */
function promptTokens(request: RecordedRequest): number {
  const body = request.body as {
    messages: Array<{ content?: string; tool_calls?: unknown }>;
    tools?: unknown;
  };
  const text = body.messages.map(
    (m) => `${m.content ?? ""}${m.tool_calls ? JSON.stringify(m.tool_calls) : ""}`,
  );
  return countTokens(text.join("\n")) + (body.tools ? countTokens(JSON.stringify(body.tools)) : 0);
}

/** Source-like text: what makes a prompt grow in a coding task. */
const code = (lines: number) =>
  Array.from(
    { length: lines },
    (_, i) => `export function step${i}(input: number): number { return input * ${i} + 1; }`,
  ).join("\n");

describe("Ollama's context (num_ctx)", () => {
  it("asks on every request of a task for a context that holds the prompt and the answer's cap, in steps that do not shrink", async () => {
    const { server, outcome, events } = await ollamaDo(
      [
        { toolCalls: [{ name: "read_file", args: { path: "a.ts" } }] },
        { toolCalls: [{ name: "read_file", args: { path: "b.ts" } }] },
        { toolCalls: [{ name: "read_file", args: { path: "c.ts" } }] },
        { text: "Three modules of arithmetic steps." },
      ],
      { contextLength: 131_072, capabilities: ["completion", "tools"] },
      { files: { "a.ts": code(400), "b.ts": code(400), "c.ts": code(400) } },
    );
    expect(outcome?.result.status).toBe("completed");
    const chats = server.requests.filter((request) => request.format === "ollama");
    expect(chats).toHaveLength(4);
    const sizes = chats.map((request) => request.body.options?.num_ctx as number);
    chats.forEach((request, i) => {
      const size = sizes[i] ?? 0;
      expect(size).toBeGreaterThanOrEqual(
        promptTokens(request) + (request.body.options?.num_predict as number),
      );
      expect(size % CONTEXT_STEP).toBe(0);
      expect(size).toBeLessThanOrEqual(131_072);
    });
    // The prompt grew past a step: the context grew with it, and never went back.
    expect(promptTokens(chats[3] as RecordedRequest)).toBeGreaterThan(
      promptTokens(chats[0] as RecordedRequest) + CONTEXT_STEP,
    );
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    expect(events.filter((event) => event.type === "usage").map((event) => event.context_tokens)).toEqual(
      sizes,
    );
  });

  it("learns the window from /api/show, and keeps to it", async () => {
    const { model, server } = await ollamaDo([{ text: "Nothing to summarise." }], {
      contextLength: 12_288,
      capabilities: ["completion", "tools"],
    });
    expect(model.info).toMatchObject({ contextWindow: 12_288, contextWindowKnown: true });
    expect(model.info.learned).toMatchObject({
      source: "ollama /api/show",
      contextWindow: 12_288,
      tools: true,
    });
    const request = server.requests[0];
    expect(request?.body.options.num_ctx).toBe(12_288);
    expect(request?.body.options.num_predict).toBeLessThan(12_288);
  });

  it("asks for no less than the context the Modelfile loads the model with, so the server does not reload it", async () => {
    const { server } = await ollamaDo([{ text: "Nothing to summarise." }], {
      contextLength: 131_072,
      numCtx: 65_536,
      capabilities: ["completion", "tools"],
    });
    expect(server.requests[0]?.body.options.num_ctx).toBe(65_536);
  });

  it("says in the closing details when a request had to be cut to fit the window", async () => {
    const { events, outcome } = await ollamaDo(
      [
        { toolCalls: [{ name: "read_file", args: { path: "a.ts" } }] },
        { toolCalls: [{ name: "read_file", args: { path: "b.ts" } }] },
        { text: "Done." },
      ],
      { contextLength: 8_192, capabilities: ["completion", "tools"] },
      { files: { "a.ts": code(300), "b.ts": code(300) } },
    );
    expect(outcome?.result.status).toBe("completed");
    const usage = events.filter((event) => event.type === "usage");
    expect(usage.some((event) => event.cut_to_fit)).toBe(true);
    expect(usage.every((event) => event.context_tokens === 8_192)).toBe(true);
  });

  it("does not say a request was cut when its prompt fills most of the window and the answer's cap takes the rest", async () => {
    const { events, server, outcome } = await ollamaDo(
      [{ toolCalls: [{ name: "read_file", args: { path: "a.ts" } }] }, { text: "Arithmetic steps." }],
      { contextLength: 16_384, capabilities: ["completion", "tools"] },
      { files: { "a.ts": code(300) } },
    );
    expect(outcome?.result.status).toBe("completed");
    const last = server.requests.filter((request) => request.format === "ollama").at(-1) as RecordedRequest;
    // Over 40% of the window: where the cap was sized from the prompt without the context's margin.
    expect(promptTokens(last)).toBeGreaterThan(0.5 * 16_384);
    expect(promptTokens(last) + (last.body.options?.num_predict as number)).toBeLessThanOrEqual(16_384);
    expect(events.filter((event) => event.type === "usage").some((event) => event.cut_to_fit)).toBe(false);
    expect(events.filter((event) => event.type === "error")).toEqual([]);
  });

  it("sends keep_alive when the config sets it", async () => {
    const { server } = await ollamaDo(
      [{ text: "Nothing to summarise." }],
      { contextLength: 32_768, capabilities: ["completion", "tools"] },
      {
        config: (repo) => ({
          providers: { ollama: { keep_alive: "30m" } },
          workspace: { extra_roots: [repo] },
        }),
      },
    );
    expect(server.requests[0]?.body.keep_alive).toBe("30m");
  });
});

describe("a model its Ollama server says has no tool support", () => {
  it("runs in text mode without configuration: no tools sent, its fenced calls made", async () => {
    const { server, events, outcome, model } = await ollamaDo(
      [
        { text: 'I will read it.\n```json\n{"tool": "read_file", "arguments": {"path": "a.ts"}}\n```' },
        { text: "It holds arithmetic steps." },
      ],
      { contextLength: 32_768, capabilities: ["completion"] },
      { files: { "a.ts": code(3) } },
    );
    expect(model.info.toolCalls).toBe("text");
    expect(server.requests[0]?.body.tools).toBeUndefined();
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("no native tool calling");
    expect(events.filter((event) => event.type === "tool.call").map((event) => event.args)).toEqual([
      { path: "a.ts" },
    ]);
    expect(outcome?.result.status).toBe("completed");
  });

  it("still calls tools natively when the config says so", async () => {
    const { server, model } = await ollamaDo(
      [{ text: "Nothing to summarise." }],
      { contextLength: 32_768, capabilities: ["completion"] },
      { config: { models: { [`ollama/${MODEL}`]: { tool_calls: "native", context_window: 16_384 } } } },
    );
    expect(model.info).toMatchObject({ toolCalls: "native", contextWindow: 16_384 });
    expect(server.requests[0]?.body.tools?.length).toBeGreaterThan(0);
  });
});

describe("a local model slow to its first token", () => {
  it("is waited for past request_timeout_ms, and the person is told it is still reading the prompt", async () => {
    const { events, outcome } = await ollamaDo(
      [{ text: "Read it all.", delayMs: 3_500 }],
      { contextLength: 32_768, capabilities: ["completion", "tools"] },
      { config: { request_timeout_ms: 1_000 } },
    );
    expect(outcome?.result.status).toBe("completed");
    expect(events.filter((event) => event.type === "retry")).toEqual([]);
    const statuses = events.flatMap((event) =>
      event.type === "status" ? [event.detail ?? event.status] : [],
    );
    expect(statuses).toEqual([
      "thinking",
      expect.stringMatching(/^reading the prompt \([\d,]+ tokens\)$/),
      "thinking",
    ]);
    const note = events.findIndex((event) => event.type === "status" && event.detail);
    const text = events.findIndex((event) => event.type === "message.delta");
    expect(note).toBeLessThan(text);
  });

  it("gives up after the provider's own request_timeout_ms", async () => {
    const { outcome } = await ollamaDo(
      [{ text: "Too late.", delayMs: 3_000 }],
      { contextLength: 32_768, capabilities: ["completion", "tools"] },
      { config: { providers: { ollama: { request_timeout_ms: 300 } }, retries: { max: 0, base_ms: 1 } } },
    );
    expect(outcome?.result).toMatchObject({ status: "failed", reason: "provider_error" });
  });
});
